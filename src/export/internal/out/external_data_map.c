/* external_data_map.c: which bytes in memory are really bytes of a file,
 * and moving such bytes to another file without touching them.
 *
 * Weights are borrowed from the safetensors mmap, but a tensor only says
 * so through src_path/src_offset, which a pass that rewrites data could
 * leave stale. So the truth is taken from the kernel instead: one read of
 * /proc/self/smaps lists every mapping with its file (device, inode, file
 * offset), its protection, and how many of its pages are private copies.
 * A pointer range that lies inside a read-only file mapping with no private
 * pages is exactly the file's bytes at a known offset. For such a range
 *  - copy_file_range(2) (or sendfile(2)) copies it in the kernel, so the
 *    pages are never faulted into this process;
 *  - when it must go through write(2) after all, the pages already written
 *    are dropped with MADV_DONTNEED, which for a clean file mapping only
 *    unmaps them (they stay in the page cache and refault from the file),
 *    so resident memory stays bounded by one chunk, not by the weights.
 * Anything else (arena data, anonymous memory, writable or copied-on-write
 * mappings) is plain memory and is only ever written with write(2).
 *
 * Without /proc (not Linux) the table is empty and everything is plain
 * memory: correct, just without the savings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* copy_file_range */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "io.h"
#include "serialize.h"

/* Bytes moved per system call: small enough that progress moves and that
 * the pages a write(2) faulted in are released often, large enough that
 * the call overhead is noise. */
enum { CHUNK = 8 << 20 };

typedef struct {
  uintptr_t start, end;
  uint64_t file_off;   /* file offset of start */
  unsigned dev_major, dev_minor;
  uint64_t inode;
  const char *path;    /* as the kernel prints it; verified before use */
  int fd;              /* -1: not opened yet; -2: cannot be opened */
  bool clean;          /* read-only, file-backed, no private pages */
} vma;

struct oxp_fmap {
  oxp_arena *a;
  vma *v;
  int n;
  /* Once the kernel refuses copy_file_range or sendfile for a pair of
   * files it refuses every time; remember it instead of asking per chunk. */
  bool no_cfr, no_sendfile;
};

/* One smaps header: "start-end perms offset maj:min inode   path". */
static bool parse_header(const char *line, vma *m, char *perms,
                         const char **path) {
  unsigned long long s, e, off, ino;
  unsigned maj, mn;
  int pos = 0;
  if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &s, &e, perms, &off,
             &maj, &mn, &ino, &pos) != 7)
    return false;
  m->start = (uintptr_t)s;
  m->end = (uintptr_t)e;
  m->file_off = off;
  m->dev_major = maj;
  m->dev_minor = mn;
  m->inode = ino;
  *path = line + pos;
  return true;
}

static bool push(oxp_fmap *m, int *cap, const vma *x) {
  if (m->n == *cap) {
    int nc = *cap ? *cap * 2 : 64;
    void *p = oxp_realloc(m->a, m->v, sizeof *m->v * (size_t)*cap,
                          sizeof *m->v * (size_t)nc);
    if (!p) return false;
    m->v = p;
    *cap = nc;
  }
  m->v[m->n++] = *x;
  return true;
}

/* The table is read from one copy of smaps, taken with a few large reads
 * (it is tens of KiB): a line at a time would ask the kernel, and the
 * fault tests (fault.h), once per line for nothing. */
oxp_fmap *oxp_fmap_load(oxp_arena *a) {
  oxp_fmap *m = oxp_alloc(a, sizeof *m);
  if (!m) return NULL;
  m->a = a;
  size_t len;
  char *text = oxp_io_read_file("/proc/self/smaps", &len, NULL);
  if (!text) return m; /* no /proc: no table */
  int vcap = 0;
  vma cur = {0};
  bool have = false, whole = true;
  for (char *line = text, *next; *line && whole; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    else next = line + strlen(line);
    char perms[8] = {0};
    const char *path;
    vma x = {0};
    if (parse_header(line, &x, perms, &path)) {
      if (have && cur.clean && !push(m, &vcap, &cur)) whole = false;
      have = true;
      cur = x;
      cur.fd = -1;
      /* Only regular files; "[heap]", "[stack]", anonymous have inode 0. */
      cur.clean = x.inode != 0 && perms[0] == 'r' && perms[1] != 'w' &&
                  path[0] == '/';
      if (cur.clean) {
        /* A deleted file cannot be reopened to check it. */
        size_t pl = strlen(path);
        if (pl > 10 && strcmp(path + pl - 10, " (deleted)") == 0)
          cur.clean = false;
        else if (!(cur.path = oxp_strdup(a, path)))
          cur.clean = false;
      }
      continue;
    }
    /* Copies made on write are anonymous pages of the mapping and differ
     * from the file: such a mapping is memory. (Private_Dirty is no sign:
     * it also counts page-cache pages not yet written back, such as a
     * sidecar just generated.) */
    unsigned long kb;
    if (have && sscanf(line, "Anonymous: %lu kB", &kb) == 1 && kb != 0)
      cur.clean = false;
  }
  if (whole && have && cur.clean && !push(m, &vcap, &cur)) whole = false;
  free(text);
  /* Part of the list would tell a mapped tensor from memory wrongly (a
   * reference would become inline data): no list at all instead, as
   * without /proc. */
  if (!whole) m->n = 0;
  return m;
}

bool oxp_fmap_available(const oxp_fmap *m) { return m && m->n > 0; }

void oxp_fmap_close(oxp_fmap *m) {
  if (!m) return;
  for (int i = 0; i < m->n; i++)
    if (m->v[i].fd >= 0) oxp_io_close(m->v[i].fd);
  m->n = 0;
}

/* The mapping holding all of [p, p+n), or NULL. smaps is sorted by
 * address, so a binary search finds it. */
static vma *find(const oxp_fmap *m, const void *p, size_t n) {
  if (!m || n == 0) return NULL;
  uintptr_t s = (uintptr_t)p;
  int lo = 0, hi = m->n - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    vma *v = &m->v[mid];
    if (s < v->start) hi = mid - 1;
    else if (s >= v->end) lo = mid + 1;
    else return n <= v->end - s ? v : NULL;
  }
  return NULL;
}

/* Opens the mapping's file once and checks it is the very file mapped
 * (same device and inode), so a path replaced since is never read. */
static int vma_fd(vma *v) {
  if (v->fd != -1) return v->fd;
  v->fd = -2;
  int fd = oxp_io_open(v->path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return -2;
  struct stat sb;
  if (oxp_io_fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
      (uint64_t)sb.st_ino != v->inode || major(sb.st_dev) != v->dev_major ||
      minor(sb.st_dev) != v->dev_minor) {
    oxp_io_close(fd);
    return -2;
  }
  return v->fd = fd;
}

bool oxp_fmap_lookup(oxp_fmap *m, const void *p, size_t n, int *fd,
                     uint64_t *off, const char **path) {
  vma *v = find(m, p, n);
  if (!v) return false;
  int f = vma_fd(v);
  if (f < 0) return false;
  if (fd) *fd = f;
  if (off) *off = v->file_off + ((uintptr_t)p - v->start);
  if (path) *path = v->path;
  return true;
}

bool oxp_fmap_same_file(oxp_fmap *m, const void *p, size_t n,
                        const char *path) {
  vma *v = find(m, p, n);
  if (!v || !path) return false;
  struct stat sb;
  return oxp_io_stat(path, &sb) == 0 && (uint64_t)sb.st_ino == v->inode &&
         major(sb.st_dev) == v->dev_major && minor(sb.st_dev) == v->dev_minor;
}

void oxp_fmap_release(oxp_fmap *m, const void *p, size_t n) {
  vma *v = find(m, p, n);
  if (!v) return;
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t s = ((uintptr_t)p + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
  uintptr_t e = ((uintptr_t)p + n) & ~((uintptr_t)pg - 1);
  /* Only whole pages inside the range: a partly used page at either end
   * is kept; it costs at most two pages per call. */
  if (e > s) (void)madvise((void *)s, e - s, MADV_DONTNEED);
}

static oxp_status wfail(oxp_diag *d, const char *what, int err) {
  return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "cannot write %s: %s", what,
                  strerror(err));
}

/* write(2) or pwrite(2) of plain memory, restarted on short writes. */
static oxp_status write_mem(int out, off_t *out_off, const char *c, size_t n,
                            const char *what, oxp_diag *d) {
  while (n > 0) {
    ssize_t w = out_off ? oxp_io_pwrite(out, c, n, *out_off)
                        : oxp_io_write(out, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return wfail(d, what, errno);
    if (w == 0) /* a full disk normally says ENOSPC; never spin on 0 */
      return oxp_fail(d, OXP_ERR_IO, NULL, NULL, "cannot write %s: no progress",
                      what);
    c += w;
    n -= (size_t)w;
    if (out_off) *out_off += w;
  }
  return OXP_OK;
}

/* Errors after which the kernel simply does not offer the call for these
 * files: fall back instead of failing. */
static bool unsupported(int err) {
  return err == EXDEV || err == EINVAL || err == ENOSYS ||
         err == EOPNOTSUPP || err == EBADF || err == ETXTBSY;
}

/* Moves up to n bytes of the source file in the kernel; returns how many
 * (0 when neither call is offered, after which the caller writes). */
static ssize_t kernel_copy(oxp_fmap *m, int in, off_t in_off, int out,
                           off_t *out_off, size_t n, int *err) {
  *err = 0;
  if (!m->no_cfr) {
    off_t ioff = in_off, ooff = out_off ? *out_off : 0;
    ssize_t r;
    do
      r = oxp_io_copy_file_range(in, &ioff, out, out_off ? &ooff : NULL, n);
    while (r < 0 && errno == EINTR);
    if (r > 0) {
      if (out_off) *out_off = ooff;
      return r;
    }
    if (r < 0 && !unsupported(errno)) {
      *err = errno;
      return -1;
    }
    m->no_cfr = true; /* 0 here means the source is shorter than mapped */
  }
  /* sendfile writes at the output's file position only. */
  if (!m->no_sendfile && !out_off) {
    off_t ioff = in_off;
    ssize_t r;
    do
      r = oxp_io_sendfile(out, in, &ioff, n);
    while (r < 0 && errno == EINTR);
    if (r > 0) return r;
    if (r < 0 && !unsupported(errno)) {
      *err = errno;
      return -1;
    }
    m->no_sendfile = true;
  }
  return 0;
}

oxp_status oxp_fmap_copy(oxp_fmap *m, int out, off_t *out_off, const void *p,
                         size_t n, oxp_progress *prog, const char *what,
                         oxp_diag *d) {
  const char *c = p;
  int in = -1;
  uint64_t in_off = 0;
  bool file = m && oxp_fmap_lookup(m, p, n, &in, &in_off, NULL);
  while (n > 0) {
    size_t k = n < CHUNK ? n : CHUNK;
    ssize_t done = 0;
    if (file) {
      int err;
      done = kernel_copy(m, in, (off_t)in_off, out, out_off, k, &err);
      if (done < 0) return wfail(d, what, err);
    }
    if (done == 0) {
      oxp_status st = write_mem(out, out_off, c, k, what, d);
      if (st) return st;
      /* Pages of the mapping this write faulted in are not needed again. */
      if (file) oxp_fmap_release(m, c, k);
      done = (ssize_t)k;
    }
    c += done;
    in_off += (uint64_t)done;
    n -= (size_t)done;
    oxp_progress_add(prog, (uint64_t)done);
  }
  return OXP_OK;
}

typedef struct {
  int out;
  off_t *out_off;
  oxp_progress *prog;
  const char *what;
  oxp_diag *d;
} plain_out;

static oxp_status put_plain(void *u, const void *p, size_t n) {
  plain_out *o = u;
  oxp_status st = write_mem(o->out, o->out_off, p, n, o->what, o->d);
  if (!st) oxp_progress_add(o->prog, (uint64_t)n);
  return st;
}

oxp_status oxp_fmap_copy_tensor(oxp_fmap *m, int out, off_t *out_off,
                                const oxp_tensor *t, oxp_progress *prog,
                                const char *what, oxp_diag *d) {
  if (!oxp_tensor_is_lazy(t))
    return oxp_fmap_copy(m, out, out_off, t->data, t->nbytes, prog, what, d);
  plain_out o = {out, out_off, prog, what, d};
  return oxp_tensor_produce(t, put_plain, &o, d);
}
