/* shape_ctx.h: the state shape inference carries through one walk, shared
 * by the walk (shape_infer.c) and the accessors the rules call
 * (shape_ctx.c). Private to those two files. */
#ifndef OXP_SHAPE_CTX_H
#define OXP_SHAPE_CTX_H

#include "passes.h"
#include "shape_rules.h"

typedef struct {
  int n;       /* elements */
  bool rank0;  /* a 0-d tensor */
  int64_t v[OXP_MAX_SHAPE_RANK];
  const char *p[OXP_MAX_SHAPE_RANK];
} symdata;

struct oxp_sictx {
  oxp_pass *p;
  symdata **data; /* by value id */
  int ndata;
  oxp_map rules;
  /* The rules of recent op names, by the name's address: lowering makes
   * one string per ONNX kind, so most nodes are found here, not hashed. */
  struct {
    const char *op; /* NULL: empty */
    oxp_shape_rule fn;
  } recent[32];
};

/* v's symbolic int data: recorded by a rule, or read from a constant into
 * *tmp; NULL when neither. */
const symdata *oxp_si_data(const oxp_sictx *c, const oxp_value *v,
                           symdata *tmp);

#endif
