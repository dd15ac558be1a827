/* fuzz_check_model.c: oxp_check_model (onnxexp_check_model) on arbitrary
 * bytes. What it reads back must be whole: every name a string, every
 * count what the arrays hold. Seeds are small exported models and nested
 * If models; the first bug class it guards is unpack's recursion. */
#include "api_core.h"
#include "fuzz_common.h"

static void check_names(const char **names, int n) {
  FUZZ_ASSERT(n >= 0 && (n == 0 || names));
  for (int i = 0; i < n; i++) FUZZ_ASSERT(names[i] && strlen(names[i]) < (1u << 24));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *bytes = fuzz_copy(data, size);
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_model_info *m = NULL;
  oxp_status st = oxp_check_model(bytes, size, &m, &d);
  if (st == OXP_OK) {
    FUZZ_ASSERT(m && m->arena && m->ir_version > 0);
    FUZZ_ASSERT(m->nopsets >= 0 && (m->nopsets == 0 || m->opsets));
    for (int i = 0; i < m->nopsets; i++) FUZZ_ASSERT(m->opsets[i].domain);
    check_names(m->inputs, m->ninputs);
    check_names(m->outputs, m->noutputs);
    check_names(m->node_ops, m->nnodes);
    FUZZ_ASSERT(m->ninits >= 0);
  } else {
    FUZZ_ASSERT(st == OXP_ERR_GRAPH || st == OXP_ERR_NOMEM);
    FUZZ_ASSERT(!m);
    fuzz_check_diag(st, &d);
  }
  oxp_model_info_free(m);
  free(bytes);
  return 0;
}
