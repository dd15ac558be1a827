/* diag.c: the first error wins; it carries the IR location and op name. */
#include <stdio.h>
#include <string.h>

#include "oxp.h"

void oxp_diag_clear(oxp_diag *d) {
  if (d) memset(d, 0, sizeof *d);
}

oxp_status oxp_fail(oxp_diag *d, oxp_status st, const oxp_loc *loc,
                    const char *op, const char *fmt, ...) {
  if (!d || d->status != OXP_OK) return st;
  d->status = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->message, sizeof d->message, fmt, ap);
  va_end(ap);
  if (loc && loc->file) {
    snprintf(d->file, sizeof d->file, "%s", loc->file);
    d->line = loc->line;
    d->col = loc->col;
  }
  if (op) snprintf(d->op, sizeof d->op, "%s", op);
  return st;
}

oxp_status oxp_fail_nomem(oxp_diag *d) {
  if (d && d->status != OXP_ERR_NOMEM) {
    oxp_diag_clear(d);
    oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  }
  return OXP_ERR_NOMEM;
}

void oxp_diag_format(const oxp_diag *d, char *buf, size_t n) {
  if (d->file[0] && d->line > 0)
    snprintf(buf, n, "%s:%d:%d: %s", d->file, d->line, d->col, d->message);
  else if (d->file[0])
    snprintf(buf, n, "%s: %s", d->file, d->message);
  else
    snprintf(buf, n, "%s", d->message);
}
