/* fault.c: the counters behind oxp_fault (fault.h). Only reached while a
 * test has armed them; a normal run never gets past the inline check. */
#include <errno.h>
#include <stddef.h>

#include "fault.h"

int oxp_fault_on_;

static long calls[OXP_FAULT_NKINDS];
static int cond[OXP_FAULT_NKINDS];
static long fired;
static struct {
  oxp_fault_kind kind;
  long nth; /* 0: count only */
  int err;
  oxp_fault_mode mode;
} armed;

static const char *const NAMES[OXP_FAULT_NKINDS] = {
    "alloc",    "open",     "tmpfile", "stat", "read",  "mmap",
    "write",    "copy",     "sendfile", "truncate", "sync", "chmod",
    "link",     "rename",   "exchange", "unlink", "close"};

const char *oxp_fault_kind_name(oxp_fault_kind k) {
  return (unsigned)k < OXP_FAULT_NKINDS ? NAMES[k] : NULL;
}

void oxp_fault_arm(oxp_fault_kind k, long nth, int err, oxp_fault_mode mode) {
  __atomic_store_n(&oxp_fault_on_, 0, __ATOMIC_SEQ_CST);
  for (int i = 0; i < OXP_FAULT_NKINDS; i++) calls[i] = 0;
  fired = 0;
  armed.kind = k;
  armed.nth = nth;
  armed.err = err;
  armed.mode = mode;
  __atomic_store_n(&oxp_fault_on_, 1, __ATOMIC_SEQ_CST);
}

void oxp_fault_count(void) { oxp_fault_arm(OXP_FAULT_ALLOC, 0, 0, OXP_FAULT_ONCE); }

void oxp_fault_disarm(void) {
  __atomic_store_n(&oxp_fault_on_, 0, __ATOMIC_SEQ_CST);
}

void oxp_fault_condition(oxp_fault_kind k, int err) {
  if ((unsigned)k < OXP_FAULT_NKINDS) cond[k] = err;
}

long oxp_fault_calls(oxp_fault_kind k) {
  return (unsigned)k < OXP_FAULT_NKINDS ? calls[k] : 0;
}

long oxp_fault_fired(void) { return fired; }

int oxp_fault_hit_(oxp_fault_kind k) {
  if ((unsigned)k >= OXP_FAULT_NKINDS) return 0;
  if (cond[k]) {
    errno = cond[k];
    return OXP_FAULT_FAIL;
  }
  long n = ++calls[k];
  if (!armed.nth || k != armed.kind || n < armed.nth) return 0;
  int act = OXP_FAULT_FAIL;
  switch (armed.mode) {
  case OXP_FAULT_ONCE:
    if (n != armed.nth) return 0;
    break;
  case OXP_FAULT_SHORT_ONCE:
    if (n != armed.nth) return 0;
    act = OXP_FAULT_SHORT;
    break;
  case OXP_FAULT_FILL:
    if (n == armed.nth) act = OXP_FAULT_SHORT;
    break;
  case OXP_FAULT_PERSIST:
    break;
  }
  fired++;
  errno = armed.err;
  return act;
}
