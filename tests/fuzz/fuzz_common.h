/* fuzz_common.h: what the fuzz targets share.
 *
 * Each target is one LLVMFuzzerTestOneInput. Built with clang
 * -fsanitize=fuzzer it is a libFuzzer program; built with replay_main.c it
 * replays the committed corpus (tests/fuzz/corpus/<target>/) under ASan and
 * UBSan, which is what CI runs (ctest fuzz.replay). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oxp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise of the library (not a rejected input): report and
 * abort so that the fuzzer or the replay records the input. */
#define FUZZ_ASSERT(c)                                                  \
  do {                                                                  \
    if (!(c)) {                                                         \
      fprintf(stderr, "%s:%d: fuzz invariant failed: %s\n", __FILE__,   \
              __LINE__, #c);                                            \
      abort();                                                          \
    }                                                                   \
  } while (0)

/* The input in a heap block of exactly size bytes, not NUL-terminated,
 * so that ASan sees any read past the end. */
static inline char *fuzz_copy(const uint8_t *data, size_t size) {
  char *p = malloc(size ? size : 1);
  FUZZ_ASSERT(p);
  if (size) memcpy(p, data, size);
  return p;
}

/* An error must be a status with a diagnostic: the status recorded and a
 * message that says something, terminated inside its buffers. */
static inline void fuzz_check_diag(oxp_status st, const oxp_diag *d) {
  FUZZ_ASSERT(st > OXP_OK && st <= OXP_ERR_INTERNAL);
  FUZZ_ASSERT(d->status == st);
  FUZZ_ASSERT(memchr(d->message, 0, sizeof d->message));
  FUZZ_ASSERT(d->message[0]);
  FUZZ_ASSERT(memchr(d->file, 0, sizeof d->file));
  FUZZ_ASSERT(memchr(d->op, 0, sizeof d->op));
  char buf[1200];
  oxp_diag_format(d, buf, sizeof buf);
  /* OXP_FUZZ_DEBUG=1 shows why inputs are rejected (seed triage). */
  static int debug = -1;
  if (debug < 0) debug = getenv("OXP_FUZZ_DEBUG") != NULL;
  if (debug) fprintf(stderr, "rejected: %s\n", buf);
}

/* A warning callback (oxp_warn_fn) that counts into an int and checks the
 * message is bounded. */
static inline void fuzz_count_warning(void *user, const char *msg) {
  ++*(int *)user;
  FUZZ_ASSERT(msg && strlen(msg) < 4096);
}

#endif
