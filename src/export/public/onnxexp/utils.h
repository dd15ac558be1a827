/* onnxexp/utils.h: the rest of torch.onnx.utils a frontend needs. */
#ifndef ONNXEXP_UTILS_H
#define ONNXEXP_UTILS_H

#include <onnxexp/api.h>
#include <onnxexp/diag.h>
#include <onnxexp/export.h>

ONNXEXP_BEGIN_DECLS

/* select_model_mode_for_export: torch flips the module's training flag
 * for the export; an IR graph has no flag, so this sets opts->training,
 * which decides how dropout and batch_norm lower. */
ONNXEXP_API onnxexp_status onnxexp_select_model_mode_for_export(
    onnxexp_options *opts, onnxexp_training_mode mode, onnxexp_diag *diag);

/* is_in_onnx_export: nonzero while an export runs on the calling thread
 * (for example inside a custom symbolic), else 0. */
ONNXEXP_API int onnxexp_is_in_onnx_export(void);

ONNXEXP_END_DECLS

#endif
