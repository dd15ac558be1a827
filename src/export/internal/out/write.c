/* write.c: where serialized bytes go: a file, replaced atomically, or a
 * malloc'd buffer.
 *
 * A file is written to a temporary in the target's own directory (so the
 * final rename(2) stays on one filesystem and is atomic), fsync'd, and only
 * then renamed over the target. Any failure removes the temporary, so a
 * failed export leaves no output and never damages an existing file; a
 * target that is one of the export's inputs is refused before any
 * temporary exists (same_file.c).
 *
 * With external data there are two files, model and data, and rename is
 * atomic for one file only. Both temporaries are complete and synced before
 * either is renamed; the data file is swapped in with
 * renameat2(RENAME_EXCHANGE), which keeps the old data file under the
 * temporary name, so if the model's rename then fails the swap is undone
 * and neither target has changed. Where the filesystem cannot exchange,
 * the old data file is first kept under a hidden hard link and the new
 * one renamed over it; should the model's rename fail, the link is renamed
 * back. (Only where neither exchange nor hard links exist can that last,
 * unlikely failure leave the model without its old data file.)
 *
 * The temporary is anonymous where the kernel can do it (O_TMPFILE): it has
 * no name until it is complete and synced, and only then is linked under a
 * hidden name and renamed, so an export killed with SIGKILL, or a machine
 * that loses power, leaves nothing behind but the previous output. Where
 * O_TMPFILE is missing (old kernels, some filesystems, no /proc) it is a
 * named mkostemp file from the start, removed on every failure we see.
 *
 * Bytes that live in a file (weights in the safetensors mmap) go through
 * oxp_fmap_copy: copied by the kernel, never faulted into this process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp, renameat2, O_DIRECTORY */
#endif
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"
#include "serialize.h"
#include "onnx/onnx.pb-c.h"

/* ---- file sink -------------------------------------------------------- */

typedef struct {
  oxp_sink base;
  int fd;
  const char *path; /* the target, for messages */
  oxp_fmap *fmap;
  oxp_progress *prog;
} fd_sink;

static oxp_status fd_write(oxp_sink *s, const void *p, size_t n) {
  fd_sink *fs = (fd_sink *)s;
  return oxp_fmap_copy(fs->fmap, fs->fd, NULL, p, n, fs->prog, fs->path,
                       s->d);
}

/* The process umask, without the umask(2) set-and-restore dance, which
 * would race with other threads creating files. Linux shows it in
 * /proc/self/status; elsewhere fall back to the dance. */
static mode_t current_umask(void) {
  FILE *f = oxp_io_fopen("/proc/self/status", "re");
  if (f) {
    char line[128];
    unsigned m;
    while (oxp_io_fgets(line, sizeof line, f)) {
      if (sscanf(line, "Umask: %o", &m) == 1) {
        oxp_io_fclose(f);
        return (mode_t)m;
      }
    }
    oxp_io_fclose(f);
  }
  mode_t m = umask(022);
  umask(m);
  return m;
}

/* Durability of the rename itself; a failure here cannot undo anything,
 * so it is not reported. */
static void sync_dir(const char *dir) {
  int fd = oxp_io_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0) return;
  (void)oxp_io_fsync(fd);
  oxp_io_close(fd);
}

static oxp_status io_fail(oxp_diag *d, const char *what, const char *path,
                          int err) {
  return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "cannot %s %s: %s", what, path,
                  strerror(err));
}

/* A temporary beside its target. fd < 0 once closed; tmp is NULL while the
 * file is anonymous (and after it is dropped or renamed). */
typedef struct {
  const char *path; /* the target */
  const char *dir, *base;
  char *tmp;
  int fd;
} tmp_file;

/* linkat of /proc/self/fd/N is how an unprivileged process names an
 * O_TMPFILE file (AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH); without /proc
 * the file could never be named, so it is not made anonymous at all. */
static int open_anonymous(const char *dir) {
#ifdef O_TMPFILE
  if (oxp_io_access("/proc/self/fd", X_OK) != 0) return -1;
  return oxp_io_open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
#else
  (void)dir;
  return -1;
#endif
}

static oxp_status tmp_open(oxp_arena *a, const char *dir, const char *base,
                           const char *path, tmp_file *t, oxp_diag *d) {
  *t = (tmp_file){.path = path, .dir = dir, .base = base, .fd = -1};
  if ((t->fd = open_anonymous(dir)) >= 0) return OXP_OK;
  /* Any O_TMPFILE failure falls back: mkostemp then reports the real
   * reason (missing directory, permissions) in the usual words. */
  t->tmp = oxp_sprintf(a, "%s/.%s.XXXXXX", dir, base);
  if (!t->tmp) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  /* CLOEXEC: another thread's fork+exec must not inherit the file. */
  t->fd = oxp_io_mkostemp(t->tmp, O_CLOEXEC);
  if (t->fd < 0) {
    t->tmp = NULL;
    return io_fail(d, "write", path, errno);
  }
  return OXP_OK;
}

/* Links from (follow: through a final symlink) under a fresh hidden name
 * beside t's target: *name, or NULL with errno set (then OXP_ERR_NOMEM
 * when the name could not be made, else OXP_OK). */
static oxp_status link_hidden(oxp_arena *a, const tmp_file *t, const char *from,
                              bool follow, char **name, oxp_diag *d) {
  static unsigned seq;
  unsigned salt = (unsigned)getpid() * 2654435761u ^
                  __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED) * 40503u;
  *name = NULL;
  for (int i = 0; i < 64; i++, salt = salt * 1103515245u + 12345u) {
    char *n = oxp_sprintf(a, "%s/.%s.%08x", t->dir, t->base, salt);
    if (!n) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    if (oxp_io_link(from, n, follow) == 0) {
      *name = n;
      return OXP_OK;
    }
    if (errno != EEXIST) break;
  }
  return OXP_OK;
}

/* Gives an anonymous temporary its hidden name, just before the rename. */
static oxp_status tmp_name(oxp_arena *a, tmp_file *t, oxp_diag *d) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", t->fd);
  oxp_status st = link_hidden(a, t, proc, true, &t->tmp, d);
  if (st || t->tmp) return st;
  return io_fail(d, "name the temporary file for", t->path, errno);
}

/* Synced, readable by all (mkstemp makes 0600), named, closed; close can
 * report a deferred write error (NFS), so it is checked. */
static oxp_status tmp_seal(oxp_arena *a, tmp_file *t, mode_t mode,
                           oxp_diag *d) {
  oxp_status st = OXP_OK;
  if (oxp_io_fsync(t->fd) != 0) st = io_fail(d, "sync", t->path, errno);
  if (!st && oxp_io_fchmod(t->fd, mode) != 0)
    st = io_fail(d, "set permissions of", t->path, errno);
  if (!st && !t->tmp) st = tmp_name(a, t, d);
  if (oxp_io_close(t->fd) != 0 && !st) st = io_fail(d, "close", t->path, errno);
  t->fd = -1;
  return st;
}

static void tmp_drop(tmp_file *t) {
  if (t->fd >= 0) oxp_io_close(t->fd);
  t->fd = -1;
  if (t->tmp) oxp_io_unlink(t->tmp);
  t->tmp = NULL;
}

/* Renames data (if any) and then the model into place, undoing the first
 * if the second fails; see the top of the file. */
static oxp_status commit(oxp_arena *a, tmp_file *model, tmp_file *data,
                         oxp_diag *d) {
  bool exchanged = false;
  char *old = NULL; /* the old data file kept, where there is no exchange */
  if (data) {
    if (oxp_io_exchange(data->tmp, data->path) == 0) {
      exchanged = true; /* data->tmp now names the old data file */
    } else {
      /* Not there (ENOENT) is nothing to keep; a link that cannot be made
       * leaves only the unlikely failure of the top of the file. */
      oxp_status st = link_hidden(a, data, data->path, false, &old, d);
      if (st) return st;
      if (oxp_io_rename(data->tmp, data->path) != 0) {
        int err = errno;
        if (old) oxp_io_unlink(old);
        return io_fail(d, "replace", data->path, err);
      }
      data->tmp = NULL;
    }
  }
  if (oxp_io_rename(model->tmp, model->path) != 0) {
    int err = errno;
    if (exchanged)
      (void)oxp_io_exchange(data->tmp, data->path);
    else if (old)
      (void)oxp_io_rename(old, data->path);
    else if (data)
      oxp_io_unlink(data->path);
    return io_fail(d, "replace", model->path, err);
  }
  model->tmp = NULL;
  if (exchanged) {
    oxp_io_unlink(data->tmp);
    data->tmp = NULL;
  }
  if (old) oxp_io_unlink(old);
  return OXP_OK;
}

static void note(const oxp_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const oxp_options *o, const char *fmt, ...) {
  if (!o->warn) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  o->warn(o->warn_user, msg);
}

typedef struct {
  oxp_graph *g;
  const oxp_options *o;
  const oxp_ext_layout *layout;
  oxp_progress *prog;
  oxp_fmap *fmap;
  const char *dir, *path;
  tmp_file data;
  bool have_data;
  const char *data_name;
  oxp_diag *d;
} writer;

static oxp_status open_data(writer *w, oxp_ext **ext) {
  oxp_arena *a = w->g->arena;
  const char *name, *dpath;
  oxp_status st = oxp_data_file(a, w->path, w->o, &name, &dpath, w->d);
  if (!st)
    st = oxp_check_output("external data file", dpath, w->path, w->o, w->d);
  if (st) return st;
  if ((st = tmp_open(a, w->dir, name, dpath, &w->data, w->d))) return st;
  w->have_data = true;
  w->data_name = name;
  *ext = oxp_ext_new_file(a, w->data.fd, name, dpath, w->layout, w->fmap,
                          w->prog);
  return *ext ? OXP_OK
              : oxp_fail(w->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

static oxp_status open_reference(writer *w, oxp_ext **ext) {
  char *real = oxp_io_realpath(w->dir);
  if (!real && errno == ENOMEM) return oxp_fail_nomem(w->d);
  if (!real) return io_fail(w->d, "resolve the directory of", w->path, errno);
  char *dir = oxp_strdup(w->g->arena, real);
  free(real);
  if (!dir ||
      !(*ext = oxp_ext_new_reference(w->g->arena, dir, w->layout, w->fmap)))
    return oxp_fail(w->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return OXP_OK;
}

/* Builds the ModelProto, choosing external data when asked or when the
 * inline model would pass protobuf's limit. */
static oxp_status build(writer *w, Onnx__ModelProto **m, oxp_ext **ext,
                        uint64_t *size) {
  oxp_status st;
  *ext = NULL;
  if (w->o->external_data == OXP_EXT_FILE) st = open_data(w, ext);
  else if (w->o->external_data == OXP_EXT_REFERENCE)
    st = open_reference(w, ext);
  else st = OXP_OK;
  if (st) return st;
  if ((st = oxp_ser_build(w->g, w->o, *ext, m, w->d)) ||
      (st = oxp_ser_measure(*m, size, w->d)))
    return st;
  uint64_t limit = w->layout && w->layout->proto_limit ? w->layout->proto_limit
                                                       : OXP_PROTO_LIMIT;
  if (*ext || *size <= limit) return OXP_OK;
  /* Building again is cheap: tensors are borrowed, only the small
   * protobuf-c structs are made twice. */
  if ((st = open_data(w, ext))) return st;
  note(w->o,
       "the model would be %.2f GiB, above protobuf's 2 GiB limit; its "
       "tensors go to external data in %s",
       (double)*size / (1 << 30), w->data_name);
  if ((st = oxp_ser_build(w->g, w->o, *ext, m, w->d))) return st;
  return oxp_ser_measure(*m, size, w->d);
}

oxp_status oxp_write_file_ex(oxp_graph *g, const oxp_options *o,
                             const char *path, const oxp_ext_layout *layout,
                             oxp_progress *prog, oxp_diag *d) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!*base)
    return oxp_fail(d, OXP_ERR_IO, NULL, NULL,
                    "cannot write %s: not a file name", path);
  size_t dlen = slash ? (size_t)(slash - path) : 1;
  const char *dirs = slash ? path : ".";
  if (slash && dlen == 0) dlen = 1; /* "/x.onnx": the root */
  /* Never over an input (same_file.c); the data file is checked when it
   * is opened, since the 2 GiB limit may call for one only later. */
  oxp_status st = oxp_check_output("model", path, NULL, o, d);
  if (st) return st;
  char *dir = oxp_strndup(g->arena, dirs, dlen);
  oxp_fmap *fmap = oxp_fmap_load(g->arena);
  if (!dir || !fmap)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");

  tmp_file model;
  st = tmp_open(g->arena, dir, base, path, &model, d);
  if (st) return st;
  writer w = {.g = g, .o = o, .layout = layout, .prog = prog, .fmap = fmap,
              .dir = dir, .path = path, .d = d};
  oxp_progress_stage(prog, "write");
  oxp_progress_total(prog, oxp_graph_tensor_bytes(g));

  Onnx__ModelProto *m = NULL;
  oxp_ext *ext = NULL;
  uint64_t size = 0;
  st = build(&w, &m, &ext, &size);
  if (!st) st = oxp_ext_finish(ext, d);
  /* Valid ONNX, and onnxruntime follows it, but onnx's Python loader
   * strips a leading "../" from locations (against path traversal), so
   * such a model only loads there from beside its sidecar. */
  if (!st && oxp_ext_outside(ext))
    note(o,
         "external data location '%s' is outside the model's directory; "
         "onnxruntime follows it, onnx.load (Python) does not: write the "
         "model beside its sidecar for a portable reference",
         oxp_ext_outside(ext));
  /* Nothing went outside (all tensors tiny): no data file at all. */
  if (!st && w.have_data && oxp_ext_count(ext) == 0) {
    tmp_drop(&w.data);
    w.have_data = false;
  }
  if (!st) {
    oxp_progress_total(prog, oxp_ext_copied(ext) + size);
    fd_sink fs = {.base = {.write = fd_write, .d = d}, .fd = model.fd,
                  .path = path, .fmap = fmap, .prog = prog};
    st = oxp_ser_pack(m, &fs.base, d);
  }
  /* A part of the model left out for want of memory must not reach the
   * target (oxp_arena_failed). */
  if (!st && oxp_arena_failed(g->arena)) st = oxp_fail_nomem(d);
  /* What open(2) with 0666 would give: the umask decides. */
  mode_t mode = 0666 & ~current_umask();
  if (!st && w.have_data) st = tmp_seal(g->arena, &w.data, mode, d);
  if (!st) st = tmp_seal(g->arena, &model, mode, d);
  if (!st) st = commit(g->arena, &model, w.have_data ? &w.data : NULL, d);
  oxp_fmap_close(fmap);
  if (st != OXP_OK) {
    tmp_drop(&model);
    if (w.have_data) tmp_drop(&w.data);
    return st;
  }
  sync_dir(dir);
  return OXP_OK;
}

oxp_status oxp_write_file(oxp_graph *g, const oxp_options *o,
                          const char *path, oxp_diag *d) {
  return oxp_write_file_ex(g, o, path, NULL, NULL, d);
}

/* ---- buffer sink ------------------------------------------------------- */

typedef struct {
  oxp_sink base;
  unsigned char *p;
  size_t len, cap;
} buf_sink;

static oxp_status buf_write(oxp_sink *s, const void *p, size_t n) {
  buf_sink *b = (buf_sink *)s;
  if (n > SIZE_MAX - b->len)
    return oxp_fail(s->d, OXP_ERR_NOMEM, NULL, NULL, "model too large");
  if (b->len + n > b->cap) {
    size_t nc = b->cap ? b->cap : 4096;
    while (nc < b->len + n) nc = nc > SIZE_MAX / 2 ? b->len + n : nc * 2;
    unsigned char *q = oxp_mem_realloc(b->p, nc);
    if (!q)
      return oxp_fail(s->d, OXP_ERR_NOMEM, NULL, NULL,
                      "out of memory for a %zu byte model", b->len + n);
    b->p = q;
    b->cap = nc;
  }
  memcpy(b->p + b->len, p, n);
  b->len += n;
  return OXP_OK;
}

oxp_status oxp_write_buffer(oxp_graph *g, const oxp_options *o,
                            unsigned char **buf, size_t *len, oxp_diag *d) {
  *buf = NULL;
  *len = 0;
  buf_sink b = {.base = {.write = buf_write, .d = d}};
  oxp_status st = oxp_serialize(g, o, &b.base, d);
  if (!st && oxp_arena_failed(g->arena)) st = oxp_fail_nomem(d);
  if (st != OXP_OK) {
    free(b.p);
    return st;
  }
  *buf = b.p;
  *len = b.len;
  return OXP_OK;
}
