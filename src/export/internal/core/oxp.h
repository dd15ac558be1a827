/* oxp.h: the private core of onnxexp.
 *
 * One header declares the structures every stage shares, in the manner of
 * chibicc.h: the arena, diagnostics, the graph IR (used both for the input
 * TorchScript graph and for the lowered ONNX graph, as the legacy exporter
 * does with torch::jit::Graph), tensors, and the stage entry points.
 * Nothing here is installed; public headers never include it. */
#ifndef OXP_H
#define OXP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The project version, from CMake's project(VERSION). */
#ifndef OXP_VERSION
#define OXP_VERSION "0.0.0"
#endif

/* ---- status and diagnostics (diag.c) ------------------------------------ */

typedef enum {
  OXP_OK = 0,
  OXP_ERR_USAGE,       /* bad option or argument, an output that is an input */
  OXP_ERR_IO,          /* unreadable input, unwritable output */
  OXP_ERR_PARSE,       /* malformed IR text */
  OXP_ERR_WEIGHTS,     /* missing/truncated/inconsistent safetensors */
  OXP_ERR_UNSUPPORTED, /* op or construct without a symbolic */
  OXP_ERR_GRAPH,       /* graph is well-formed text but not exportable */
  OXP_ERR_NOMEM,
  OXP_ERR_INTERNAL
} oxp_status;

/* Where in the IR text something came from. file is borrowed. */
typedef struct {
  const char *file;
  int line, col; /* 1-based; 0 when unknown */
} oxp_loc;

typedef struct {
  oxp_status status;
  char message[768];
  char file[256];
  int line, col;
  char op[96];
} oxp_diag;

/* Records the first failure in d (later ones are ignored so the root cause
 * wins) and returns st. d may be NULL. loc and op may be NULL. */
oxp_status oxp_fail(oxp_diag *d, oxp_status st, const oxp_loc *loc,
                    const char *op, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Out of memory, recorded over whatever d holds: once an allocation has
 * failed, a failure reported after it ("no such value") may be its
 * consequence and would mislead. */
oxp_status oxp_fail_nomem(oxp_diag *d);
void oxp_diag_clear(oxp_diag *d);
/* "file:line:col: message" (or without location), for printing. */
void oxp_diag_format(const oxp_diag *d, char *buf, size_t n);

/* Warnings do not stop an export; the caller decides where they go. */
typedef void (*oxp_warn_fn)(void *user, const char *msg);

/* ---- limits -------------------------------------------------------------- */

/* The parser refuses input nested deeper than these with a located error
 * naming the limit, so the passes, which recurse once per level, never
 * see deeper input; at these depths the deepest recursion fits in a 1 MB
 * stack, also in an ASan build. docs/cli.md lists them. */
enum {
  OXP_MAX_BLOCK_DEPTH = 512,  /* prim::If / prim::Loop blocks in blocks */
  OXP_MAX_TYPE_DEPTH = 64,   /* tuple, list and optional types in types */
  OXP_MAX_TYPE_RANK = 64,    /* dims of a tensor type in the IR text */
  /* The most dims shape inference and folding track (oxp_shape, lazy
   * tensors); a value of higher rank keeps its declared type. */
  OXP_MAX_SHAPE_RANK = 16,
  /* Readers of files, not of IR: */
  OXP_MAX_JSON_DEPTH = 64,   /* arrays and objects in a safetensors header */
  OXP_MAX_PROTO_DEPTH = 512  /* messages in messages, for onnxexp_check_model
                                (64 subgraphs take 193) */
};
/* For the per-node work of a pass that recurses over blocks: its locals
 * then stay out of the recursion's frames. */
#define OXP_OUT_OF_LINE __attribute__((noinline))

/* ---- heap (mem.c) ------------------------------------------------------ */

/* malloc, calloc, realloc and strdup for everything the library allocates
 * outside an arena; free with free(3). Each is a failure point for the
 * tests (fault.h). */
void *oxp_mem_alloc(size_t n);
void *oxp_mem_calloc(size_t k, size_t n);
void *oxp_mem_realloc(void *p, size_t n);
char *oxp_mem_strdup(const char *s);

/* ---- arena (arena.c) ------------------------------------------------- */

typedef struct oxp_arena oxp_arena;
oxp_arena *oxp_arena_new(void);
void oxp_arena_free(oxp_arena *a);
/* Zeroed, 16-byte aligned. Returns NULL only when memory is exhausted;
 * any allocation may, each is a failure point for the tests (fault.h). */
void *oxp_alloc(oxp_arena *a, size_t n);
void *oxp_realloc(oxp_arena *a, void *old, size_t oldn, size_t newn);
char *oxp_strdup(oxp_arena *a, const char *s);
char *oxp_strndup(oxp_arena *a, const char *s, size_t n);
char *oxp_sprintf(oxp_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* prefix followed by k in decimal, as oxp_sprintf(a, "%s%d", prefix, k). */
char *oxp_strnum(oxp_arena *a, const char *prefix, int k);
size_t oxp_arena_bytes(const oxp_arena *a);
/* Has an allocation from a ever failed? Callers that cannot report a
 * failure (void setters, optional extras) leave it here, and the pipeline
 * turns it into OXP_ERR_NOMEM after each step (pipeline.c). */
bool oxp_arena_failed(const oxp_arena *a);

/* ---- string map (map.c; open addressing, arena-owned) ---------------- */

typedef struct {
  oxp_arena *arena;
  const char **keys;
  void **vals;
  uint32_t *hashes; /* of each key: most probes end without a strcmp */
  size_t cap, len;
} oxp_map;
void oxp_map_init(oxp_map *m, oxp_arena *a);
void *oxp_map_get(const oxp_map *m, const char *key);
/* Returns false on allocation failure. Replaces an existing value. */
bool oxp_map_put(oxp_map *m, const char *key, void *val);

/* ---- element types (dtype.c; promotion: dtype_promote.c) ------------- */

/* Numbered as onnx.TensorProto.DataType so they serialize as they are. */
enum {
  OXP_DT_UNDEFINED = 0,
  OXP_DT_FLOAT = 1,
  OXP_DT_UINT8 = 2,
  OXP_DT_INT8 = 3,
  OXP_DT_UINT16 = 4,
  OXP_DT_INT16 = 5,
  OXP_DT_INT32 = 6,
  OXP_DT_INT64 = 7,
  OXP_DT_STRING = 8,
  OXP_DT_BOOL = 9,
  OXP_DT_FLOAT16 = 10,
  OXP_DT_DOUBLE = 11,
  OXP_DT_UINT32 = 12,
  OXP_DT_UINT64 = 13,
  OXP_DT_COMPLEX64 = 14,
  OXP_DT_COMPLEX128 = 15,
  OXP_DT_BFLOAT16 = 16,
  OXP_DT_FLOAT8E4M3FN = 17,
  OXP_DT_FLOAT8E4M3FNUZ = 18,
  OXP_DT_FLOAT8E5M2 = 19,
  OXP_DT_FLOAT8E5M2FNUZ = 20,
  OXP_DT_COUNT
};
size_t oxp_dtype_size(int dt);               /* 0 for unknown/string */
const char *oxp_dtype_name(int dt);          /* "float32", ... */
/* TorchScript type prefix ("Float", "Long", ...) to dtype; 0 if unknown. */
int oxp_dtype_from_torch_name(const char *s, size_t n);
const char *oxp_dtype_torch_name(int dt);    /* "Float", "Long", ... */
/* torch.ScalarType numbering (as in `dtype=6` arguments) and back. */
int oxp_dtype_from_scalar_type(int64_t st);  /* 0 if unknown */
int64_t oxp_dtype_to_scalar_type(int dt);    /* -1 if none */
bool oxp_dtype_is_float(int dt);
bool oxp_dtype_is_int(int dt);               /* signed or unsigned, not bool */

/* torch's type promotion (dtype_promote.c). A 0 operand (not known yet,
 * or no operand) leaves the other one. OXP_DT_REFUSED when torch refuses
 * the pair or the result has no ONNX type; oxp_promote_why then says why,
 * in buf. */
enum { OXP_DT_REFUSED = -1 };
/* torch.promote_types(a, b). */
int oxp_promote_types(int a, int b);
/* c10's combine_categories: the result of a higher-priority operand's
 * dtype with a lower-priority one's (a 0-d tensor, a Python scalar); a
 * REFUSED operand gives REFUSED. */
int oxp_combine_categories(int higher, int lower);
const char *oxp_promote_why(int a, int b, char *buf, size_t n);
/* One operand of torch.result_type. */
typedef struct {
  int dtype;     /* 0: unknown */
  bool zero_dim; /* 0-d tensor */
  bool scalar;   /* Python number (int/float/bool value) */
  bool unranked; /* a tensor of unknown rank: 0-d or not, the result must
                    be the same both ways */
} oxp_operand;
/* OXP_DT_AMBIGUOUS: the result depends on whether an unranked operand is
 * 0-d (pair: the two results). */
enum { OXP_DT_AMBIGUOUS = -2 };
/* torch.result_type over ops: the dtype; 0 when an operand's dtype is
 * unknown; OXP_DT_REFUSED (pair: the refused dtypes, for oxp_promote_why)
 * or OXP_DT_AMBIGUOUS. pair may be NULL. */
int oxp_result_type_why(const oxp_operand *ops, int n, int pair[2]);

/* ---- types (types.c) ------------------------------------------------------ */

typedef enum {
  OXP_T_TENSOR,
  OXP_T_INT,
  OXP_T_FLOAT,
  OXP_T_BOOL,
  OXP_T_NUMBER, /* Scalar */
  OXP_T_STR,
  OXP_T_NONE,
  OXP_T_DEVICE,
  OXP_T_LIST,
  OXP_T_TUPLE,
  OXP_T_OPTIONAL,
  OXP_T_SEQUENCE, /* ONNX sequence of tensors (lowered lists) */
  OXP_T_OTHER     /* class types, Generator, Layout, ... : carried by name */
} oxp_kind;

typedef struct oxp_type oxp_type;
struct oxp_type {
  oxp_kind kind;
  /* OXP_T_TENSOR */
  int dtype;              /* OXP_DT_*, 0 when unknown */
  int rank;               /* -1 when unknown */
  int64_t *dims;          /* rank entries, -1 for an unknown dim */
  const char **dim_params;/* NULL, or rank entries (NULL where static) */
  int64_t *strides;       /* NULL, or rank entries as printed (traced
                             graphs): tells a reshape that aliases its
                             input from one that copies (jit_alias.c) */
  bool requires_grad;
  /* OXP_T_LIST, OXP_T_OPTIONAL, OXP_T_SEQUENCE */
  oxp_type *elem;
  /* OXP_T_TUPLE */
  oxp_type **elems;
  int nelems;
  /* OXP_T_OTHER: the printed name */
  const char *name;
};

oxp_type *oxp_type_new(oxp_arena *a, oxp_kind k);
/* A tensor type; dims may be NULL when rank is -1. dims is copied. */
oxp_type *oxp_type_tensor(oxp_arena *a, int dtype, int rank,
                          const int64_t *dims);
oxp_type *oxp_type_copy(oxp_arena *a, const oxp_type *t);
bool oxp_type_is_static(const oxp_type *t); /* tensor, all dims known */
int64_t oxp_type_numel(const oxp_type *t);  /* -1 unless static and it fits */
/* "[2, 3]" into buf (always terminated when n > 0). */
void oxp_dims_print(const int64_t *dims, int rank, char *buf, size_t n);
/* Appends a printed form ("Float(2, 3)", "int[]", ...) to buf. */
void oxp_type_print(const oxp_type *t, char *buf, size_t n);

/* ---- tensors (types.c: the record; tensor_bytes.c: its bytes) ------------ */

/* A dense little-endian tensor. data is borrowed: from the weights mmap,
 * from the arena, or from a caller of the C API; it is never freed here. */
typedef struct oxp_lazy oxp_lazy;
typedef struct {
  int dtype;
  int rank;
  int64_t *dims;
  const void *data;
  size_t nbytes;
  /* Where data sits in a file, for external-data references; NULL when
   * the bytes exist only in memory. */
  const char *src_path;
  uint64_t src_offset;
  /* A folded permutation of another tensor, made only when read
   * (tensor_bytes.c): data stays NULL until then. Test bytes with
   * oxp_tensor_has_bytes, not data. */
  const oxp_lazy *lazy;
  /* Inline data the printer wrote at its full precision (six significant
   * digits for `{x}`, four decimals in a printout): torch's value may
   * differ, so it is exported only from `constant:NAME` (bind.c). */
  bool rounded;
} oxp_tensor;

oxp_tensor *oxp_tensor_new(oxp_arena *a, int dtype, int rank,
                           const int64_t *dims, const void *data,
                           size_t nbytes);
/* Allocates zeroed data in the arena for the given shape. */
oxp_tensor *oxp_tensor_alloc(oxp_arena *a, int dtype, int rank,
                             const int64_t *dims);
int64_t oxp_tensor_numel(const oxp_tensor *t); /* INT64_MAX past int64 */
/* Gives back the resident pages of a tensor that lives in a read-only
 * file mapping (src_path set): they come back from the file if read
 * again. A no-op for memory-only tensors. */
void oxp_tensor_release(const oxp_tensor *t);
/* Element i as a double / int64 (any numeric dtype). */
double oxp_tensor_get_f(const oxp_tensor *t, int64_t i);
int64_t oxp_tensor_get_i(const oxp_tensor *t, int64_t i);

/* Lazy tensors (tensor_bytes.c). A reader of a few elements never makes the
 * whole tensor: the getters above and oxp_tensor_read read in place. */
static inline bool oxp_tensor_has_bytes(const oxp_tensor *t) {
  return t->data || t->lazy;
}
/* Lazy and not made yet (a made one is a plain tensor from then on). */
bool oxp_tensor_is_lazy(const oxp_tensor *t);
/* All of t's bytes, made once in the arena for a lazy tensor; NULL when
 * memory runs out. */
const void *oxp_tensor_data(const oxp_tensor *t);
/* Bytes [off, off + n) of t (in range) into buf. */
void oxp_tensor_read(const oxp_tensor *t, size_t off, void *buf, size_t n);
/* Lazy a and b permute the same bytes the same way (so are equal). */
bool oxp_lazy_same(const oxp_tensor *a, const oxp_tensor *b);
/* x's bytes permuted by perm (the result has dims x->dims[perm[k]]), or
 * NULL when x cannot be read in place (lazy itself, odd element size),
 * perm is no permutation, or memory runs out. */
oxp_tensor *oxp_lazy_transpose(oxp_arena *a, const oxp_tensor *x,
                               const int64_t *perm);
/* t's bytes in order, in chunks of at most a few MiB through put; a lazy
 * tensor's are made chunk by chunk into one buffer, its source's pages
 * given back after each (oxp_tensor_release). */
typedef oxp_status (*oxp_bytes_fn)(void *user, const void *p, size_t n);
oxp_status oxp_tensor_produce(const oxp_tensor *t, oxp_bytes_fn put,
                              void *user, oxp_diag *d);

/* (int64_t)v, defined for every double: a plain cast of NaN, an infinity
 * or a value past the int64 range is undefined behaviour, and IR text can
 * hold all of them (`[value=inf]`). NaN gives 0; the rest saturate. */
static inline int64_t oxp_f2i(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

/* len(range(lo, hi, step)) for step != 0, saturated at INT64_MAX: the
 * textbook (hi - lo + step - 1) / step overflows for the extreme bounds
 * and steps that slices and range() in IR text may hold. */
static inline int64_t oxp_range_len(int64_t lo, int64_t hi, int64_t step) {
  bool up = step > 0;
  if (up ? hi <= lo : lo <= hi) return 0;
  uint64_t span = up ? (uint64_t)hi - (uint64_t)lo : (uint64_t)lo - (uint64_t)hi;
  uint64_t by = up ? (uint64_t)step : 0 - (uint64_t)step;
  uint64_t n = (span - 1) / by + 1;
  return n > INT64_MAX ? INT64_MAX : (int64_t)n;
}

/* ---- graph IR (ir.c) ------------------------------------------------------- */

typedef struct oxp_value oxp_value;
typedef struct oxp_node oxp_node;
typedef struct oxp_block oxp_block;
typedef struct oxp_graph oxp_graph;

typedef struct {
  oxp_node *node;
  int index; /* which input of node */
} oxp_use;

struct oxp_value {
  int id;            /* dense, unique in the graph: index into side tables */
  const char *name;  /* IR debug name without '%', or the ONNX name */
  oxp_type *type;
  oxp_node *producer;/* NULL for block inputs */
  oxp_block *owner;  /* set for block inputs */
  int index;         /* output index in producer, or input index in block */
  oxp_use *uses;
  int nuses, capuses;
  oxp_tensor *init;  /* graph inputs bound to weights: the initializer */
  /* Block-output slots holding this value, counted high (slots of dead
   * blocks stay counted): 0 means it is no block output, without a walk. */
  int nblockouts;
};

typedef enum {
  OXP_A_INT,
  OXP_A_FLOAT,
  OXP_A_STR,
  OXP_A_TENSOR,
  OXP_A_INTS,
  OXP_A_FLOATS,
  OXP_A_STRS,
  OXP_A_NONE /* TorchScript `[value=None]`-like markers */
} oxp_attr_kind;

typedef struct oxp_attr oxp_attr;
struct oxp_attr {
  const char *name;
  oxp_attr_kind kind;
  int64_t i;
  double f;
  const char *s;
  oxp_tensor *t;
  int64_t *ints;
  double *floats;
  const char **strs;
  int n; /* length of ints/floats/strs */
  oxp_attr *next;
};

struct oxp_node {
  oxp_graph *graph;
  const char *kind;   /* "aten::add", "prim::Constant", "onnx::Add", ... */
  const char *overload;/* "Tensor" of aten::add.Tensor, or NULL */
  oxp_value **inputs;
  int ninputs, capinputs;
  oxp_value **outputs;
  int noutputs, capoutputs;
  oxp_attr *attrs;    /* in insertion order */
  oxp_block **blocks;
  int nblocks;
  oxp_block *owner;
  oxp_node *prev, *next;
  oxp_loc loc;        /* where the node's line starts in the IR text */
  const char *scope;  /* ", scope: a/b" when printed, else NULL */
  const char *source; /* trailing "# file.py:12:0" comment, else NULL */
  const char *name;   /* ONNX node name once lowered, else NULL */
  unsigned flags;     /* OXP_NODE_* marks of passes */
  /* strlen(kind) when len_of == kind (oxp_node_set_kind): oxp_kind_is
   * then compares lengths and bytes inline. A kind assigned directly
   * leaves len_of stale and is compared with strcmp. */
  uint32_t kind_len;
  const char *len_of;
};

/* The node's outputs were typed by shape inference during lowering. */
#define OXP_NODE_INFERRED 1u

struct oxp_block {
  oxp_graph *graph;
  oxp_node *owner;    /* NULL for the top block */
  oxp_value **inputs;
  int ninputs, capinputs;
  oxp_value **outputs; /* the `-> (...)` / `return (...)` values */
  int noutputs, capoutputs;
  oxp_node *first, *last;
  /* Constant tensors of this (ONNX) block: values with init set, no
   * producer, not block inputs. Weight inputs stay in inputs. */
  oxp_value **inits;
  int ninits, capinits;
};

struct oxp_graph {
  oxp_arena *arena;
  oxp_block *top;
  const char *file;   /* IR file name for diagnostics */
  int nvalues;        /* next value id */
  int nnodes;
  /* Where each top-block input is declared, by input index (graphs the
   * parser made; NULL for built ones): errors about an input point there. */
  oxp_loc *input_locs;
  /* While lowering builds this graph: types a node's outputs on demand,
   * so symbolics see ranks and dims of values made moments before. */
  void (*infer)(void *ctx, oxp_node *n);
  void *infer_ctx;
  /* Named by the pipeline's last step (names.c), after which nothing
   * renames or adds: the serializer need not walk it again to see that. */
  bool named;
};

oxp_graph *oxp_graph_new(oxp_arena *a, const char *file);
oxp_block *oxp_block_new(oxp_graph *g, oxp_node *owner);
oxp_value *oxp_value_new(oxp_graph *g, const char *name, oxp_type *t);
oxp_value *oxp_block_add_input(oxp_block *b, const char *name, oxp_type *t);
bool oxp_block_add_output(oxp_block *b, oxp_value *v);
/* Block outputs change only through these two and replace_uses. */
void oxp_block_set_output(oxp_block *b, int i, oxp_value *v);
bool oxp_block_add_init(oxp_block *b, oxp_value *v);
/* A detached node with noutputs fresh values (names NULL, types NULL). */
oxp_node *oxp_node_new(oxp_graph *g, const char *kind, int noutputs);
bool oxp_node_add_input(oxp_node *n, oxp_value *v);  /* v may be NULL: absent
                                                        optional input */
oxp_value *oxp_node_add_output(oxp_node *n);
oxp_block *oxp_node_add_block(oxp_node *n);
void oxp_node_set_input(oxp_node *n, int i, oxp_value *v);
void oxp_block_append(oxp_block *b, oxp_node *n);
void oxp_node_insert_before(oxp_node *pos, oxp_node *n);
void oxp_node_insert_after(oxp_node *pos, oxp_node *n);
/* Unlinks n from its block and drops its uses of its inputs. */
void oxp_node_destroy(oxp_node *n);
/* Every use of from (node inputs and block outputs) becomes a use of to. */
void oxp_value_replace_uses(oxp_value *from, oxp_value *to);
bool oxp_value_is_block_output(const oxp_value *v); /* any block */

/* Attributes: set replaces an existing one of the same name. */
oxp_attr *oxp_attr_get(const oxp_node *n, const char *name);
oxp_attr *oxp_attr_set(oxp_node *n, const char *name, oxp_attr_kind k);
void oxp_attr_set_i(oxp_node *n, const char *name, int64_t v);
void oxp_attr_set_f(oxp_node *n, const char *name, double v);
void oxp_attr_set_s(oxp_node *n, const char *name, const char *v);
void oxp_attr_set_t(oxp_node *n, const char *name, oxp_tensor *t);
void oxp_attr_set_ints(oxp_node *n, const char *name, const int64_t *v,
                       int cnt);
void oxp_attr_set_floats(oxp_node *n, const char *name, const double *v,
                         int cnt);
void oxp_attr_set_strs(oxp_node *n, const char *name, const char **v,
                       int cnt);

/* Iteration over a block's nodes that tolerates destroying the current one. */
#define OXP_FOR_NODES(b, n, nx) \
  for (oxp_node *n = (b)->first, *nx = n ? n->next : NULL; n; \
       n = nx, nx = n ? n->next : NULL)

/* Sets n's kind and the length oxp_kind_is compares first. */
static inline void oxp_node_set_kind(oxp_node *n, const char *kind) {
  n->kind = kind;
  n->len_of = kind;
  n->kind_len = kind ? (uint32_t)strlen(kind) : 0;
}

/* Is kind "ns::name"? (e.g. oxp_kind_is(n, "aten::add")) Passes ask it
 * of every node for many names, nearly always string literals: strlen(k)
 * is then a constant and the memcmp a few inline loads, where strcmp was
 * a call per name (a tenth of an export's instructions). */
static inline bool oxp_kind_is(const oxp_node *n, const char *k) {
  size_t len = strlen(k);
  if (n->len_of == n->kind && n->kind)
    return n->kind_len == len && memcmp(n->kind, k, len) == 0;
  return strcmp(n->kind, k) == 0;
}

/* ---- stages (parse/parser.c, weights/safetensors.c, bind.c, bind_packed.c) */

/* Parses TorchScript IR text (as printed by str(graph)) into a new graph in
 * arena a. text need not be NUL-terminated; len bytes are read, never more.
 * file names the text in diagnostics. */
oxp_status oxp_parse_ir(oxp_arena *a, const char *file, const char *text,
                        size_t len, oxp_graph **out, oxp_diag *d);

/* A memory-mapped safetensors file. */
typedef struct {
  const char *name;
  oxp_tensor t;   /* data points into the mapping */
} oxp_st_entry;

typedef struct {
  const char *path;
  void *map;
  size_t map_len;
  uint64_t header_len;
  oxp_st_entry *entries;
  int nentries;
  oxp_map index;  /* name -> oxp_st_entry* */
} oxp_safetensors;

oxp_status oxp_st_open(oxp_arena *a, const char *path, oxp_safetensors **out,
                       oxp_diag *d);
/* The sidecar beside an IR file: MODEL.ir -> MODEL.safetensors (NULL only
 * when memory runs out). */
char *oxp_st_default_path(oxp_arena *a, const char *ir_path);
/* Parses from memory (for the C API and tests); data is borrowed. */
oxp_status oxp_st_from_memory(oxp_arena *a, const char *name,
                              const void *data, size_t len,
                              oxp_safetensors **out, oxp_diag *d);
const oxp_st_entry *oxp_st_find(const oxp_safetensors *st, const char *name);
void oxp_st_close(oxp_safetensors *st);

/* Binds weights to graph inputs by name (value->init), checks dtype and
 * shape against declared types, and attaches `constant:NAME` data to
 * prim::Constant nodes. Unbound tensors are reported through warn. */
oxp_status oxp_bind_weights(oxp_graph *g, const oxp_safetensors *st,
                            oxp_warn_fn warn, void *warn_user, oxp_diag *d);
/* The packed params of quantized layers (bind_packed.c, packed.h): each
 * quantized op's packed input becomes constants from st (marked in used,
 * one flag per entry; NULL with st), and the class-typed graph inputs
 * leave the graph. Called by oxp_bind_weights. */
oxp_status oxp_bind_packed(oxp_graph *g, const oxp_safetensors *st, bool *used,
                           oxp_diag *d);

#endif
