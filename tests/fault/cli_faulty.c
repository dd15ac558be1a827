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

static int arm(const char *spec) {
  if (strcmp(spec, "count") == 0) {
    oxp_fault_count();
    return 0;
  }
  char kind[32], err[16], mode[16];
  long n;
  if (sscanf(spec, "%31[a-z]:%ld:%15[A-Z]:%15[a-z]", kind, &n, err, mode) != 4)
    return -1;
  int k = 0;
  while (oxp_fault_kind_name(k) && strcmp(oxp_fault_kind_name(k), kind)) k++;
  int e = strcmp(err, "EIO") == 0      ? EIO
          : strcmp(err, "ENOSPC") == 0 ? ENOSPC
          : strcmp(err, "ENOMEM") == 0 ? ENOMEM
                                       : 0;
  oxp_fault_mode m = strcmp(mode, "once") == 0    ? OXP_FAULT_ONCE
                     : strcmp(mode, "short") == 0 ? OXP_FAULT_SHORT_ONCE
                     : strcmp(mode, "fill") == 0  ? OXP_FAULT_FILL
                                                  : (oxp_fault_mode)-1;
  if (!oxp_fault_kind_name(k) || !e || (int)m < 0 || n < 1) return -1;
  oxp_fault_arm(k, n, e, m);
  return 0;
}

int main(int argc, char **argv) {
  const char *spec = getenv("OXP_FAULT"), *counts = getenv("OXP_FAULT_COUNTS");
  int fds = count_fds();
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
