/* onnxexp/symbolic_opset.h: the built-in op tables (torch's
 * symbolic_opset9..N modules), for what `onnxexp --list-ops` prints. */
#ifndef ONNXEXP_SYMBOLIC_OPSET_H
#define ONNXEXP_SYMBOLIC_OPSET_H

#include <onnxexp/api.h>
#include <onnxexp/diag.h>

ONNXEXP_BEGIN_DECLS

/* Receives one op and the first opset with a built-in symbolic for it;
 * return nonzero to stop. */
typedef int (*onnxexp_op_visit_fn)(void *user, const char *op,
                                   int first_opset);

/* Visits every op with a built-in symbolic at opset (0: at any opset),
 * each once, in table order (by op name). Custom symbolics are not
 * listed. */
ONNXEXP_API onnxexp_status onnxexp_list_ops(int opset,
                                            onnxexp_op_visit_fn visit,
                                            void *user, onnxexp_diag *diag);
/* *supported = nonzero when op ("aten::relu") has a symbolic at opset,
 * custom or built-in; *first_opset (may be NULL) = the first opset with a
 * built-in one, 0 if none. */
ONNXEXP_API onnxexp_status onnxexp_op_supported(const char *op, int opset,
                                                int *supported,
                                                int *first_opset,
                                                onnxexp_diag *diag);

ONNXEXP_END_DECLS

#endif
