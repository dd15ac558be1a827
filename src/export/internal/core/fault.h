/* fault.h: failure injection, so that tests can make any allocation or
 * file operation of an export fail (SQLite's test_malloc.c and its I/O
 * error tests, in a few lines).
 *
 * Every heap and arena allocation (oxp_mem_*, oxp_alloc) and every file
 * operation (io.h) asks oxp_fault first. Nothing is armed in a normal run,
 * and then the question is one relaxed load of a global and a branch that
 * is never taken: 0.1% more instructions on an export of MobileNetV2
 * (valgrind's count), so the shipped library carries the hook, and the
 * tests exercise that very library, not a variant built for them. A test
 * counts the calls an export makes (oxp_fault_count), then fails each one
 * in turn (oxp_fault_arm).
 *
 * Test-only and process-wide: arm it from one thread while no other
 * thread exports. */
#ifndef OXP_FAULT_H
#define OXP_FAULT_H

#include <stdbool.h>

/* What a failure point does. A kind groups the calls that fail the same
 * way: each is counted on its own, so "the 3rd write" is one point. */
typedef enum {
  OXP_FAULT_ALLOC,    /* arena and heap allocations (and libc calls that
                         allocate for us: fopen, realpath) */
  OXP_FAULT_OPEN,     /* open, mkostemp, fopen */
  OXP_FAULT_TMPFILE,  /* open(O_TMPFILE); without it, mkostemp */
  OXP_FAULT_STAT,     /* stat, fstat, access, realpath */
  OXP_FAULT_READ,     /* read, fgets */
  OXP_FAULT_MMAP,
  OXP_FAULT_WRITE,    /* write, pwrite */
  OXP_FAULT_COPY,     /* copy_file_range; without it, sendfile */
  OXP_FAULT_SENDFILE, /* without that too, write */
  OXP_FAULT_TRUNCATE, /* ftruncate */
  OXP_FAULT_SYNC,     /* fsync */
  OXP_FAULT_CHMOD,    /* fchmod */
  OXP_FAULT_LINK,     /* linkat */
  OXP_FAULT_RENAME,   /* rename */
  OXP_FAULT_EXCHANGE, /* renameat2(RENAME_EXCHANGE); without it, rename */
  OXP_FAULT_UNLINK,
  OXP_FAULT_CLOSE,    /* close, fclose: the descriptor is closed all the
                         same, as Linux does when close(2) fails */
  OXP_FAULT_NKINDS
} oxp_fault_kind;

typedef enum {
  OXP_FAULT_FAIL = 1, /* the call fails with the armed errno */
  OXP_FAULT_SHORT,    /* the call moves only part of its bytes (reads,
                         writes, copies; others fail instead) */
} oxp_fault_action;

typedef enum {
  OXP_FAULT_ONCE,     /* only the nth call fails */
  OXP_FAULT_SHORT_ONCE, /* the nth call is short, later ones work */
  OXP_FAULT_FILL,     /* the nth call is short and every later call of
                         the kind fails with the errno: a disk filling */
  OXP_FAULT_PERSIST   /* the nth call and every later one fail */
} oxp_fault_mode;

/* ---- for tests ------------------------------------------------------- */

/* Starts counting calls of every kind from zero, failing none. */
void oxp_fault_count(void);
/* Counting as above, and the nth call (1-based) of kind k fails with err
 * (ENOMEM for allocations, EIO, ENOSPC, ...) as mode says. */
void oxp_fault_arm(oxp_fault_kind k, long nth, int err, oxp_fault_mode mode);
/* Makes every call of kind k fail with err while armed (0: stops it),
 * uncounted: the system as it is elsewhere (no O_TMPFILE, no
 * copy_file_range across filesystems, no RENAME_EXCHANGE), so that the
 * fallback paths are counted and failed in turn too. */
void oxp_fault_condition(oxp_fault_kind k, int err);
/* Calls of kind k since counting started. */
long oxp_fault_calls(oxp_fault_kind k);
/* Failures injected since arming. */
long oxp_fault_fired(void);
/* Back to a normal run: no counting, no failures. */
void oxp_fault_disarm(void);
/* "alloc", "open", ...; NULL past the last kind. */
const char *oxp_fault_kind_name(oxp_fault_kind k);

/* ---- for the library ----------------------------------------------- */

extern int oxp_fault_on_;
int oxp_fault_hit_(oxp_fault_kind k);

/* 0 to go ahead, else an oxp_fault_action (errno is then set for FAIL). */
static inline int oxp_fault(oxp_fault_kind k) {
  if (__builtin_expect(__atomic_load_n(&oxp_fault_on_, __ATOMIC_RELAXED), 0))
    return oxp_fault_hit_(k);
  return 0;
}

#endif
