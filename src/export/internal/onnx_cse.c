/* onnx_cse.c: common subexpression elimination on the ONNX graph. Two
 * nodes of the same op with the same inputs and attributes compute the
 * same thing; the later one's outputs are replaced by the earlier one's.
 * Lowering emits such twins freely (each x.size(0) is its own
 * Shape/Gather/Unsqueeze), as torch's exporter does before its CSE pass.
 * One walk in graph order with a hash map keyed by the node's signature,
 * so the pass is linear. Nodes with blocks, with random outputs, or with
 * tensor attributes are left alone. */
#include <stdio.h>
#include <string.h>

#include "passes.h"

typedef struct {
  char *buf;
  size_t len, cap;
  oxp_arena *a;
  bool ok;
} sig;

static void put(sig *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sig *s, const char *fmt, ...) {
  if (!s->ok) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    if (n < 0) { s->ok = false; return; }
    if ((size_t)n < s->cap - s->len) { s->len += (size_t)n; return; }
    size_t nc = s->cap * 2 + (size_t)n;
    char *nb = oxp_realloc(s->a, s->buf, s->cap, nc);
    if (!nb) { s->ok = false; return; }
    s->buf = nb;
    s->cap = nc;
  }
}

static bool random_op(const char *op) {
  return strncmp(op, "Random", 6) == 0 || strcmp(op, "Multinomial") == 0 ||
         strcmp(op, "Dropout") == 0 || strcmp(op, "Bernoulli") == 0;
}

/* "Op|in ids|attrs", or NULL when the node must not be merged. */
static const char *signature(sig *s, const oxp_node *n) {
  const char *op = oxp_pass_onnx_op(n);
  if (!op || n->nblocks || random_op(op)) return NULL;
  s->len = 0;
  s->ok = true;
  s->buf[0] = 0;
  put(s, "%s|%d", n->kind, n->noutputs);
  for (int i = 0; i < n->ninputs; i++) put(s, "|%d", n->inputs[i] ? n->inputs[i]->id : -1);
  for (const oxp_attr *a = n->attrs; a; a = a->next) {
    put(s, "|%s=", a->name);
    switch (a->kind) {
    case OXP_A_INT: put(s, "i%lld", (long long)a->i); break;
    case OXP_A_FLOAT: put(s, "f%.17g", a->f); break;
    case OXP_A_STR: put(s, "s%zu:%s", strlen(a->s ? a->s : ""), a->s ? a->s : ""); break;
    case OXP_A_INTS:
      for (int k = 0; k < a->n; k++) put(s, "%lld,", (long long)a->ints[k]);
      break;
    case OXP_A_FLOATS:
      for (int k = 0; k < a->n; k++) put(s, "%.17g,", a->floats[k]);
      break;
    default: return NULL;
    }
  }
  return s->ok ? oxp_strndup(s->a, s->buf, s->len) : NULL;
}

static oxp_status cse_block(oxp_pass *p, oxp_block *b, sig *s) {
  oxp_map seen;
  oxp_map_init(&seen, p->g->arena);
  OXP_FOR_NODES(b, n, nx) {
    for (int k = 0; k < n->nblocks; k++) {
      oxp_status st = cse_block(p, n->blocks[k], s);
      if (st) return st;
    }
    const char *key = signature(s, n);
    if (!key) continue;
    oxp_node *twin = oxp_map_get(&seen, key);
    if (!twin) {
      if (!oxp_map_put(&seen, key, n))
        return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
      continue;
    }
    /* A graph output keeps its own producer (and so its name). */
    bool out = false;
    for (int i = 0; i < n->noutputs; i++) out |= oxp_pass_is_out(p, n->outputs[i]);
    if (out) continue;
    for (int i = 0; i < n->noutputs; i++)
      oxp_value_replace_uses(n->outputs[i], twin->outputs[i]);
    oxp_node_destroy(n);
  }
  return OXP_OK;
}

oxp_status oxp_onnx_cse(oxp_pass *p) {
  sig s = {.a = p->g->arena, .cap = 256};
  s.buf = oxp_alloc(s.a, s.cap);
  if (!s.buf) return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return cse_block(p, p->g->top, &s);
}
