/* onnxexp/api.h: linkage macros shared by every public header. */
#ifndef ONNXEXP_API_H
#define ONNXEXP_API_H

/* Marks the entry points the shared library exports; everything else in
 * it is hidden. */
#if defined(_WIN32)
#define ONNXEXP_API
#elif defined(__GNUC__) || defined(__clang__)
#define ONNXEXP_API __attribute__((visibility("default")))
#else
#define ONNXEXP_API
#endif

#ifdef __cplusplus
#define ONNXEXP_BEGIN_DECLS extern "C" {
#define ONNXEXP_END_DECLS }
#else
#define ONNXEXP_BEGIN_DECLS
#define ONNXEXP_END_DECLS
#endif

#endif
