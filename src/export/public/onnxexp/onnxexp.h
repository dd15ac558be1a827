/* onnxexp/onnxexp.h: the whole C API of onnxexp, a native exporter from
 * TorchScript IR to ONNX with the legacy torch.onnx.export entry points.
 * See docs/c-api.md. */
#ifndef ONNXEXP_ONNXEXP_H
#define ONNXEXP_ONNXEXP_H

#include <onnxexp/version.h>
#include <onnxexp/diag.h>
#include <onnxexp/types.h>
#include <onnxexp/export.h>
#include <onnxexp/weights.h>
#include <onnxexp/utils.h>
#include <onnxexp/builder.h>
#include <onnxexp/symbolic_helper.h>
#include <onnxexp/symbolic_opset.h>
#include <onnxexp/verification.h>

#endif
