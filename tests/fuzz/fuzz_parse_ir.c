/* fuzz_parse_ir.c: oxp_parse_ir on arbitrary bytes. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_copy(data, size);
  oxp_arena *a = oxp_arena_new();
  FUZZ_ASSERT(a);
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_graph *g = NULL;
  oxp_status st = oxp_parse_ir(a, "fuzz.ir", text, size, &g, &d);
  if (st == OXP_OK) {
    FUZZ_ASSERT(g && g->top);
    /* Every value a node or the block reads must exist. */
    for (int i = 0; i < g->top->noutputs; i++)
      FUZZ_ASSERT(g->top->outputs[i]);
  } else {
    FUZZ_ASSERT(st == OXP_ERR_PARSE || st == OXP_ERR_NOMEM);
    fuzz_check_diag(st, &d);
  }
  oxp_arena_free(a);
  free(text);
  return 0;
}
