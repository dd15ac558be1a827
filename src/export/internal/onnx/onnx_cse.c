/* onnx_cse.c: common subexpression elimination on the ONNX graph. Two
 * nodes of the same op with the same inputs and attributes compute the
 * same thing; the later one's outputs are replaced by the earlier one's.
 * Lowering emits such twins freely (each x.size(0) is its own
 * Shape/Gather/Unsqueeze), as torch's exporter does before its CSE pass.
 * One walk in graph order with a hash map keyed by the node's signature,
 * so the pass is linear. Nodes with blocks, with random outputs, or with
 * tensor attributes are left alone. */
#include <stdint.h>
#include <string.h>

#include "passes.h"

typedef struct {
  char *buf;
  size_t len, cap;
  oxp_arena *a;
  bool ok;
} sig;

/* The signature is text (the map's keys are C strings) written without
 * printf, which was most of this pass's time: numbers in hexadecimal,
 * floats by their bits (NaNs all alike, -0 apart from 0, as "%.17g"
 * would have it), strings with their length in front. */
static void put_mem(sig *s, const char *p, size_t n) {
  if (!s->ok) return;
  if (s->cap - s->len <= n) {
    size_t nc = s->cap * 2 + n;
    char *nb = oxp_realloc(s->a, s->buf, s->cap, nc);
    if (!nb) { s->ok = false; return; }
    s->buf = nb;
    s->cap = nc;
  }
  memcpy(s->buf + s->len, p, n);
  s->len += n;
}

static void put_ch(sig *s, char c) { put_mem(s, &c, 1); }

static void put_u(sig *s, uint64_t v) {
  char t[16];
  int n = 0;
  do t[15 - n++] = "0123456789abcdef"[v & 15]; while (v >>= 4);
  put_mem(s, t + 16 - n, (size_t)n);
}

static void put_i(sig *s, long long v) {
  if (v < 0) put_ch(s, '-');
  put_u(s, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

static void put_f(sig *s, double f) {
  uint64_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (f != f) put_ch(s, 'n');
  else put_u(s, bits);
}

static void put_s(sig *s, const char *str) {
  size_t n = strlen(str);
  put_u(s, n);
  put_ch(s, ':');
  put_mem(s, str, n);
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
  put_s(s, n->kind);
  put_ch(s, '|');
  put_i(s, n->noutputs);
  for (int i = 0; i < n->ninputs; i++) {
    put_ch(s, '|');
    put_i(s, n->inputs[i] ? n->inputs[i]->id : -1);
  }
  for (const oxp_attr *a = n->attrs; a; a = a->next) {
    put_ch(s, '|');
    put_s(s, a->name);
    put_ch(s, "ifsIF"[a->kind == OXP_A_INT ? 0 : a->kind == OXP_A_FLOAT ? 1 : a->kind == OXP_A_STR ? 2
                                                : a->kind == OXP_A_INTS ? 3 : 4]);
    switch (a->kind) {
    case OXP_A_INT: put_i(s, (long long)a->i); break;
    case OXP_A_FLOAT: put_f(s, a->f); break;
    case OXP_A_STR: put_s(s, a->s ? a->s : ""); break;
    case OXP_A_INTS:
      for (int k = 0; k < a->n; k++) put_i(s, (long long)a->ints[k]), put_ch(s, ',');
      break;
    case OXP_A_FLOATS:
      for (int k = 0; k < a->n; k++) put_f(s, a->floats[k]), put_ch(s, ',');
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
