/* verification.c: the structural model check (api_core.h's
 * oxp_check_model) behind an opaque info handle. */
#include <string.h>

#include "shim.h"

/* The public handle is the core's info itself. */
#define INFO(m) ((const oxp_model_info *)(const void *)(m))

onnxexp_status onnxexp_check_model(const void *buf, size_t len,
                                   onnxexp_model_info **out, onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (out) *out = NULL;
  if (!buf && len) return oxp_shim_null(d, "onnxexp_check_model", "buf");
  oxp_model_info *m = NULL;
  onnxexp_status s = (onnxexp_status)oxp_check_model(buf ? buf : "", len, out ? &m : NULL, d);
  if (!s && out) *out = (onnxexp_model_info *)(void *)m;
  return s;
}

void onnxexp_model_info_free(onnxexp_model_info *m) {
  oxp_model_info_free((oxp_model_info *)(void *)m);
}

int64_t onnxexp_model_info_ir_version(const onnxexp_model_info *m) {
  return m ? INFO(m)->ir_version : 0;
}

int64_t onnxexp_model_info_opset(const onnxexp_model_info *m, const char *domain) {
  if (!m) return -1;
  if (!domain || strcmp(domain, "ai.onnx") == 0) domain = "";
  for (int i = 0; i < INFO(m)->nopsets; i++)
    if (strcmp(INFO(m)->opsets[i].domain, domain) == 0) return INFO(m)->opsets[i].version;
  return -1;
}

int onnxexp_model_info_num_inputs(const onnxexp_model_info *m) {
  return m ? INFO(m)->ninputs : 0;
}

const char *onnxexp_model_info_input(const onnxexp_model_info *m, int i) {
  return m && i >= 0 && i < INFO(m)->ninputs ? INFO(m)->inputs[i] : NULL;
}

int onnxexp_model_info_num_outputs(const onnxexp_model_info *m) {
  return m ? INFO(m)->noutputs : 0;
}

const char *onnxexp_model_info_output(const onnxexp_model_info *m, int i) {
  return m && i >= 0 && i < INFO(m)->noutputs ? INFO(m)->outputs[i] : NULL;
}

int onnxexp_model_info_num_nodes(const onnxexp_model_info *m) {
  return m ? INFO(m)->nnodes : 0;
}

const char *onnxexp_model_info_node_op(const onnxexp_model_info *m, int i) {
  return m && i >= 0 && i < INFO(m)->nnodes ? INFO(m)->node_ops[i] : NULL;
}

int onnxexp_model_info_num_initializers(const onnxexp_model_info *m) {
  return m ? INFO(m)->ninits : 0;
}
