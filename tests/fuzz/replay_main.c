/* replay_main.c: runs a fuzz target over corpus files without libFuzzer,
 * for compilers without -fsanitize=fuzzer and for CI. Arguments are files
 * or directories (their regular files, sorted, not recursive). Each input
 * must finish within OXP_FUZZ_TIMEOUT seconds (default 10, generous for
 * sanitizer builds; libFuzzer runs use -timeout=1). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

static const char *current;

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "replay: timeout on input\n";
  if (write(2, msg, sizeof msg - 1) < 0) {}
  if (current && write(2, current, strlen(current)) < 0) {}
  _exit(3);
}

static int run_file(const char *path, unsigned timeout) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 4096, n = 0;
  uint8_t *buf = malloc(cap);
  size_t r;
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) return 1;
  current = path;
  alarm(timeout);
  LLVMFuzzerTestOneInput(buf, n);
  alarm(0);
  free(buf);
  return 0;
}

static int cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned timeout, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) names = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp);
  int bad = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
      bad |= run_file(path, timeout);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return bad;
}

int main(int argc, char **argv) {
  const char *t = getenv("OXP_FUZZ_TIMEOUT");
  unsigned timeout = t ? (unsigned)atoi(t) : 10;
  signal(SIGALRM, on_alarm);
  int bad = 0, count = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) != 0) {
      perror(argv[i]);
      bad = 1;
    } else if (S_ISDIR(sb.st_mode)) {
      bad |= run_dir(argv[i], timeout, &count);
    } else {
      bad |= run_file(argv[i], timeout);
      count++;
    }
  }
  fprintf(stderr, "%s: %d inputs replayed\n", argv[0], count);
  return bad;
}
