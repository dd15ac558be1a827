/* write.c: where serialized bytes go: a file, replaced atomically, or a
 * malloc'd buffer.
 *
 * The file is written to a temporary in the target's own directory (so the
 * final rename(2) stays on one filesystem and is atomic), fsync'd, and only
 * then renamed over the target. Any failure removes the temporary, so a
 * failed export leaves no output and never damages an existing file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp, fchmod, O_DIRECTORY */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serialize.h"

/* ---- file sink -------------------------------------------------------- */

typedef struct {
  oxp_sink base;
  int fd;
  const char *path; /* the target, for messages */
} fd_sink;

static oxp_status fd_write(oxp_sink *s, const void *p, size_t n) {
  fd_sink *fs = (fd_sink *)s;
  const char *c = p;
  while (n > 0) {
    ssize_t w = write(fs->fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0)
      return oxp_fail(s->d, OXP_ERR_IO, NULL, NULL, "cannot write %s: %s",
                      fs->path, strerror(errno));
    if (w == 0) /* a full disk normally says ENOSPC; never spin on 0 */
      return oxp_fail(s->d, OXP_ERR_IO, NULL, NULL,
                      "cannot write %s: no progress", fs->path);
    c += w;
    n -= (size_t)w;
  }
  return OXP_OK;
}

/* The process umask, without the umask(2) set-and-restore dance, which
 * would race with other threads creating files. Linux shows it in
 * /proc/self/status; elsewhere fall back to the dance. */
static mode_t current_umask(void) {
  FILE *f = fopen("/proc/self/status", "re");
  if (f) {
    char line[128];
    unsigned m;
    while (fgets(line, sizeof line, f)) {
      if (sscanf(line, "Umask: %o", &m) == 1) {
        fclose(f);
        return (mode_t)m;
      }
    }
    fclose(f);
  }
  mode_t m = umask(022);
  umask(m);
  return m;
}

/* Durability of the rename itself; a failure here cannot undo anything,
 * so it is not reported. */
static void sync_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

static oxp_status io_fail(oxp_diag *d, const char *what, const char *path,
                          int err) {
  return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "cannot %s %s: %s", what, path,
                  strerror(err));
}

oxp_status oxp_write_file(oxp_graph *g, const oxp_options *o,
                          const char *path, oxp_diag *d) {
  const char *slash = strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  if (!*base)
    return oxp_fail(d, OXP_ERR_IO, NULL, NULL,
                    "cannot write %s: not a file name", path);
  size_t dlen = slash ? (size_t)(slash - path) : 1;
  const char *dirs = slash ? path : ".";
  if (slash && dlen == 0) dlen = 1; /* "/x.onnx": the root */
  char *dir = oxp_strndup(g->arena, dirs, dlen);
  char *tmp = dir ? oxp_sprintf(g->arena, "%s/.%s.XXXXXX", dir, base) : NULL;
  if (!tmp)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");

  /* CLOEXEC: another thread's fork+exec must not inherit the file. */
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) return io_fail(d, "create a temporary file for", path, errno);
  fd_sink fs = {.base = {.write = fd_write, .d = d}, .fd = fd, .path = path};

  oxp_status st = oxp_serialize(g, o, &fs.base, d);
  if (st == OXP_OK && fsync(fd) != 0) st = io_fail(d, "sync", path, errno);
  /* mkstemp makes 0600; a model is a normal file for everyone to read. */
  if (st == OXP_OK && fchmod(fd, 0644 & ~current_umask()) != 0)
    st = io_fail(d, "set permissions of", path, errno);
  /* close can report a deferred write error (NFS), so it is checked. */
  if (close(fd) != 0 && st == OXP_OK) st = io_fail(d, "close", path, errno);
  if (st == OXP_OK && rename(tmp, path) != 0)
    st = io_fail(d, "replace", path, errno);
  if (st != OXP_OK) {
    unlink(tmp);
    return st;
  }
  sync_dir(dir);
  return OXP_OK;
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
    unsigned char *q = realloc(b->p, nc);
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
  if (st != OXP_OK) {
    free(b.p);
    return st;
  }
  *buf = b.p;
  *len = b.len;
  return OXP_OK;
}
