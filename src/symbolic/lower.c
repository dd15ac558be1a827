/* lower.c: the lowering driver. Walks the TorchScript graph once, in
 * order, and hands each node to the symbolic of its op at the target
 * opset. Structural prim:: nodes (constants, lists, tuples) emit nothing
 * themselves: consumers read them through the helpers in sym_read.c. */
#include <stdio.h>
#include <string.h>

#include "lower_ctx.h"
#include "../export/internal/passes.h"
#include "s_control.h"
#include "s_quantized.h"

oxp_value *oxp_lower_lookup(oxp_sctx *c, oxp_value *src) {
  return src && src->id < c->nenv ? c->env[src->id] : NULL;
}

oxp_pack *oxp_lower_pack(oxp_sctx *c, oxp_value *src) {
  return src && src->id < c->nenv ? c->packs[src->id] : NULL;
}

void oxp_lower_bind(oxp_sctx *c, oxp_value *src, oxp_value *dst) {
  if (src && src->id < c->nenv) c->env[src->id] = dst;
}

void oxp_lower_bind_pack(oxp_sctx *c, oxp_value *src, oxp_pack *p) {
  if (src && src->id < c->nenv) c->packs[src->id] = p;
}

int oxp_lower_scalar_dtype(const oxp_type *t) {
  if (!t) return 0;
  switch (t->kind) {
  case OXP_T_TENSOR: return t->dtype;
  case OXP_T_INT: return OXP_DT_INT64;
  case OXP_T_FLOAT: return OXP_DT_FLOAT;
  case OXP_T_BOOL: return OXP_DT_BOOL;
  case OXP_T_OPTIONAL: return oxp_lower_scalar_dtype(t->elem);
  default: return 0;
  }
}

static bool is_structural(const oxp_node *n) {
  return oxp_kind_is(n, "prim::Constant") ||
         oxp_kind_is(n, "prim::ListConstruct") ||
         oxp_kind_is(n, "prim::TupleConstruct");
}

/* ListUnpack / TupleUnpack: outputs alias the elements of the pack. */
static oxp_status lower_unpack(oxp_sctx *c, oxp_node *n) {
  if (n->ninputs != 1 || !n->inputs[0])
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s takes one list or tuple, not %d inputs",
                        n->kind, n->ninputs);
  oxp_value *in = n->inputs[0];
  oxp_node *k = in->producer;
  oxp_pack *p = oxp_lower_pack(c, in);
  if (!p && k && (oxp_kind_is(k, "prim::ListConstruct") ||
                  oxp_kind_is(k, "prim::TupleConstruct"))) {
    /* Alias directly, so unpacked constants stay constants. */
    if (k->ninputs != n->noutputs)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s of %d values into %d outputs",
                          n->kind, k->ninputs, n->noutputs);
    for (int i = 0; i < n->noutputs; i++) {
      oxp_value *e = k->inputs[i];
      oxp_value *lv = oxp_lower_lookup(c, e);
      oxp_pack *lp = oxp_lower_pack(c, e);
      if (lv) oxp_lower_bind(c, n->outputs[i], lv);
      else if (lp) oxp_lower_bind_pack(c, n->outputs[i], lp);
      else if (is_structural(e->producer ? e->producer : n)) {
        /* Constant or nested list: let consumers read it in place. */
        oxp_value *alias = n->outputs[i];
        oxp_value_replace_uses(alias, e);
      } else
        return oxp_sym_fail(c, OXP_ERR_INTERNAL, "unpacked value %%%s unbound",
                            e->name ? e->name : "?");
    }
    return OXP_OK;
  }
  if (!p)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s of %%%s: the list is not built statically",
                        n->kind, in->name ? in->name : "?");
  if (p->n != n->noutputs)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "%s of %d values into %d outputs",
                        n->kind, p->n, n->noutputs);
  for (int i = 0; i < n->noutputs; i++) oxp_sym_set_out(c, n, i, p->vals[i]);
  return OXP_OK;
}

static oxp_status check_outputs(oxp_sctx *c, oxp_node *n);
static oxp_status finish(oxp_sctx *c, oxp_node *n, oxp_status st);

static oxp_status lower_node(oxp_sctx *c, oxp_node *n) {
  c->node = n;
  if (oxp_arity_check(c, n)) return c->d->status;
  if (is_structural(n)) return OXP_OK;
  if (oxp_kind_is(n, "prim::ListUnpack") || oxp_kind_is(n, "prim::TupleUnpack"))
    return lower_unpack(c, n);
  /* Quantized tensors: quantized:: symbolics read them themselves, other
   * ops only through the dequantize-and-requantize rows (s_quantized.c). */
  if (strncmp(n->kind, "quantized::", 11) != 0 && oxp_q_has_input(c, n))
    return finish(c, n, oxp_q_args(c, n, oxp_sym_lookup(n->kind, c->opset, NULL)));
  oxp_custom_fn cfn;
  void *user;
  oxp_status st;
  /* --operator-export-type (s_fallback.c; declared here because this
   * function is the only hook lower.c offers for it). */
  oxp_status oxp_s_aten_fallback(oxp_sctx *c, oxp_node *n, bool passthrough);
  oxp_export_type et = c->o->export_type;
  bool is_aten = strncmp(n->kind, "aten::", 6) == 0;
  if (et == OXP_OET_ONNX_ATEN && is_aten) {
    st = oxp_s_aten_fallback(c, n, false);
    return finish(c, n, st);
  }
  if (oxp_custom_lookup(n->kind, c->opset, &cfn, &user)) {
    st = cfn(c, n, user);
    return finish(c, n, st);
  }
  struct oxp_kind_memo *m = oxp_kind_memo_slot(c->sym_memo, n->kind);
  if (m->kind != n->kind) m->kind = n->kind, m->fn = oxp_sym_lookup(n->kind, c->opset, NULL);
  oxp_symbolic_fn fn = m->fn;
  if (!fn && ((et == OXP_OET_ONNX_ATEN_FALLBACK && is_aten) ||
              et == OXP_OET_ONNX_FALLTHROUGH)) {
    st = oxp_s_aten_fallback(c, n, et == OXP_OET_ONNX_FALLTHROUGH);
    return finish(c, n, st);
  }
  if (!fn) {
    const char *why = oxp_sym_why_not(n->kind);
    if (why) return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s is not supported: %s", n->kind, why);
    int first = 0;
    oxp_sym_lookup(n->kind, OXP_OPSET_MAX, &first);
    if (first > c->opset)
      return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                          "%s is not supported at opset %d (supported from opset %d)",
                          n->kind, c->opset, first);
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s is not supported at opset %d",
                        n->kind, c->opset);
  }
  return finish(c, n, fn(c, n));
}

/* A symbolic's result: a failure always carries a diagnostic, so callers
 * never see an error status with an empty message. */
static oxp_status finish(oxp_sctx *c, oxp_node *n, oxp_status st) {
  if (st == OXP_OK) return check_outputs(c, n);
  if (!c->d->status)
    oxp_sym_fail(c, st, "%s: the symbolic failed without a diagnostic", n->kind);
  return c->d->status;
}

/* A symbolic must bind every output that something reads. */
static oxp_status check_outputs(oxp_sctx *c, oxp_node *n) {
  if (c->d->status) return c->d->status;
  for (int i = 0; i < n->noutputs; i++) {
    oxp_value *o = n->outputs[i];
    if (o->nuses == 0 && !oxp_value_is_block_output(o)) continue;
    if (!oxp_lower_lookup(c, o) && !oxp_lower_pack(c, o))
      return oxp_sym_fail(c, OXP_ERR_INTERNAL,
                          "%s: symbolic left output %%%s unbound", n->kind,
                          o->name ? o->name : "?");
  }
  return OXP_OK;
}

/* In order; a node may append nodes after itself (a folded prim::If
 * moves its chosen block there), and they are lowered next. Control-flow
 * symbolics call this for their blocks (s_control.c). */
/* With dynamic axes a traced dim is only a sample: each TorchScript
 * output keeps the dims inference proved static for its ONNX value, and
 * forgets the rest, so later symbolics cannot bake a dynamic size. */
static void forget_dynamic_dims(oxp_sctx *c, oxp_node *n) {
  for (int i = 0; i < n->noutputs; i++) {
    oxp_value *s = n->outputs[i], *v = oxp_lower_lookup(c, s);
    oxp_type *st = s->type;
    if (!v || !st || st->kind != OXP_T_TENSOR || st->rank <= 0) continue;
    const oxp_type *vt = v->type;
    bool same = vt && vt->kind == OXP_T_TENSOR && vt->rank == st->rank;
    oxp_type *nt = oxp_type_copy(c->src->arena, st);
    if (!nt) continue;
    for (int k = 0; k < nt->rank; k++) {
      bool known = same && vt->dims[k] >= 0 && !(vt->dim_params && vt->dim_params[k]);
      nt->dims[k] = known ? vt->dims[k] : -1;
    }
    nt->dim_params = NULL;
    s->type = nt;
  }
}

oxp_status oxp_lower_nodes(oxp_sctx *c, oxp_block *b) {
  oxp_status st;
  for (oxp_node *n = b->first; n; n = n->next) {
    oxp_block *cur = c->cur;
    oxp_node *mark = cur->last;
    if ((st = lower_node(c, n))) return st;
    /* Type what the symbolic made, in order, before the next one reads. */
    for (oxp_node *k = mark ? mark->next : cur->first; k; k = k->next)
      oxp_si_live_node(c->live, k);
    if (!c->static_shapes) forget_dynamic_dims(c, n);
  }
  return OXP_OK;
}

static void live_infer(void *ctx, oxp_node *n) {
  oxp_sctx *c = ctx;
  oxp_si_live_node(c->live, n);
}

/* Graph outputs: tuples and lists are flattened, as the legacy exporter
 * does, in order. */
static oxp_status add_outputs(oxp_sctx *c, oxp_value *v) {
  oxp_node *k = v->producer;
  if (k && (oxp_kind_is(k, "prim::TupleConstruct") ||
            oxp_kind_is(k, "prim::ListConstruct"))) {
    for (int i = 0; i < k->ninputs; i++) {
      oxp_status st = add_outputs(c, k->inputs[i]);
      if (st) return st;
    }
    return OXP_OK;
  }
  oxp_pack *p = oxp_lower_pack(c, v);
  if (p && p->quant)
    return oxp_fail(c->d, OXP_ERR_UNSUPPORTED, NULL, NULL,
                    "graph output %%%s is a quantized tensor, which ONNX has no "
                    "type for: dequantize it in the model (a DeQuantStub)",
                    v->name ? v->name : "?");
  if (p) {
    for (int i = 0; i < p->n; i++)
      if (p->vals[i] && !oxp_block_add_output(c->dst->top, p->vals[i]))
        return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    return OXP_OK;
  }
  oxp_value *lv = oxp_lower_lookup(c, v);
  if (!lv && k && oxp_kind_is(k, "prim::Constant")) {
    oxp_node ret = {.kind = "return", .inputs = &v, .ninputs = 1};
    c->node = &ret;
    lv = oxp_sym_in(c, &ret, 0);
    c->node = NULL;
  }
  /* oxp_sym_in may have said why already: its status is the one. */
  if (!lv)
    return c->d->status ? c->d->status
                        : oxp_fail(c->d, OXP_ERR_GRAPH, NULL, NULL,
                                   "graph output %%%s has no lowered value",
                                   v->name ? v->name : "?");
  /* An output that is also an input, an initializer or an earlier output
   * needs its own node so it can carry its own name. */
  bool dup = false;
  for (int i = 0; i < c->dst->top->noutputs; i++)
    dup |= c->dst->top->outputs[i] == lv;
  if (!lv->producer || dup) {
    oxp_value *from = lv;
    c->node = NULL;
    lv = oxp_sym_op1(c, "Identity", from);
    if (lv) {
      lv->type = oxp_type_copy(c->dst->arena, from->type);
      lv->name = v->name;
    }
  }
  if (!lv || !oxp_block_add_output(c->dst->top, lv))
    return oxp_fail(c->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  return OXP_OK;
}

/* A non-tensor type as the IR would spell it, near enough for a message. */
static const char *type_word(const oxp_type *t) {
  if (!t) return "?";
  switch (t->kind) {
  case OXP_T_OTHER: return t->name ? t->name : "?";
  case OXP_T_STR: return "str";
  case OXP_T_NONE: return "NoneType";
  case OXP_T_DEVICE: return "Device";
  case OXP_T_LIST: return "list";
  case OXP_T_TUPLE: return "tuple";
  case OXP_T_OPTIONAL: return "Optional";
  default: return "non-tensor";
  }
}

oxp_status oxp_lower(oxp_graph *src, const oxp_options *o, oxp_graph **out,
                     oxp_diag *d) {
  oxp_arena *a = src->arena;
  oxp_sctx ctx = {0}, *c = &ctx;
  c->src = src;
  c->o = o;
  c->d = d;
  c->opset = o->opset;
  c->static_shapes = o->n_dynamic_axes == 0;
  if (o->opset < OXP_OPSET_MIN || o->opset > OXP_OPSET_MAX)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "opset %d is outside the supported range %d..%d",
                    o->opset, OXP_OPSET_MIN, OXP_OPSET_MAX);
  c->dst = oxp_graph_new(a, src->file);
  c->env = oxp_alloc(a, sizeof *c->env * (size_t)(src->nvalues + 1));
  c->packs = oxp_alloc(a, sizeof *c->packs * (size_t)(src->nvalues + 1));
  c->nenv = src->nvalues + 1;
  if (!c->dst || !c->env || !c->packs)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  c->cur = c->dst->top;
  c->live = oxp_si_live_open(c->dst, o);
  if (!c->live) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  c->dst->infer = live_infer;
  c->dst->infer_ctx = c;
  oxp_map_init(&c->kinds, c->dst->arena);
  oxp_status st;

  oxp_block *top = src->top;
  for (int i = 0; i < top->ninputs; i++) {
    oxp_value *in = top->inputs[i];
    oxp_type *t = NULL;
    if (in->type && in->type->kind == OXP_T_TENSOR && !in->type->dtype && !in->init)
      return oxp_fail(d, OXP_ERR_UNSUPPORTED,
                      src->input_locs ? &src->input_locs[i] : NULL, NULL,
                      "graph input %%%s is a Tensor of unknown dtype: an ONNX "
                      "input needs one, and it is never guessed",
                      in->name ? in->name : "?");
    if (in->type && in->type->kind == OXP_T_TENSOR)
      t = oxp_type_copy(a, in->type);
    else if (oxp_lower_scalar_dtype(in->type))
      t = oxp_type_tensor(a, oxp_lower_scalar_dtype(in->type), 0, NULL);
    else
      return oxp_fail(d, OXP_ERR_UNSUPPORTED,
                      src->input_locs ? &src->input_locs[i] : NULL, NULL,
                      "graph input %%%s has type '%s': only tensors and "
                      "scalars can be graph inputs",
                      in->name ? in->name : "?", type_word(in->type));
    oxp_value *v = t ? oxp_block_add_input(c->dst->top, in->name, t) : NULL;
    if (!v) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
    v->init = in->init;
    oxp_lower_bind(c, in, v);
  }
  st = oxp_lower_nodes(c, top);
  for (int i = 0; !st && i < top->noutputs; i++) st = add_outputs(c, top->outputs[i]);
  /* The hook points into this stack frame. */
  c->dst->infer = NULL;
  c->dst->infer_ctx = NULL;
  if (st) return st;
  *out = c->dst;
  return OXP_OK;
}
