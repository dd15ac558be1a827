/* serialize.h: private to the serializer stage (names.c, serialize.c,
 * ser_tensor.c, write.c, pretty.c, external_data*.c, progress.c); the CLI
 * also uses oxp_write_file_ex and the progress display. The entry points
 * other stages call (oxp_serialize, oxp_write_file, oxp_write_buffer, oxp_pretty,
 * oxp_ir_version_for_opset) stay declared in export.h. */
#ifndef OXP_SERIALIZE_H
#define OXP_SERIALIZE_H

#include <sys/types.h>

#include "export.h"

/* Gives every value of g, in every nested block, a unique non-empty name,
 * and every node a unique name. Existing unique names are kept, first come
 * first served in graph order (top inputs, top initializers, then nodes in
 * order, depth-first into their blocks); the rest become
 * "<OpType>_<n>_out<k>" (node outputs), "<name>_<k>" (renamed inputs) or
 * similar. Deterministic and idempotent. Fails with OXP_ERR_GRAPH when a
 * node or block output uses a value no block defines. */
oxp_status oxp_assign_names(oxp_graph *g, oxp_diag *d);

/* "onnx::Add" -> "Add"; "com.x::Foo" -> "Foo"; a kind without "::" is
 * returned whole. Points into kind. */
const char *oxp_op_type(const char *kind);
/* The ONNX domain of a node kind: "" for "onnx::" (and "ai.onnx::"), else
 * the part before "::", copied into a. NULL only when memory runs out. */
const char *oxp_op_domain(oxp_arena *a, const char *kind);

/* Which top-block inputs the model lists as graph inputs and which as
 * initializers. Shared by the serializer and the pretty printer so the
 * two never disagree. */
static inline bool oxp_top_input_listed(const oxp_options *o,
                                        const oxp_value *v) {
  return !v->init || o->keep_initializers_as_inputs || !o->export_params;
}
static inline bool oxp_top_input_is_init(const oxp_options *o,
                                         const oxp_value *v) {
  return v->init && o->export_params;
}

/* ---- file mappings (external_data_map.c) ------------------------------ *
 * A snapshot of the process's clean read-only file mappings, so the writer
 * can tell bytes of a file (the safetensors mmap) from plain memory: the
 * former are copied by the kernel and their pages released. */
typedef struct oxp_fmap oxp_fmap;
typedef struct oxp_progress oxp_progress;

/* Never fails for lack of /proc (the table is just empty); NULL only when
 * memory runs out. oxp_fmap_close closes the files it opened. */
oxp_fmap *oxp_fmap_load(oxp_arena *a);
void oxp_fmap_close(oxp_fmap *m);
/* Did the snapshot find any file mapping at all (false without /proc)? */
bool oxp_fmap_available(const oxp_fmap *m);
/* Is [p, p+n) inside one clean mapping of a regular file? Then *fd (owned
 * by m), *off (file offset of p) and *path (the file) are set. */
bool oxp_fmap_lookup(oxp_fmap *m, const void *p, size_t n, int *fd,
                     uint64_t *off, const char **path);
/* Is the mapping holding [p, p+n) a mapping of the file at path? */
bool oxp_fmap_same_file(oxp_fmap *m, const void *p, size_t n,
                        const char *path);
/* Drops the whole pages of [p, p+n) from this process if they belong to a
 * clean file mapping (they refault from the file if touched again). */
void oxp_fmap_release(oxp_fmap *m, const void *p, size_t n);
/* Writes the n bytes at p to out: at *out_off (advanced) or, when out_off
 * is NULL, at the file position. File-backed bytes go through
 * copy_file_range/sendfile, else write(2) followed by release. m may be
 * NULL. what names the output in messages; prog may be NULL. */
oxp_status oxp_fmap_copy(oxp_fmap *m, int out, off_t *out_off, const void *p,
                         size_t n, oxp_progress *prog, const char *what,
                         oxp_diag *d);
/* oxp_fmap_copy of t's bytes; a lazy tensor's are made chunk by chunk
 * (oxp_tensor_produce) and written with write(2). */
oxp_status oxp_fmap_copy_tensor(oxp_fmap *m, int out, off_t *out_off,
                                const oxp_tensor *t, oxp_progress *prog,
                                const char *what, oxp_diag *d);

/* ---- progress (progress.c) ------------------------------------------- *
 * The library never prints: emit gets each rendered line ("\r...", or
 * "\r\033[K" to clear it) and the caller writes it. Every function accepts
 * NULL, which is the display switched off. */
typedef void (*oxp_progress_emit)(void *user, const char *text);
oxp_progress *oxp_progress_new(oxp_progress_emit emit, void *user);
void oxp_progress_stage(oxp_progress *p, const char *stage);
void oxp_progress_total(oxp_progress *p, uint64_t total);
void oxp_progress_add(oxp_progress *p, uint64_t bytes);
/* Prints msg (a whole line with its newline) without tearing the display. */
void oxp_progress_note(oxp_progress *p, const char *msg);
void oxp_progress_free(oxp_progress *p);
/* The display line, for tests: "onnxexp: write 1.0 MiB / 2.0 MiB (50%) 1.5s" */
void oxp_progress_format(const char *stage, uint64_t done, uint64_t total,
                         double seconds, char *buf, size_t n);

/* ---- external data (external_data.c) ------------------------------------ */
typedef struct {
  uint64_t inline_below; /* tensors of fewer bytes stay inline (1 KiB) */
  uint64_t align_from;   /* tensors of at least this many bytes (1 MiB) */
  uint64_t align;        /* ... start at a multiple of this (64 KiB) */
  uint64_t small_align;  /* other external tensors: a multiple of this (64) */
  uint64_t proto_limit;  /* inline models above this go external
                            (OXP_PROTO_LIMIT; lower only in tests) */
} oxp_ext_layout;
void oxp_ext_layout_default(oxp_ext_layout *l);

typedef struct oxp_ext oxp_ext;
/* File mode: tensors are written into fd (a fresh file) and named by
 * location, the data file's name relative to the model's directory. what
 * names it in messages. l and prog may be NULL. */
oxp_ext *oxp_ext_new_file(oxp_arena *a, int fd, const char *location,
                          const char *what, const oxp_ext_layout *l,
                          oxp_fmap *fm, oxp_progress *prog);
/* Reference mode: file-backed tensors point into their own file, located
 * relative to model_dir (canonical absolute path). */
oxp_ext *oxp_ext_new_reference(oxp_arena *a, const char *model_dir,
                               const oxp_ext_layout *l, oxp_fmap *fm);
/* Where t goes: *external false means inline. In file mode the bytes are
 * written before this returns. x NULL: always inline. */
oxp_status oxp_ext_place(oxp_ext *x, const oxp_tensor *t, bool *external,
                         const char **location, uint64_t *offset,
                         oxp_diag *d);
/* Sets the data file's final length (file mode). */
oxp_status oxp_ext_finish(oxp_ext *x, oxp_diag *d);
uint64_t oxp_ext_copied(const oxp_ext *x);     /* tensor bytes written */
int oxp_ext_count(const oxp_ext *x);           /* tensors stored outside */
/* Reference mode: the first location that leaves the model's directory
 * ("../..."), or NULL. */
const char *oxp_ext_outside(const oxp_ext *x);
/* to relative to directory from; both canonical absolute paths. */
char *oxp_relative_path(oxp_arena *a, const char *from, const char *to);

/* ---- tensor writing (ser_tensor.c) ----------------------------------- *
 * The one place a TensorProto's data is decided: inline raw_data borrowed
 * from the oxp_tensor (no copy), or external data as ext places it. */
struct Onnx__TensorProto; /* onnx/onnx.pb-c.h */
struct Onnx__ModelProto;

/* Lazy tensors written inline (tensor_bytes.c) have no bytes to borrow: their
 * raw_data.data is the oxp_tensor itself, listed here, and packing makes
 * the bytes chunk by chunk where it meets one (oxp_lazy_refs_find). */
typedef struct {
  const oxp_tensor **v;
  size_t n, cap;
} oxp_lazy_refs;
/* Sorts the list for oxp_lazy_refs_find; after the last add. */
void oxp_lazy_refs_seal(oxp_lazy_refs *r);
/* The listed tensor that raw_data (p, n) stands for, or NULL. */
const oxp_tensor *oxp_lazy_refs_find(const oxp_lazy_refs *r, const void *p,
                                     size_t n);

typedef struct {
  oxp_arena *arena;       /* every protobuf-c struct is allocated here */
  const oxp_options *opts;
  oxp_ext *ext;           /* NULL: every tensor inline */
  oxp_lazy_refs *lazy;    /* NULL: lazy tensors are made in memory */
  oxp_diag *d;
} oxp_tensor_writer;

/* name may be NULL (tensor attributes). */
oxp_status oxp_ser_tensor(oxp_tensor_writer *w, const oxp_tensor *t,
                          const char *name, struct Onnx__TensorProto **out);

/* ---- serializing in two steps (serialize.c) ------------------------------ *
 * oxp_serialize = build + pack. Building decides every tensor's place (and
 * in file mode writes the data file); packing streams the ModelProto. The
 * writer builds once inline and, if that passes protobuf's limit, again
 * with external data. Only a ModelProto from oxp_ser_build can be packed:
 * it carries the list of its lazy tensors. */
#define OXP_PROTO_LIMIT ((uint64_t)INT32_MAX)
oxp_status oxp_ser_build(oxp_graph *g, const oxp_options *o, oxp_ext *ext,
                         struct Onnx__ModelProto **out, oxp_diag *d);
/* The packed size of m. Measuring records every message's size, which
 * packing then reuses (proto_pack.c): m is measured once. */
oxp_status oxp_ser_measure(struct Onnx__ModelProto *m, uint64_t *size,
                           oxp_diag *d);
/* Fails (nothing written) when the packed size passes OXP_PROTO_LIMIT. */
oxp_status oxp_ser_pack(struct Onnx__ModelProto *m, oxp_sink *sink,
                        oxp_diag *d);
/* Bytes of tensor data in g (initializers and tensor attributes, all
 * blocks): what a progress display counts towards. */
uint64_t oxp_graph_tensor_bytes(const oxp_graph *g);

/* ---- files (write.c) ------------------------------------------------------- */
/* oxp_write_file with a progress display (p may be NULL) and, for tests,
 * a layout (NULL: the default). */
oxp_status oxp_write_file_ex(oxp_graph *g, const oxp_options *o,
                             const char *path, const oxp_ext_layout *layout,
                             oxp_progress *p, oxp_diag *d);
/* The data file's default name for a model path: "OUT.onnx.data". */
const char *oxp_default_data_name(oxp_arena *a, const char *model_path);
/* The data file's name (o's, or the default) and its path beside
 * model_path (spelled with model_path's directory, so a data file named
 * like the model has the model's path); a name that is not a plain file
 * name is a usage error. */
oxp_status oxp_data_file(oxp_arena *a, const char *model_path,
                         const oxp_options *o, const char **name,
                         const char **path, oxp_diag *d);

/* ---- outputs are not inputs (same_file.c) ------------------------------ */
/* Refuses (OXP_ERR_USAGE, naming both paths) to write the output `what`
 * ("model", "external data file") to path when that is the same file as
 * o->ir_path, o->weights_path or model_path (NULL: none), or is spelled
 * as model_path. */
oxp_status oxp_check_output(const char *what, const char *path,
                            const char *model_path, const oxp_options *o,
                            oxp_diag *d);

/* oxp_pretty with names assigned in place (oxp_pretty in export.h takes a
 * const graph; naming writes to it, so it forwards here). */
char *oxp_pretty_graph(oxp_graph *g, const oxp_options *o);

#endif
