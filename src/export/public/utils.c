/* utils.c: select_model_mode_for_export and is_in_onnx_export. */
#include "shim.h"

onnxexp_status onnxexp_select_model_mode_for_export(onnxexp_options *opts,
                                                    onnxexp_training_mode mode,
                                                    onnxexp_diag *diag) {
  oxp_diag scratch, *d = oxp_shim_diag(diag, &scratch);
  if (!opts) return oxp_shim_null(d, "onnxexp_select_model_mode_for_export", "opts");
  if ((unsigned)mode > ONNXEXP_TRAINING_TRAIN)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "onnxexp_select_model_mode_for_export: mode "
                                    "%d is not an onnxexp_training_mode", (int)mode);
  if (opts->struct_size < offsetof(onnxexp_options, training) + sizeof opts->training)
    return (onnxexp_status)oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                                    "onnxexp_select_model_mode_for_export: opts "
                                    "were not initialized with onnxexp_options_init");
  opts->training = mode;
  return ONNXEXP_OK;
}

int onnxexp_is_in_onnx_export(void) { return oxp_in_export(); }
