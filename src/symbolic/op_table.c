/* op_table.c: the one op table. Every family list row (ops.def:
 * OXP_OP(first opset, "aten::name", fn)) is one row here, sorted by
 * (op, first opset) at build time (gen/sort_ops.c writes op_rows.inc), so
 * the rows are the whole truth of dispatch: the symbolic for an op at a
 * target opset is the row with the highest first opset at or below it,
 * found by binary search, as torch.onnx's symbolic_opsetN modules override
 * earlier ones. */
#include <string.h>

#include "ops.h"

static const oxp_sym_row rows[] = {
#define OXP_ROW(since, name, fn) {name, since, fn},
#include "op_rows.inc"
#undef OXP_ROW
};

/* Every first opset is one opsets.def knows. */
#define OXP_ROW(since, name, fn)                                      \
  _Static_assert((since) >= OXP_OPSET_MIN && (since) <= OXP_OPSET_MAX, \
                 name ": first opset outside opsets.def");
#include "op_rows.inc"
#undef OXP_ROW

const oxp_sym_row *oxp_sym_rows(int *n) {
  *n = (int)(sizeof rows / sizeof *rows);
  return rows;
}

/* The first row of op, or -1. */
static int first_row(const char *op) {
  int lo = 0, hi = (int)(sizeof rows / sizeof *rows);
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (strcmp(rows[mid].op, op) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < (int)(sizeof rows / sizeof *rows) && strcmp(rows[lo].op, op) == 0 ? lo : -1;
}

oxp_symbolic_fn oxp_sym_lookup(const char *op, int opset, int *first_opset) {
  int i = first_row(op);
  if (first_opset) *first_opset = i < 0 ? 0 : rows[i].since;
  oxp_symbolic_fn fn = NULL;
  for (; i >= 0 && i < (int)(sizeof rows / sizeof *rows) && strcmp(rows[i].op, op) == 0 &&
         rows[i].since <= opset;
       i++)
    fn = rows[i].fn;
  return fn;
}

const char *oxp_sym_why_not(const char *op) {
  static const struct { const char *op, *why; } no[] = {
#define OXP_NO(op, why) {op, why},
#include "unsupported.def"
#undef OXP_NO
  };
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (strcmp(no[i].op, op) == 0) return no[i].why;
  return NULL;
}
