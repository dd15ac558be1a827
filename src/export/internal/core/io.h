/* io.h: every file operation the library and the CLI make, under one
 * name each, so tests can make any of them fail (fault.h): as EIO, and
 * writes also as ENOSPC or short. Each wrapper behaves exactly as the
 * call it wraps (same arguments, result and errno) when nothing is armed.
 * An injected failure of a close still closes, as Linux does. */
#ifndef OXP_IO_H
#define OXP_IO_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "oxp.h"

int oxp_io_open(const char *path, int flags, mode_t mode);
int oxp_io_mkostemp(char *tmpl, int flags);
FILE *oxp_io_fopen(const char *path, const char *mode);
int oxp_io_close(int fd);
int oxp_io_fclose(FILE *f);

int oxp_io_stat(const char *path, struct stat *sb);
int oxp_io_fstat(int fd, struct stat *sb);
int oxp_io_access(const char *path, int mode);
/* realpath(path, NULL): malloc'd, free(3) it. */
char *oxp_io_realpath(const char *path);

ssize_t oxp_io_read(int fd, void *p, size_t n);
char *oxp_io_fgets(char *buf, int n, FILE *f);
/* A read-only private mapping of len bytes of fd; MAP_FAILED on error. */
void *oxp_io_mmap(int fd, size_t len);

ssize_t oxp_io_write(int fd, const void *p, size_t n);
ssize_t oxp_io_pwrite(int fd, const void *p, size_t n, off_t off);
ssize_t oxp_io_copy_file_range(int in, off_t *in_off, int out,
                               off_t *out_off, size_t n);
ssize_t oxp_io_sendfile(int out, int in, off_t *in_off, size_t n);
int oxp_io_ftruncate(int fd, off_t len);
int oxp_io_fsync(int fd);
int oxp_io_fchmod(int fd, mode_t mode);

/* linkat(AT_FDCWD, from, AT_FDCWD, to, follow ? AT_SYMLINK_FOLLOW : 0) */
int oxp_io_link(const char *from, const char *to, bool follow);
int oxp_io_rename(const char *from, const char *to);
int oxp_io_exchange(const char *a, const char *b); /* renameat2 EXCHANGE */
int oxp_io_unlink(const char *path);

/* The whole file at path, NUL-terminated (*len excludes the NUL), in a
 * malloc'd buffer; a pipe or a device (/dev/stdin) is read to its end.
 * NULL with an OXP_ERR_IO (or OXP_ERR_NOMEM) naming path in d. */
char *oxp_io_read_file(const char *path, size_t *len, oxp_diag *d);

#endif
