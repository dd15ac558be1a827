/* io.c: the file operations of io.h, each asking oxp_fault (fault.h)
 * before it runs. Bytes-moving calls can also be made short, which the
 * callers must survive (they loop); anything else simply fails. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp, renameat2, copy_file_range */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "fault.h"
#include "io.h"

/* A failure point that has no partial form (oxp_fault set errno). */
#define FAIL_IF(kind, failed) \
  do {                        \
    if (oxp_fault(kind)) return failed; \
  } while (0)

/* How many of n bytes a call moves: all of them, part (a short call), or
 * none (-1: fail, errno set). */
static ssize_t quota(oxp_fault_kind k, size_t n) {
  int act = oxp_fault(k);
  if (!act) return (ssize_t)(n > SSIZE_MAX ? SSIZE_MAX : n);
  if (act == OXP_FAULT_SHORT && n > 1) return (ssize_t)(n / 2);
  if (act == OXP_FAULT_SHORT) return (ssize_t)n; /* 1 byte cannot be less */
  return -1;
}

int oxp_io_open(const char *path, int flags, mode_t mode) {
#ifdef O_TMPFILE
  if ((flags & O_TMPFILE) == O_TMPFILE) FAIL_IF(OXP_FAULT_TMPFILE, -1);
  else
#endif
    FAIL_IF(OXP_FAULT_OPEN, -1);
  return open(path, flags, mode);
}

int oxp_io_mkostemp(char *tmpl, int flags) {
  FAIL_IF(OXP_FAULT_OPEN, -1);
  return mkostemp(tmpl, flags);
}

FILE *oxp_io_fopen(const char *path, const char *mode) {
  FAIL_IF(OXP_FAULT_ALLOC, NULL); /* the FILE itself */
  FAIL_IF(OXP_FAULT_OPEN, NULL);
  return fopen(path, mode);
}

int oxp_io_close(int fd) {
  if (oxp_fault(OXP_FAULT_CLOSE)) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return close(fd);
}

int oxp_io_fclose(FILE *f) {
  if (oxp_fault(OXP_FAULT_CLOSE)) {
    int e = errno;
    fclose(f);
    errno = e;
    return EOF;
  }
  return fclose(f);
}

int oxp_io_stat(const char *path, struct stat *sb) {
  FAIL_IF(OXP_FAULT_STAT, -1);
  return stat(path, sb);
}

int oxp_io_fstat(int fd, struct stat *sb) {
  FAIL_IF(OXP_FAULT_STAT, -1);
  return fstat(fd, sb);
}

int oxp_io_access(const char *path, int mode) {
  FAIL_IF(OXP_FAULT_STAT, -1);
  return access(path, mode);
}

char *oxp_io_realpath(const char *path) {
  FAIL_IF(OXP_FAULT_ALLOC, NULL);
  FAIL_IF(OXP_FAULT_STAT, NULL);
  return realpath(path, NULL);
}

ssize_t oxp_io_read(int fd, void *p, size_t n) {
  ssize_t q = quota(OXP_FAULT_READ, n);
  return q < 0 ? -1 : read(fd, p, (size_t)q);
}

char *oxp_io_fgets(char *buf, int n, FILE *f) {
  FAIL_IF(OXP_FAULT_READ, NULL);
  return fgets(buf, n, f);
}

void *oxp_io_mmap(int fd, size_t len) {
  FAIL_IF(OXP_FAULT_MMAP, MAP_FAILED);
  return mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
}

ssize_t oxp_io_write(int fd, const void *p, size_t n) {
  ssize_t q = quota(OXP_FAULT_WRITE, n);
  return q < 0 ? -1 : write(fd, p, (size_t)q);
}

ssize_t oxp_io_pwrite(int fd, const void *p, size_t n, off_t off) {
  ssize_t q = quota(OXP_FAULT_WRITE, n);
  return q < 0 ? -1 : pwrite(fd, p, (size_t)q, off);
}

ssize_t oxp_io_copy_file_range(int in, off_t *in_off, int out,
                               off_t *out_off, size_t n) {
  ssize_t q = quota(OXP_FAULT_COPY, n);
  if (q < 0) return -1;
  loff_t i = in_off ? *in_off : 0, o = out_off ? *out_off : 0;
  ssize_t r = copy_file_range(in, in_off ? &i : NULL, out, out_off ? &o : NULL,
                              (size_t)q, 0);
  if (in_off) *in_off = (off_t)i;
  if (out_off) *out_off = (off_t)o;
  return r;
}

ssize_t oxp_io_sendfile(int out, int in, off_t *in_off, size_t n) {
  ssize_t q = quota(OXP_FAULT_SENDFILE, n);
  return q < 0 ? -1 : sendfile(out, in, in_off, (size_t)q);
}

int oxp_io_ftruncate(int fd, off_t len) {
  FAIL_IF(OXP_FAULT_TRUNCATE, -1);
  return ftruncate(fd, len);
}

int oxp_io_fsync(int fd) {
  FAIL_IF(OXP_FAULT_SYNC, -1);
  return fsync(fd);
}

int oxp_io_fchmod(int fd, mode_t mode) {
  FAIL_IF(OXP_FAULT_CHMOD, -1);
  return fchmod(fd, mode);
}

int oxp_io_link(const char *from, const char *to, bool follow) {
  FAIL_IF(OXP_FAULT_LINK, -1);
  return linkat(AT_FDCWD, from, AT_FDCWD, to, follow ? AT_SYMLINK_FOLLOW : 0);
}

int oxp_io_rename(const char *from, const char *to) {
  FAIL_IF(OXP_FAULT_RENAME, -1);
  return rename(from, to);
}

int oxp_io_exchange(const char *a, const char *b) {
  FAIL_IF(OXP_FAULT_EXCHANGE, -1);
  return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int oxp_io_unlink(const char *path) {
  FAIL_IF(OXP_FAULT_UNLINK, -1);
  return unlink(path);
}

/* "PATH: why", the words the CLI has always printed for its input. */
static char *read_fail(oxp_diag *d, const char *path, int err) {
  if (err == ENOMEM)
    oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "%s: out of memory reading it", path);
  else
    oxp_fail(d, OXP_ERR_IO, NULL, NULL, "%s: %s", path, strerror(err));
  return NULL;
}

char *oxp_io_read_file(const char *path, size_t *len, oxp_diag *d) {
  int fd = oxp_io_open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return read_fail(d, path, errno);
  struct stat sb;
  char *buf = NULL;
  int err = 0;
  size_t got = 0;
  if (oxp_io_fstat(fd, &sb) != 0) {
    err = errno;
  } else if (S_ISDIR(sb.st_mode)) {
    err = EISDIR;
  } else {
    /* Room for the whole regular file, a NUL and the probe that sees the
     * end; anything else (a pipe, /proc, which says 0 bytes) grows as it
     * comes. */
    size_t cap = S_ISREG(sb.st_mode) && sb.st_size > 0 &&
                         (uint64_t)sb.st_size < SIZE_MAX / 2
                     ? (size_t)sb.st_size + 2
                     : 65536;
    if (!(buf = oxp_mem_alloc(cap))) err = ENOMEM;
    while (!err) {
      if (cap - got < 2) {
        char *nb = cap <= SIZE_MAX / 2 ? oxp_mem_realloc(buf, cap * 2) : NULL;
        if (!nb) {
          err = ENOMEM;
          break;
        }
        buf = nb;
        cap *= 2;
      }
      ssize_t r = oxp_io_read(fd, buf + got, cap - 1 - got);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) err = errno;
      if (r <= 0) break;
      got += (size_t)r;
    }
  }
  oxp_io_close(fd); /* read-only: nothing a failed close could lose */
  if (err) {
    free(buf);
    return read_fail(d, path, err);
  }
  buf[got] = 0;
  *len = got;
  return buf;
}
