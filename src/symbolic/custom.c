/* custom.c: the run-time registry of custom symbolics (the backing of
 * register_custom_op_symbolic). Shared by every export in the process,
 * so it is guarded by a reader-writer lock; entries are few, so a list. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sym.h"

typedef struct custom {
  struct custom *next;
  char *op;
  int opset;
  oxp_custom_fn fn;
  void *user;
} custom;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static custom *head;

oxp_status oxp_custom_register(const char *op, int opset, oxp_custom_fn fn,
                               void *user, oxp_diag *d) {
  if (!op || !fn || !strstr(op, "::"))
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "custom symbolic needs an op named 'namespace::name' and a function");
  if (opset < 1)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL, "custom symbolic opset %d is invalid", opset);
  pthread_rwlock_wrlock(&lock);
  custom *e = head;
  while (e && !(e->opset == opset && strcmp(e->op, op) == 0)) e = e->next;
  if (!e) {
    e = oxp_mem_calloc(1, sizeof *e);
    char *name = e ? oxp_mem_strdup(op) : NULL;
    if (!name) {
      free(e);
      pthread_rwlock_unlock(&lock);
      return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    }
    e->op = name;
    e->opset = opset;
    e->next = head;
    head = e;
  }
  e->fn = fn;
  e->user = user;
  pthread_rwlock_unlock(&lock);
  return OXP_OK;
}

bool oxp_custom_unregister(const char *op, int opset) {
  bool found = false;
  pthread_rwlock_wrlock(&lock);
  for (custom **p = &head; *p; p = &(*p)->next) {
    custom *e = *p;
    if (e->opset == opset && strcmp(e->op, op) == 0) {
      *p = e->next;
      free(e->op);
      free(e);
      found = true;
      break;
    }
  }
  pthread_rwlock_unlock(&lock);
  return found;
}

bool oxp_custom_lookup(const char *op, int opset, oxp_custom_fn *fn,
                       void **user) {
  int best = 0;
  pthread_rwlock_rdlock(&lock);
  for (custom *e = head; e; e = e->next)
    if (e->opset <= opset && e->opset > best && strcmp(e->op, op) == 0) {
      best = e->opset;
      *fn = e->fn;
      *user = e->user;
    }
  pthread_rwlock_unlock(&lock);
  return best > 0;
}
