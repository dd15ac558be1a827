/* mem.c: the library's heap allocations, each one a failure point for the
 * tests (fault.h). Whatever they return is freed with free(3) as usual
 * (onnxexp_free too), so callers of the C API see plain malloc memory. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "oxp.h"

void *oxp_mem_alloc(size_t n) {
  return oxp_fault(OXP_FAULT_ALLOC) ? NULL : malloc(n ? n : 1);
}

void *oxp_mem_calloc(size_t k, size_t n) {
  return oxp_fault(OXP_FAULT_ALLOC) ? NULL : calloc(k ? k : 1, n ? n : 1);
}

/* On failure p is untouched and still the caller's, as with realloc. */
void *oxp_mem_realloc(void *p, size_t n) {
  return oxp_fault(OXP_FAULT_ALLOC) ? NULL : realloc(p, n ? n : 1);
}

char *oxp_mem_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = oxp_mem_alloc(n);
  if (p) memcpy(p, s, n);
  return p;
}
