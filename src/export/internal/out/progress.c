/* progress.c: a one-line progress display for long exports.
 *
 * The library never prints: the caller hands in an emit function and
 * decides whether the display is on at all (the CLI: stderr is a terminal
 * and no --quiet). Stages and byte counts are updated from the export
 * thread with atomics; a ticker thread redraws the line ten times a second,
 * so a long pass with no byte traffic still shows its stage and time. The
 * line appears only once the export has run for a second, so quick exports
 * print nothing at all. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serialize.h"

enum { TICK_MS = 100, DELAY_MS = 1000 };

struct oxp_progress {
  oxp_progress_emit emit;
  void *user;
  struct timespec t0;
  _Atomic(const char *) stage;
  _Atomic uint64_t done, total;
  pthread_mutex_t mu; /* serializes emit calls and guards shown/stop */
  pthread_cond_t cv;
  pthread_t ticker;
  bool running, stop, shown;
};

static double elapsed_ms(const oxp_progress *p) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - p->t0.tv_sec) * 1e3 +
         (double)(t.tv_nsec - p->t0.tv_nsec) / 1e6;
}

/* 1536 -> "1.5 KiB"; exact bytes below 1 KiB. */
static void human(uint64_t b, char *buf, size_t n) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  if (u == 0) snprintf(buf, n, "%llu B", (unsigned long long)b);
  else snprintf(buf, n, "%.1f %s", v, unit[u]);
}

void oxp_progress_format(const char *stage, uint64_t done, uint64_t total,
                         double seconds, char *buf, size_t n) {
  char d[32], t[32];
  if (total) {
    human(done, d, sizeof d);
    human(total, t, sizeof t);
    unsigned pct = done >= total ? 100u : (unsigned)(done * 100 / total);
    snprintf(buf, n, "onnxexp: %s %s / %s (%u%%) %.1fs", stage, d, t, pct,
             seconds);
  } else if (done) {
    human(done, d, sizeof d);
    snprintf(buf, n, "onnxexp: %s %s %.1fs", stage, d, seconds);
  } else {
    snprintf(buf, n, "onnxexp: %s %.1fs", stage, seconds);
  }
}

/* Called with mu held. */
static void draw(oxp_progress *p) {
  double ms = elapsed_ms(p);
  if (ms < DELAY_MS) return;
  const char *stage = atomic_load(&p->stage);
  char line[160];
  oxp_progress_format(stage ? stage : "export", atomic_load(&p->done),
                      atomic_load(&p->total), ms / 1e3, line, sizeof line);
  /* "\r" + "erase to end of line": the line is redrawn in place. */
  char out[176];
  snprintf(out, sizeof out, "\r%s\033[K", line);
  p->emit(p->user, out);
  p->shown = true;
}

static void *tick(void *arg) {
  oxp_progress *p = arg;
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += TICK_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->cv, &p->mu, &until);
    if (!p->stop) draw(p);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

oxp_progress *oxp_progress_new(oxp_progress_emit emit, void *user) {
  if (!emit) return NULL;
  oxp_progress *p = oxp_mem_calloc(1, sizeof *p);
  if (!p) return NULL; /* no display is not an error */
  p->emit = emit;
  p->user = user;
  clock_gettime(CLOCK_MONOTONIC, &p->t0);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->running = pthread_create(&p->ticker, NULL, tick, p) == 0;
  return p;
}

void oxp_progress_stage(oxp_progress *p, const char *stage) {
  if (!p) return;
  atomic_store(&p->stage, stage);
  atomic_store(&p->done, 0);
  atomic_store(&p->total, 0);
}

void oxp_progress_total(oxp_progress *p, uint64_t total) {
  if (p) atomic_store(&p->total, total);
}

void oxp_progress_add(oxp_progress *p, uint64_t bytes) {
  if (p) atomic_fetch_add(&p->done, bytes);
}

void oxp_progress_note(oxp_progress *p, const char *msg) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  if (p->shown) p->emit(p->user, "\r\033[K");
  p->emit(p->user, msg);
  p->shown = false; /* the next tick draws the line again below msg */
  pthread_mutex_unlock(&p->mu);
}

void oxp_progress_free(oxp_progress *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = true;
  pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  if (p->running) pthread_join(p->ticker, NULL);
  if (p->shown) p->emit(p->user, "\r\033[K");
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p);
}
