/* external_data.c: where each tensor's bytes go when a model stores them
 * outside the protobuf (TensorProto.external_data, data_location EXTERNAL).
 *
 * Two modes:
 *  - file: one data file beside the model. Tensors are laid out in the
 *    order the serializer meets them (so the file is deterministic); big
 *    ones start on a 64 KiB boundary, the allocation granularity onnxruntime
 *    wants before it maps data on every platform (Windows; 4 KiB pages
 *    elsewhere), small ones on 64 bytes so a runtime that uses the mapping
 *    in place never sees a misaligned element. Padding is left as holes.
 *    Bytes that are bytes of a file (the safetensors mmap) are copied by
 *    the kernel (external_data_map.c); a lazy tensor (a folded transpose)
 *    is made and written a chunk at a time.
 *  - reference: nothing is copied; a tensor whose bytes are verifiably the
 *    sidecar's bytes at src_offset points into the sidecar itself, located
 *    relative to the model's directory. Tensors made during export (folded
 *    constants, lazy ones too, attributes) have no file and stay inline.
 * Tiny tensors stay inline in both: an entry costs more than their data. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "serialize.h"

struct oxp_ext {
  oxp_arena *a;
  oxp_external mode;
  oxp_ext_layout lay;
  oxp_fmap *fmap;
  oxp_progress *prog;
  /* file mode */
  int fd;
  const char *location;
  const char *what;      /* the data file's final path, for messages */
  uint64_t end;          /* length of the data file so far */
  uint64_t copied;       /* tensor bytes in it (end less the padding) */
  /* reference mode */
  const char *model_dir; /* canonical, absolute */
  oxp_map rel;           /* tensor src_path -> location ("" if unusable) */
  const char *outside;   /* first location out of the model's directory */
  int nexternal;
};

void oxp_ext_layout_default(oxp_ext_layout *l) {
  l->inline_below = 1024;
  l->align_from = 1 << 20;
  l->align = 64 << 10;
  l->small_align = 64;
  l->proto_limit = OXP_PROTO_LIMIT;
}

static oxp_ext *ext_new(oxp_arena *a, oxp_external mode,
                        const oxp_ext_layout *l, oxp_fmap *fm) {
  oxp_ext *x = oxp_alloc(a, sizeof *x);
  if (!x) return NULL;
  x->a = a;
  x->mode = mode;
  if (l) x->lay = *l;
  else oxp_ext_layout_default(&x->lay);
  /* Alignments are powers of two so rounding up is a mask. */
  if (!x->lay.align || (x->lay.align & (x->lay.align - 1))) x->lay.align = 1;
  if (!x->lay.small_align || (x->lay.small_align & (x->lay.small_align - 1)))
    x->lay.small_align = 1;
  x->fmap = fm;
  x->fd = -1;
  oxp_map_init(&x->rel, a);
  return x;
}

oxp_ext *oxp_ext_new_file(oxp_arena *a, int fd, const char *location,
                          const char *what, const oxp_ext_layout *l,
                          oxp_fmap *fm, oxp_progress *prog) {
  oxp_ext *x = ext_new(a, OXP_EXT_FILE, l, fm);
  if (!x) return NULL;
  x->fd = fd;
  x->location = location;
  x->what = what;
  x->prog = prog;
  return x;
}

oxp_ext *oxp_ext_new_reference(oxp_arena *a, const char *model_dir,
                               const oxp_ext_layout *l, oxp_fmap *fm) {
  oxp_ext *x = ext_new(a, OXP_EXT_REFERENCE, l, fm);
  if (x) x->model_dir = model_dir;
  return x;
}

uint64_t oxp_ext_copied(const oxp_ext *x) { return x ? x->copied : 0; }
int oxp_ext_count(const oxp_ext *x) { return x ? x->nexternal : 0; }
const char *oxp_ext_outside(const oxp_ext *x) { return x ? x->outside : NULL; }

/* ---- reference mode ---------------------------------------------------- */

/* The path of `to` relative to directory `from`, both canonical absolute
 * paths: the common leading components are dropped and each remaining
 * component of `from` becomes "..". */
char *oxp_relative_path(oxp_arena *a, const char *from, const char *to) {
  const char *f = from, *t = to;
  for (;;) {
    while (*f == '/') f++;
    while (*t == '/') t++;
    size_t fl = strcspn(f, "/"), tl = strcspn(t, "/");
    if (fl == 0 || fl != tl || memcmp(f, t, fl) != 0) break;
    f += fl;
    t += tl;
  }
  size_t ups = 0;
  for (const char *p = f; *p;) {
    size_t l = strcspn(p, "/");
    ups += l > 0;
    p += l;
    while (*p == '/') p++;
  }
  char *out = oxp_alloc(a, ups * 3 + strlen(t) + 1);
  if (!out) return NULL;
  char *o = out;
  for (size_t k = 0; k < ups; k++, o += 3) memcpy(o, "../", 3);
  strcpy(o, t);
  return out;
}

/* The location for tensors of src_path, or "" when the file cannot be
 * named relative to the model (it vanished, say). Cached per path. */
static const char *location_of(oxp_ext *x, const char *src_path,
                               oxp_diag *d, oxp_status *st) {
  const char *loc = oxp_map_get(&x->rel, src_path);
  if (loc) return loc;
  char *real = oxp_io_realpath(src_path);
  loc = "";
  if (!real && errno == ENOMEM) {
    *st = oxp_fail_nomem(d);
    return NULL;
  }
  if (real) {
    loc = oxp_relative_path(x->a, x->model_dir, real);
    free(real);
    if (!loc) {
      *st = oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      return NULL;
    }
  }
  if (!oxp_map_put(&x->rel, src_path, (void *)loc)) {
    *st = oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    return NULL;
  }
  return loc;
}

/* Is t exactly the bytes of t->src_path at t->src_offset? With the
 * process's mappings at hand, the kernel says so; without them (no
 * /proc), the binding's word is all there is. */
static bool backed_by_source(oxp_ext *x, const oxp_tensor *t) {
  if (!t->src_path) return false;
  if (!oxp_fmap_available(x->fmap)) return true;
  uint64_t off;
  if (!oxp_fmap_lookup(x->fmap, t->data, t->nbytes, NULL, &off, NULL))
    return false;
  return off == t->src_offset &&
         oxp_fmap_same_file(x->fmap, t->data, t->nbytes, t->src_path);
}

/* ---- placement ------------------------------------------------------------ */

static uint64_t round_up(uint64_t v, uint64_t align) {
  return (v + align - 1) & ~(align - 1);
}

oxp_status oxp_ext_place(oxp_ext *x, const oxp_tensor *t, bool *external,
                         const char **location, uint64_t *offset,
                         oxp_diag *d) {
  *external = false;
  if (!x || t->nbytes < x->lay.inline_below || t->nbytes == 0) return OXP_OK;
  oxp_status st = OXP_OK;
  if (x->mode == OXP_EXT_REFERENCE) {
    if (!backed_by_source(x, t)) return OXP_OK;
    const char *loc = location_of(x, t->src_path, d, &st);
    if (!loc) return st;
    if (!*loc) return OXP_OK;
    if (!x->outside && strncmp(loc, "../", 3) == 0) x->outside = loc;
    *location = loc;
    *offset = t->src_offset;
    *external = true;
    x->nexternal++;
    return OXP_OK;
  }
  uint64_t al = t->nbytes >= x->lay.align_from ? x->lay.align
                                               : x->lay.small_align;
  uint64_t off = round_up(x->end, al);
  if (off > (uint64_t)INT64_MAX - t->nbytes)
    return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "%s would pass 2^63 bytes",
                    x->what);
  off_t pos = (off_t)off;
  st = oxp_fmap_copy_tensor(x->fmap, x->fd, &pos, t, x->prog, x->what, d);
  if (st) return st;
  x->end = off + t->nbytes;
  x->copied += t->nbytes;
  *location = x->location;
  *offset = off;
  *external = true;
  x->nexternal++;
  return OXP_OK;
}

oxp_status oxp_ext_finish(oxp_ext *x, oxp_diag *d) {
  if (!x || x->mode != OXP_EXT_FILE) return OXP_OK;
  /* The length is the end of the last tensor whatever the writes did. */
  if (oxp_io_ftruncate(x->fd, (off_t)x->end) != 0)
    return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "cannot write %s: %s",
                    x->what, strerror(errno));
  return OXP_OK;
}
