/* shape_rules.h: what the per-op shape rules (shape_rules*.c) share:
 * reading attributes and constant int inputs, and editing shapes. */
#ifndef OXP_SHAPE_RULES_H
#define OXP_SHAPE_RULES_H

#include <limits.h>
#include <string.h>

#include "passes.h"

#define IN(i, s) oxp_si_in(c, n, (i), (s))
#define MAXR OXP_MAX_SHAPE_RANK

static inline int64_t attr_i(const oxp_node *n, const char *name, int64_t dflt) {
  const oxp_attr *a = oxp_attr_get(n, name);
  return a && a->kind == OXP_A_INT ? a->i : dflt;
}

/* Ints from an attribute; -1 when absent. */
static inline int attr_ints(const oxp_node *n, const char *name, int64_t *v) {
  const oxp_attr *a = oxp_attr_get(n, name);
  if (!a || a->kind != OXP_A_INTS || a->n > MAXR) return -1;
  memcpy(v, a->ints, sizeof(int64_t) * (size_t)a->n);
  return a->n;
}

/* Constant ints from an input (all elements known); -1 otherwise. */
static inline int input_ints(oxp_sictx *c, const oxp_node *n, int i, int64_t *v) {
  int k = oxp_si_ints(c, n, i, v, NULL, NULL);
  for (int j = 0; j < k; j++)
    if (v[j] == OXP_SYM_UNKNOWN) return -1;
  return k;
}

/* A known scalar from input i (one element); input_ints writes up to
 * OXP_MAX_SHAPE_RANK elements, so a scalar destination needs this. */
static inline bool input_int1(oxp_sictx *c, const oxp_node *n, int i, int64_t *v) {
  int64_t buf[OXP_MAX_SHAPE_RANK];
  if (input_ints(c, n, i, buf) != 1) return false;
  *v = buf[0];
  return true;
}

/* Axes as the attribute (older opsets) or input i (newer). */
static inline int axes_of(oxp_sictx *c, const oxp_node *n, int i, int64_t *v) {
  int k = attr_ints(n, "axes", v);
  return k >= 0 ? k : input_ints(c, n, i, v);
}

static inline bool norm_axis(int64_t *a, int rank) {
  if (*a < 0) *a += rank;
  return *a >= 0 && *a < rank;
}

/* Arithmetic on dims and on sizes from attributes and constants, which
 * the IR can set to any int64 (signed overflow is undefined in C).
 * DIM_OVER marks an overflow and sticks through later steps, so a rule
 * computes on and stores the result with set_dim_or_unknown. */
#define DIM_OVER INT64_MIN
static inline int64_t dadd(int64_t a, int64_t b) {
  int64_t r;
  return a == DIM_OVER || b == DIM_OVER || __builtin_add_overflow(a, b, &r) ? DIM_OVER : r;
}
static inline int64_t dsub(int64_t a, int64_t b) {
  int64_t r;
  return a == DIM_OVER || b == DIM_OVER || __builtin_sub_overflow(a, b, &r) ? DIM_OVER : r;
}
static inline int64_t dmul(int64_t a, int64_t b) {
  int64_t r;
  return a == DIM_OVER || b == DIM_OVER || __builtin_mul_overflow(a, b, &r) ? DIM_OVER : r;
}
/* b > 0. */
static inline int64_t ddiv(int64_t a, int64_t b) {
  return a == DIM_OVER || b <= 0 ? DIM_OVER : a / b;
}

static inline void set_dim(oxp_shape *s, int i, int64_t d, const char *p) {
  s->d[i] = p ? -1 : d;
  s->p[i] = p;
}

/* A computed dim: an overflow or a negative size is unknown. */
static inline void set_dim_or_unknown(oxp_shape *s, int i, int64_t d) {
  set_dim(s, i, d < 0 ? -1 : d, NULL);
}

static inline void copy_dim(oxp_shape *o, int i, const oxp_shape *s, int j) {
  o->d[i] = s->d[j];
  o->p[i] = s->p[j];
}

static inline void unknown_dims(oxp_shape *s, int dtype, int rank) {
  s->dtype = dtype;
  s->rank = rank;
  for (int i = 0; i < rank && i < MAXR; i++) s->d[i] = -1, s->p[i] = NULL;
}

/* Product of dims [from, to): a value, the one name times ones, or unknown. */
static inline void product(const oxp_shape *s, int from, int to, int64_t *d,
                    const char **p) {
  int64_t v = 1;
  const char *name = NULL;
  int names = 0;
  for (int i = from; i < to; i++) {
    if (s->p[i]) names++, name = s->p[i];
    else if (s->d[i] < 0) names = 2;
    else if (__builtin_mul_overflow(v, s->d[i], &v)) names = 2; /* unknown */
  }
  *d = names == 0 ? v : -1;
  *p = names == 1 && v == 1 ? name : NULL;
}

/* Same shape and dtype as input 0 (shape_rules.c). */
oxp_status oxp_r_same(oxp_sictx *c, oxp_node *n, oxp_shape *out);
/* Multidirectional broadcast of every input (shape_rules.c). */
oxp_status oxp_r_arith(oxp_sictx *c, oxp_node *n, oxp_shape *out);

/* The second table (shape_rules_ext.c). */
extern const oxp_shape_rule_entry oxp_shape_rules_ext[];
extern const int oxp_nshape_rules_ext;

#endif
