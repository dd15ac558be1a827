/* pass_util.h: helpers the pass test suites share: building small ONNX
 * graphs by hand, parsing TorchScript IR text, and printing a block as a
 * compact string ("Relu(x)->y; Add(y,b)->z") to assert exact graphs. */
#ifndef PASS_UTIL_H
#define PASS_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "passes.h"

static oxp_arena *A;
static oxp_graph *G;

static __attribute__((unused)) void pu_setup(void) {
  A = oxp_arena_new();
  G = oxp_graph_new(A, "t.ir");
}
static __attribute__((unused)) void pu_teardown(void) { oxp_arena_free(A); }

static __attribute__((unused)) oxp_options pu_opts(void) {
  oxp_options o;
  oxp_options_init(&o);
  return o;
}

static __attribute__((unused)) oxp_type *ty(int dt, int rank, const int64_t *dims) {
  return oxp_type_tensor(A, dt, rank, dims);
}

/* A user input; params (may be NULL) names dims, NULL entries static. */
static __attribute__((unused)) oxp_value *in_val(const char *name, int dt, int rank, const int64_t *dims,
                         const char *const *params) {
  oxp_type *t = ty(dt, rank, dims);
  if (params) {
    t->dim_params = oxp_alloc(A, sizeof(char *) * (size_t)rank);
    for (int i = 0; i < rank; i++) {
      t->dim_params[i] = params[i];
      if (params[i]) t->dims[i] = -1;
    }
  }
  return oxp_block_add_input(G->top, name, t);
}

static __attribute__((unused)) oxp_value *const_i64(const char *name, int rank, const int64_t *v, int n) {
  int64_t d = n;
  oxp_tensor *t = oxp_tensor_alloc(A, OXP_DT_INT64, rank, rank ? &d : NULL);
  memcpy((void *)t->data, v, 8 * (size_t)n);
  oxp_value *c = oxp_value_new(G, name, ty(OXP_DT_INT64, rank, rank ? &d : NULL));
  c->init = t;
  oxp_block_add_init(G->top, c);
  return c;
}

static __attribute__((unused)) oxp_value *const_f32(const char *name, int rank, const int64_t *dims,
                            const float *v) {
  oxp_tensor *t = oxp_tensor_alloc(A, OXP_DT_FLOAT, rank, dims);
  memcpy((void *)t->data, v, t->nbytes);
  oxp_value *c = oxp_value_new(G, name, ty(OXP_DT_FLOAT, rank, dims));
  c->init = t;
  oxp_block_add_init(G->top, c);
  return c;
}

/* A weight input bound to read-only data (as from the mmap). */
static __attribute__((unused)) oxp_value *weight(const char *name, int rank, const int64_t *dims,
                         const float *v) {
  oxp_value *w = oxp_block_add_input(G->top, name, ty(OXP_DT_FLOAT, rank, dims));
  int64_t m = 1;
  for (int i = 0; i < rank; i++) m *= dims[i];
  w->init = oxp_tensor_new(A, OXP_DT_FLOAT, rank, dims, v, 4 * (size_t)m);
  return w;
}

/* Appends "onnx::<op>" with the inputs (NULL-terminated) and one output
 * named out. */
static __attribute__((unused)) oxp_node *op(const char *kind, const char *out, oxp_value *a,
                    oxp_value *b, oxp_value *c) {
  char k[64];
  snprintf(k, sizeof k, "onnx::%s", kind);
  oxp_node *n = oxp_node_new(G, oxp_strdup(A, k), 1);
  oxp_value *ins[3] = {a, b, c};
  for (int i = 0; i < 3 && ins[i]; i++) oxp_node_add_input(n, ins[i]);
  n->outputs[0]->name = out;
  n->loc = (oxp_loc){"t.ir", 7, 3};
  oxp_block_append(G->top, n);
  return n;
}

static __attribute__((unused)) oxp_value *out0(oxp_node *n) { return n->outputs[0]; }

/* "Op[attr](a,b)->y; ..." of block b, attributes by name only. */
static __attribute__((unused)) const char *pu_str(const oxp_block *b) {
  static char buf[4096];
  size_t at = 0;
  buf[0] = 0;
  for (const oxp_node *n = b->first; n; n = n->next) {
    const char *k = strstr(n->kind, "::") ? strstr(n->kind, "::") + 2 : n->kind;
    at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s(", at ? "; " : "", k);
    for (int i = 0; i < n->ninputs; i++)
      at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s", i ? "," : "",
                             n->inputs[i] ? (n->inputs[i]->name ? n->inputs[i]->name : "?") : "");
    at += (size_t)snprintf(buf + at, sizeof buf - at, ")->%s",
                           n->noutputs && n->outputs[0]->name ? n->outputs[0]->name : "?");
  }
  return buf;
}

static __attribute__((unused)) const char *pu_type(const oxp_value *v) {
  static char buf[256];
  oxp_type_print(v->type, buf, sizeof buf);
  return buf;
}

static __attribute__((unused)) oxp_pass pu_pass(const oxp_options *o, oxp_diag *d) {
  oxp_pass p;
  ck_assert_int_eq(oxp_pass_init(&p, G, o, d), OXP_OK);
  return p;
}

/* Parses IR text into G (replacing the empty graph). */
static __attribute__((unused)) void pu_parse(const char *text) {
  oxp_diag d = {0};
  oxp_status st = oxp_parse_ir(A, "t.ir", text, strlen(text), &G, &d);
  ck_assert_msg(st == OXP_OK, "parse: %s", d.message);
}

#endif
