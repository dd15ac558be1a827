/* cli_faulty.c: onnxexp_faulty, the onnxexp command itself (main.c,
 * compiled in whole) with the fault hook (fault.h) armed from the
 * environment, for fault.cli_io (cli_io.py). The shipped command has no
 * such switch; this one exists only in the build tree.
 *
 *   OXP_FAULT=KIND:N:ERRNO:MODE   fail the Nth call of KIND ("write",
 *                                 "rename", "alloc", ...; fault.h) with
 *                                 ERRNO (EIO, ENOSPC, ENOMEM) as MODE
 *                                 (once, short, fill)
 *   OXP_FAULT=count               fail nothing, count
 *   OXP_FAULT_COND=KIND:ERRNO,... every call of KIND fails (uncounted): a
 *                                 system without it (tmpfile:EOPNOTSUPP,
 *                                 copy:EXDEV, exchange:EINVAL, ...)
 *   OXP_FAULT_COUNTS=PATH         at exit, "KIND CALLS" lines into PATH,
 *                                 and "fired N"
 *
 * A descriptor left open at exit that was not open at the start makes
 * it exit 99: the CLI must close what it opened on every path. */
#define main oxp_cli_main
#include "../../src/cli/main.c"
#undef main

#include <dirent.h>

#include "fault.h"

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

static int errno_of(const char *name) {
  static const struct {
    const char *name;
    int err;
  } E[] = {{"EIO", EIO}, {"ENOSPC", ENOSPC}, {"ENOMEM", ENOMEM}, {"EXDEV", EXDEV},
           {"EINVAL", EINVAL}, {"EOPNOTSUPP", EOPNOTSUPP}};
  for (size_t i = 0; i < sizeof E / sizeof E[0]; i++)
    if (strcmp(E[i].name, name) == 0) return E[i].err;
  return 0;
}

static int kind_of(const char *name) {
  int k = 0;
  while (oxp_fault_kind_name(k) && strcmp(oxp_fault_kind_name(k), name)) k++;
  return oxp_fault_kind_name(k) ? k : -1;
}

static int conditions(const char *spec) {
  char kind[32], err[16];
  int used;
  while (*spec) {
    if (sscanf(spec, "%31[a-z]:%15[A-Z]%n", kind, err, &used) != 2) return -1;
    int k = kind_of(kind), e = errno_of(err);
    if (k < 0 || !e) return -1;
    oxp_fault_condition(k, e);
    spec += used;
    if (*spec == ',') spec++;
  }
  return 0;
}

static int arm(const char *spec) {
  if (strcmp(spec, "count") == 0) {
    oxp_fault_count();
    return 0;
  }
  char kind[32], err[16], mode[16];
  long n;
  if (sscanf(spec, "%31[a-z]:%ld:%15[A-Z]:%15[a-z]", kind, &n, err, mode) != 4)
    return -1;
  int k = kind_of(kind), e = errno_of(err);
  oxp_fault_mode m = strcmp(mode, "once") == 0    ? OXP_FAULT_ONCE
                     : strcmp(mode, "short") == 0 ? OXP_FAULT_SHORT_ONCE
                     : strcmp(mode, "fill") == 0  ? OXP_FAULT_FILL
                                                  : (oxp_fault_mode)-1;
  if (k < 0 || !e || (int)m < 0 || n < 1) return -1;
  oxp_fault_arm(k, n, e, m);
  return 0;
}

int main(int argc, char **argv) {
  const char *spec = getenv("OXP_FAULT"), *counts = getenv("OXP_FAULT_COUNTS");
  const char *cond = getenv("OXP_FAULT_COND");
  int fds = count_fds();
  if (cond && conditions(cond) != 0) {
    fprintf(stderr, "onnxexp: error: OXP_FAULT_COND: bad spec '%s'\n", cond);
    return 98;
  }
  if (spec && arm(spec) != 0) {
    fprintf(stderr, "onnxexp: error: OXP_FAULT: bad spec '%s'\n", spec);
    return 98;
  }
  int rc = oxp_cli_main(argc, argv);
  long fired = oxp_fault_fired();
  oxp_fault_disarm();
  if (counts) {
    FILE *f = fopen(counts, "w");
    for (int k = 0; f && oxp_fault_kind_name(k); k++)
      fprintf(f, "%s %ld\n", oxp_fault_kind_name(k), oxp_fault_calls(k));
    if (f) fprintf(f, "fired %ld\n", fired);
    if (f) fclose(f);
  }
  if (count_fds() != fds) {
    fprintf(stderr, "onnxexp: error: %d descriptors open at exit, %d at the start\n",
            count_fds(), fds);
    return 99;
  }
  return rc;
}
