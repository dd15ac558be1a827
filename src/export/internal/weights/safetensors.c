/* safetensors.c: the weights sidecar. The file is mapped read-only and
 * every tensor points into the mapping, so weights are never copied; the
 * header is validated completely up front, so no later stage can be handed
 * a tensor whose bytes are not all inside the mapping. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "json.h"
#include "oxp.h"
#include "st_scan.h"

/* The reference implementation refuses headers above 100 MB; a length
 * beyond that is a corrupt or foreign file, not a big model. */
#define MAX_HEADER_LEN 100000000ull

/* The header's dtype names, as written by the safetensors library. */
static const struct {
  const char *name;
  int dt;
} ST_DTYPES[] = {
    {"F64", OXP_DT_DOUBLE},   {"F32", OXP_DT_FLOAT},
    {"F16", OXP_DT_FLOAT16},  {"BF16", OXP_DT_BFLOAT16},
    {"I64", OXP_DT_INT64},    {"I32", OXP_DT_INT32},
    {"I16", OXP_DT_INT16},    {"I8", OXP_DT_INT8},
    {"U8", OXP_DT_UINT8},     {"BOOL", OXP_DT_BOOL},
    {"U16", OXP_DT_UINT16},   {"U32", OXP_DT_UINT32},
    {"U64", OXP_DT_UINT64},   {"F8_E4M3", OXP_DT_FLOAT8E4M3FN},
    {"F8_E5M2", OXP_DT_FLOAT8E5M2},
};

static int st_dtype_n(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof ST_DTYPES / sizeof ST_DTYPES[0]; i++)
    if (strlen(ST_DTYPES[i].name) == n && memcmp(ST_DTYPES[i].name, s, n) == 0)
      return ST_DTYPES[i].dt;
  return 0;
}

static int st_dtype(const char *s) { return st_dtype_n(s, strlen(s)); }

/* The public struct plus what close needs to know: whether map is ours to
 * unmap (oxp_st_open) or borrowed from the caller (oxp_st_from_memory). */
typedef struct {
  oxp_safetensors pub;
  bool mapped;
} st_impl;

/* Parsing state shared by the header checks, for uniform messages. */
typedef struct {
  oxp_arena *a;
  oxp_safetensors *st;
  const char *file_path; /* src_path of tensors; NULL for memory */
  const unsigned char *data; /* first byte after the header */
  uint64_t data_len;
  oxp_diag *d;
} loader;

static oxp_status bad(loader *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static oxp_status bad(loader *l, const char *fmt, ...) {
  char msg[sizeof l->d->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  oxp_loc loc = {l->st->path, 0, 0};
  return oxp_fail(l->d, OXP_ERR_WEIGHTS, &loc, NULL, "%s", msg);
}

static void shape_str(const oxp_tensor *t, char *buf, size_t n) {
  oxp_dims_print(t->dims, t->rank, buf, n);
}

/* Reads a non-negative integer array; n < 0 accepts any length. */
static bool uint_array(const oxp_json *j, int n) {
  if (!j || j->kind != OXP_J_ARR || (n >= 0 && j->n != n)) return false;
  for (int i = 0; i < j->n; i++)
    if (j->items[i]->kind != OXP_J_INT || j->items[i]->i < 0) return false;
  return true;
}

/* Finds key in a tensor's object; a repeated key is ambiguous, so it is an
 * error rather than first-wins or last-wins. */
static oxp_status field(loader *l, const char *name, const oxp_json *o,
                        const char *key, const oxp_json **out) {
  *out = NULL;
  for (int i = 0; i < o->n; i++) {
    if (strcmp(o->keys[i], key) != 0) continue;
    if (*out) return bad(l, "tensor '%s' has two \"%s\" fields", name, key);
    *out = o->items[i];
  }
  if (!*out) return bad(l, "tensor '%s' has no \"%s\" field", name, key);
  return OXP_OK;
}

static oxp_status check_metadata(loader *l, const oxp_json *m) {
  if (m->kind != OXP_J_OBJ)
    return bad(l, "\"__metadata__\" must be an object of strings");
  for (int i = 0; i < m->n; i++)
    if (m->items[i]->kind != OXP_J_STR)
      return bad(l, "\"__metadata__\" value for '%s' is not a string",
                 m->keys[i]);
  return OXP_OK;
}

/* Fills e from one header entry, checking it against the data section. */
static oxp_status load_entry(loader *l, const char *name, const oxp_json *o,
                             oxp_st_entry *e) {
  if (o->kind != OXP_J_OBJ)
    return bad(l, "tensor '%s' is not described by an object", name);
  const oxp_json *jdt, *jshape, *joff;
  oxp_status s;
  if ((s = field(l, name, o, "dtype", &jdt)) ||
      (s = field(l, name, o, "shape", &jshape)) ||
      (s = field(l, name, o, "data_offsets", &joff)))
    return s;
  if (jdt->kind != OXP_J_STR)
    return bad(l, "tensor '%s' has a dtype that is not a string", name);
  int dt = st_dtype(jdt->s);
  if (!dt) return bad(l, "tensor '%s' has unknown dtype '%s'", name, jdt->s);
  if (!uint_array(jshape, -1))
    return bad(l, "tensor '%s' has a shape that is not a list of "
                  "non-negative integers", name);
  if (!uint_array(joff, 2))
    return bad(l, "tensor '%s' has data_offsets that are not two "
                  "non-negative integers", name);
  uint64_t begin = (uint64_t)joff->items[0]->i;
  uint64_t end = (uint64_t)joff->items[1]->i;
  if (begin > end)
    return bad(l, "tensor '%s' has data_offsets [%llu, %llu] that end "
                  "before they begin", name, (unsigned long long)begin,
               (unsigned long long)end);
  if (end > l->data_len)
    return bad(l, "tensor '%s' needs bytes up to offset %llu but the data "
                  "section has only %llu bytes: file truncated", name,
               (unsigned long long)end, (unsigned long long)l->data_len);

  e->name = name;
  e->t.dtype = dt;
  e->t.rank = jshape->n;
  uint64_t need = oxp_dtype_size(dt);
  bool overflow = false;
  if (jshape->n > 0) {
    e->t.dims = oxp_alloc(l->a, sizeof(int64_t) * (size_t)jshape->n);
    if (!e->t.dims)
      return oxp_fail(l->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  }
  for (int i = 0; i < jshape->n; i++) {
    e->t.dims[i] = jshape->items[i]->i;
    overflow |= __builtin_mul_overflow(need, (uint64_t)e->t.dims[i], &need);
  }
  if (overflow)
    return bad(l, "tensor '%s' has a shape whose size in bytes does not fit "
                  "in 64 bits", name);
  if (need != end - begin) {
    char shape[256];
    shape_str(&e->t, shape, sizeof shape);
    return bad(l, "tensor '%s' has data_offsets [%llu, %llu] (%llu bytes) "
                  "but its %s shape %s needs %llu bytes", name,
               (unsigned long long)begin, (unsigned long long)end,
               (unsigned long long)(end - begin), jdt->s, shape,
               (unsigned long long)need);
  }
  e->t.data = l->data + begin;
  e->t.nbytes = (size_t)(end - begin);
  e->t.src_path = l->file_path;
  e->t.src_offset = 8 + l->st->header_len + begin;
  return OXP_OK;
}

static int by_offset(const void *x, const void *y) {
  const oxp_st_entry *a = *(oxp_st_entry *const *)x;
  const oxp_st_entry *b = *(oxp_st_entry *const *)y;
  const unsigned char *pa = a->t.data, *pb = b->t.data;
  if (pa != pb) return pa < pb ? -1 : 1;
  return a->t.nbytes < b->t.nbytes ? -1 : a->t.nbytes > b->t.nbytes;
}

/* Two tensors sharing bytes would alias in ONNX, where initializers are
 * independent; the format forbids it, so say which two. Empty tensors own
 * no bytes and never overlap. */
static oxp_status check_overlap(loader *l) {
  int n = l->st->nentries;
  if (n < 2) return OXP_OK;
  oxp_st_entry **v = oxp_mem_alloc(sizeof *v * (size_t)n);
  if (!v) return oxp_fail(l->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (int i = 0; i < n; i++) v[i] = &l->st->entries[i];
  qsort(v, (size_t)n, sizeof *v, by_offset);
  oxp_status s = OXP_OK;
  const oxp_st_entry *prev = NULL;
  for (int i = 0; i < n && !s; i++) {
    if (!v[i]->t.nbytes) continue;
    const unsigned char *p = v[i]->t.data;
    if (prev && p < (const unsigned char *)prev->t.data + prev->t.nbytes)
      s = bad(l, "tensors '%s' and '%s' overlap in the data section",
              prev->name, v[i]->name);
    prev = v[i];
  }
  free(v);
  return s;
}

/* The entries oxp_st_scan read, checked as load_entry checks a JSON
 * entry. False at the first entry load_entry would refuse (or a repeated
 * name): the JSON reader then reads the header again and says why. */
static bool load_raw(loader *l, const oxp_st_raw *raw, int n) {
  oxp_safetensors *st = l->st;
  if (!(st->entries = oxp_alloc(l->a, sizeof *st->entries * (size_t)(n + 1)))) return false;
  for (int i = 0; i < n; i++) {
    const oxp_st_raw *r = &raw[i];
    int dt = st_dtype_n(r->dtype, r->dtype_len);
    uint64_t need = oxp_dtype_size(dt);
    bool overflow = false;
    for (int k = 0; k < r->rank; k++)
      overflow |= __builtin_mul_overflow(need, (uint64_t)r->dims[k], &need);
    if (!dt || overflow || r->begin > r->end || r->end > l->data_len ||
        need != r->end - r->begin || oxp_map_get(&st->index, r->name))
      return false;
    oxp_st_entry *e = &st->entries[st->nentries];
    e->name = r->name;
    e->t.dtype = dt;
    e->t.rank = r->rank;
    e->t.dims = r->dims;
    e->t.data = l->data + r->begin;
    e->t.nbytes = (size_t)(r->end - r->begin);
    e->t.src_path = l->file_path;
    e->t.src_offset = 8 + st->header_len + r->begin;
    if (!oxp_map_put(&st->index, r->name, e)) return false;
    st->nentries++;
  }
  return true;
}

static oxp_status load_header(loader *l, const oxp_json *root) {
  oxp_safetensors *st = l->st;
  if (root->kind != OXP_J_OBJ)
    return bad(l, "header is not a JSON object");
  st->entries = oxp_alloc(l->a, sizeof *st->entries * (size_t)(root->n + 1));
  if (!st->entries)
    return oxp_fail(l->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  bool seen_meta = false;
  for (int i = 0; i < root->n; i++) {
    const char *name = root->keys[i];
    oxp_status s;
    if (strcmp(name, "__metadata__") == 0) {
      if (seen_meta) return bad(l, "duplicate \"__metadata__\" entry");
      seen_meta = true;
      if ((s = check_metadata(l, root->items[i]))) return s;
      continue;
    }
    if (oxp_map_get(&st->index, name))
      return bad(l, "duplicate tensor name '%s'", name);
    oxp_st_entry *e = &st->entries[st->nentries];
    if ((s = load_entry(l, name, root->items[i], e))) return s;
    /* The header's tree goes with its scratch arena; the name stays. */
    if (!(e->name = name = oxp_strdup(l->a, name)))
      return oxp_fail(l->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    if (!oxp_map_put(&st->index, name, e))
      return oxp_fail(l->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    st->nentries++;
  }
  return check_overlap(l);
}

/* Parses the bytes at buf (len of them), which stay owned by the caller. */
static oxp_status parse(oxp_arena *a, st_impl *impl, const char *file_path,
                        const unsigned char *buf, size_t len, oxp_diag *d) {
  oxp_safetensors *st = &impl->pub;
  oxp_map_init(&st->index, a);
  st->map = (void *)buf;
  st->map_len = len;
  loader l = {a, st, file_path, NULL, 0, d};
  if (len < 8)
    return bad(&l, "file is %zu bytes, shorter than the 8-byte header "
                   "length: not a safetensors file", len);
  uint64_t n = 0;
  for (int i = 7; i >= 0; i--) n = n << 8 | buf[i];
  st->header_len = n;
  if (n > MAX_HEADER_LEN)
    return bad(&l, "header length %llu is absurd (limit %llu): not a "
                   "safetensors file", (unsigned long long)n, MAX_HEADER_LEN);
  if (n > len - 8)
    return bad(&l, "header length %llu runs past the end of the file "
                   "(%zu bytes): file truncated or not safetensors",
               (unsigned long long)n, len);
  l.data = buf + 8 + n;
  l.data_len = len - 8 - n;
  /* The JSON tree is read once, here: it lives in an arena of its own,
   * freed before the export goes on (it was most of a sidecar's memory,
   * about a kilobyte per tensor constant). */
  oxp_arena *scratch = oxp_arena_new();
  if (!scratch)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory reading the weights header");
  oxp_st_raw *raw;
  int nraw;
  oxp_status s;
  if (oxp_st_scan(a, scratch, (const char *)buf + 8, (size_t)n, &raw, &nraw) &&
      load_raw(&l, raw, nraw)) {
    oxp_arena_free(scratch);
    return check_overlap(&l);
  }
  if (oxp_arena_failed(a) || oxp_arena_failed(scratch)) {
    oxp_arena_free(scratch);
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory reading the weights header");
  }
  /* Not the plain form, or an entry to refuse: start again on the JSON
   * tree, which has the messages. */
  st->entries = NULL;
  st->nentries = 0;
  oxp_map_init(&st->index, a);
  oxp_json_err je = {0};
  oxp_json *root = oxp_json_parse(scratch, (const char *)buf + 8, (size_t)n, &je);
  if (!root && oxp_arena_failed(scratch))
    s = oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                 "out of memory reading the weights header");
  else if (!root)
    s = bad(&l, "invalid JSON header at byte %zu (file offset %zu): %s",
            je.pos, je.pos + 8, je.msg);
  else
    s = load_header(&l, root);
  oxp_arena_free(scratch);
  return s;
}

static st_impl *new_impl(oxp_arena *a, const char *name) {
  st_impl *impl = oxp_alloc(a, sizeof *impl);
  if (!impl) return NULL;
  impl->pub.path = oxp_strdup(a, name ? name : "<memory>");
  return impl->pub.path ? impl : NULL;
}

oxp_status oxp_st_from_memory(oxp_arena *a, const char *name,
                              const void *data, size_t len,
                              oxp_safetensors **out, oxp_diag *d) {
  *out = NULL;
  st_impl *impl = new_impl(a, name);
  if (!impl) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  /* No file behind the bytes, so src_path stays NULL: external data must
   * not reference a path that holds something else. */
  oxp_status s = parse(a, impl, NULL, data, len, d);
  if (s == OXP_OK) *out = &impl->pub;
  return s;
}

static oxp_status io_fail(oxp_diag *d, const char *path, const char *what,
                          int err) {
  oxp_loc loc = {path, 0, 0};
  return oxp_fail(d, OXP_ERR_IO, &loc, NULL, "cannot %s weights file: %s",
                  what, strerror(err));
}

char *oxp_st_default_path(oxp_arena *a, const char *ir_path) {
  const char *slash = strrchr(ir_path, '/'), *dot = strrchr(ir_path, '.');
  size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - ir_path)
                                               : strlen(ir_path);
  return oxp_sprintf(a, "%.*s.safetensors", (int)stem, ir_path);
}

oxp_status oxp_st_open(oxp_arena *a, const char *path, oxp_safetensors **out,
                       oxp_diag *d) {
  *out = NULL;
  st_impl *impl = new_impl(a, path);
  if (!impl) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  path = impl->pub.path; /* the arena copy outlives the caller's string */
  int fd = oxp_io_open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return io_fail(d, path, "open", errno);
  struct stat sb;
  if (oxp_io_fstat(fd, &sb) != 0) {
    int e = errno;
    oxp_io_close(fd);
    return io_fail(d, path, "stat", e);
  }
  if (!S_ISREG(sb.st_mode)) {
    oxp_io_close(fd);
    oxp_loc loc = {path, 0, 0};
    return oxp_fail(d, OXP_ERR_IO, &loc, NULL,
                    "weights file is not a regular file");
  }
  if ((uint64_t)sb.st_size > SIZE_MAX) {
    oxp_io_close(fd);
    return io_fail(d, path, "map", EFBIG);
  }
  size_t len = (size_t)sb.st_size;
  void *map = NULL;
  /* mmap of 0 bytes fails with EINVAL; let parse report the short file. */
  if (len > 0) {
    map = oxp_io_mmap(fd, len);
    if (map == MAP_FAILED) {
      int e = errno;
      oxp_io_close(fd);
      return io_fail(d, path, "map", e);
    }
  }
  /* The mapping keeps the file's pages reachable; a failed close of a
   * descriptor that only read loses nothing. */
  oxp_io_close(fd);
  impl->mapped = len > 0;
  oxp_status s = parse(a, impl, path, map, len, d);
  if (s != OXP_OK) {
    oxp_st_close(&impl->pub);
    return s;
  }
  *out = &impl->pub;
  return OXP_OK;
}

const oxp_st_entry *oxp_st_find(const oxp_safetensors *st, const char *name) {
  return st && name ? oxp_map_get(&st->index, name) : NULL;
}

void oxp_st_close(oxp_safetensors *st) {
  if (!st) return;
  st_impl *impl = (st_impl *)st;
  if (impl->mapped) munmap(st->map, st->map_len);
  impl->mapped = false;
  st->map = NULL;
  st->map_len = 0;
}
