/* s_control.c: prim::If and prim::Loop to ONNX If and Loop.
 *
 * A TorchScript block becomes an ONNX subgraph lowered by the driver's
 * own node loop (lower_block.c). Lists that a block changes but that live
 * outside it become extra values: outputs of the If, carried values of the
 * Loop, so the ONNX graph stays in SSA form as ONNX requires. */
#include "ops.h"
#include "s_control.h"

/* Binds output i of n; a list output is an ONNX sequence. */
static oxp_status bind_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *v) {
  if (!v) return oxp_sym_status(c);
  if (oxp_seq_is_list(n->outputs[i])) {
    if (!v->name) v->name = n->outputs[i]->name;
    oxp_seq_rebind(c, n->outputs[i], v);
    return OXP_OK;
  }
  return oxp_sym_set_out(c, n, i, v);
}

static bool is_uninit(const oxp_value *v) {
  return v->producer && oxp_kind_is(v->producer, "prim::Uninitialized");
}

/* If and Loop take sequences (as outputs, carried values) only from
 * opset 13; before it they are tensor-only. */
static bool seq_flow_ok(oxp_sctx *c, oxp_node *n, const oxp_value *l,
                        const char *what) {
  if (oxp_sym_opset(c) >= 13) return true;
  oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
               "%s: %s (list %%%s) needs ONNX sequences through %s, which "
               "need opset 13 (exporting at opset %d)",
               n->kind, what, l->name ? l->name : "?",
               oxp_kind_is(n, "prim::If") ? "If" : "Loop", oxp_sym_opset(c));
  return false;
}

/* Outer lists changed inside n, as sequences in the current block. */
static int outer_seqs(oxp_sctx *c, oxp_node *n, oxp_value ***lists,
                      oxp_value ***seqs, const char *what) {
  int nl = oxp_ctl_outer_lists(c, n, lists);
  if (nl <= 0) return nl;
  if (!seq_flow_ok(c, n, (*lists)[0], what)) return -1;
  *seqs = oxp_alloc(oxp_sym_arena(c), sizeof **seqs * (size_t)nl);
  if (!*seqs) return -1;
  for (int j = 0; j < nl; j++)
    if (!((*seqs)[j] = oxp_seq_of(c, (*lists)[j], what))) return -1;
  return nl;
}

/* ---- prim::If ---------------------------------------------------------------- */

/* Output type of an If: the traced element type, else the branches'
 * (which must agree: ONNX cannot return different types per branch). */
static oxp_status if_out_type(oxp_sctx *c, oxp_node *n, int i,
                              oxp_value *const *outs, oxp_type **t) {
  oxp_arena *a = oxp_sym_arena(c);
  if (outs[0]->type && outs[0]->type->kind == OXP_T_SEQUENCE) {
    *t = oxp_type_copy(a, outs[0]->type);
    return OXP_OK;
  }
  int dt = oxp_lower_scalar_dtype(oxp_sym_out_type(n, i));
  int d0 = oxp_ctl_dtype(outs[0]), d1 = oxp_ctl_dtype(outs[1]);
  if (!dt && d0 && d1 && d0 != d1)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "prim::If: output %d is %s in one branch and %s in "
                        "the other; ONNX If needs one element type",
                        i, oxp_dtype_name(d0), oxp_dtype_name(d1));
  if (!dt) dt = d0 ? d0 : d1;
  int r0 = oxp_sym_rank(outs[0]), r1 = oxp_sym_rank(outs[1]);
  int rank = r0 == r1 ? r0 : -1;
  int64_t dims[16];
  bool same = rank >= 0 && rank <= 16;
  for (int k = 0; same && k < rank; k++) {
    dims[k] = outs[0]->type->dims[k] == outs[1]->type->dims[k]
                  ? outs[0]->type->dims[k] : -1;
  }
  *t = oxp_type_tensor(a, dt, rank, same ? dims : NULL);
  return OXP_OK;
}

/* A placeholder for an output a branch leaves uninitialized (the path
 * that returns early or raises): a zero of the other branch's type. */
static oxp_value *uninit_value(oxp_sctx *c, const oxp_value *other) {
  if (other->type && other->type->kind == OXP_T_SEQUENCE) {
    oxp_node *e = oxp_sym_op(c, "SequenceEmpty", NULL, 0, 1);
    if (!e) return NULL;
    int dt = other->type->elem ? other->type->elem->dtype : 0;
    if (dt) oxp_attr_set_i(e, "dtype", dt);
    e->outputs[0]->type = oxp_type_copy(oxp_sym_arena(c), other->type);
    return e->outputs[0];
  }
  int dt = oxp_ctl_dtype(other);
  if (!dt) dt = oxp_sym_need_dtype(c, other);
  if (!dt) return NULL;
  oxp_value *z = oxp_sym_const_scalar(c, 0, dt);
  oxp_value *id = oxp_sym_op1(c, "Identity", z);
  oxp_sym_set_type(c, id, dt, 0, NULL);
  return id;
}

static oxp_status lower_branch(oxp_sctx *c, oxp_node *n, int k, oxp_block *b,
                               oxp_value **lists, oxp_value **seqs, int nl,
                               oxp_value **outs) {
  oxp_block *sb = n->blocks[k];
  for (int j = 0; j < nl; j++) oxp_seq_rebind(c, lists[j], seqs[j]);
  oxp_status st = oxp_ctl_lower_into(c, sb, b);
  if (st) return st;
  oxp_block *cur = c->cur;
  c->cur = b;
  for (int i = 0; i < n->noutputs && !c->d->status; i++) {
    oxp_value *v = sb->outputs[i];
    if (oxp_seq_is_list(v) && !seq_flow_ok(c, n, v, "a list returned by prim::If"))
      break;
    int dt = oxp_seq_is_list(v) ? 0
                                : oxp_lower_scalar_dtype(oxp_sym_out_type(n, i));
    outs[i] = is_uninit(v) ? NULL : oxp_ctl_block_out(c, sb, v, dt);
    if (!outs[i] && !is_uninit(v)) break;
  }
  for (int j = 0; j < nl && !c->d->status; j++)
    outs[n->noutputs + j] = oxp_ctl_block_out(c, sb, lists[j], 0);
  /* A value returned twice is returned once and copied: each output of
   * the subgraph needs a name of its own. */
  for (int i = 0; i < n->noutputs + nl && !c->d->status; i++)
    for (int j = 0; j < i && outs[i]; j++)
      if (outs[j] == outs[i]) {
        oxp_value *v = outs[i];
        outs[i] = v->type && v->type->kind == OXP_T_SEQUENCE
                      ? oxp_seq_copy(c, v) : oxp_sym_op1(c, "Identity", v);
        if (outs[i] && !outs[i]->type)
          outs[i]->type = oxp_type_copy(oxp_sym_arena(c), v->type);
        break;
      }
  c->cur = cur;
  return c->d->status;
}

oxp_status oxp_s_if(oxp_sctx *c, oxp_node *n) {
  if (n->nblocks != 2 || n->ninputs != 1)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::If with %d blocks and %d "
                        "inputs (expected 2 and 1)", n->nblocks, n->ninputs);
  for (int k = 0; k < 2; k++)
    if (n->blocks[k]->noutputs != n->noutputs)
      return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::If block %d returns %d "
                          "values for %d outputs", k,
                          n->blocks[k]->noutputs, n->noutputs);
  bool cond, known = oxp_sym_bool(n, 0, &cond);
  oxp_value *cv = NULL;
  if (!known) {
    if (!(cv = oxp_sym_in(c, n, 0))) return oxp_sym_status(c);
    known = oxp_ctl_const_bool(cv, &cond);
  }
  /* A condition known now folds the If away, as the legacy exporter
   * does, so the graph stays flat where it can. */
  if (known) {
    if (!oxp_ctl_fold_if(c, n, cond))
      return oxp_sym_fail(c, OXP_ERR_INTERNAL, "prim::If could not be folded");
    return OXP_OK;
  }
  if (oxp_ctl_dtype(cv) != OXP_DT_BOOL &&
      !(cv = oxp_sym_in_as(c, n, 0, OXP_DT_BOOL)))
    return oxp_sym_status(c);

  oxp_value **lists = NULL, **seqs = NULL;
  int nl = outer_seqs(c, n, &lists, &seqs, "a list changed inside prim::If");
  if (nl < 0) return oxp_sym_status(c);
  int nout = n->noutputs + nl;
  oxp_arena *a = oxp_sym_arena(c);
  oxp_value **outs[2];
  for (int k = 0; k < 2; k++)
    if (!(outs[k] = oxp_alloc(a, sizeof(oxp_value *) * (size_t)(nout + 1))))
      return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  oxp_node *ifn = oxp_sym_op(c, "If", &cv, 1, nout);
  if (!ifn) return oxp_sym_status(c);
  oxp_block *b[2];
  for (int k = 0; k < 2; k++) {
    if (!(b[k] = oxp_node_add_block(ifn)))
      return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    oxp_status st = lower_branch(c, n, k, b[k], lists, seqs, nl, outs[k]);
    if (st) return st;
  }
  c->node = n;
  oxp_block *cur = c->cur;
  for (int i = 0; i < nout; i++)
    for (int k = 0; k < 2; k++)
      if (!outs[k][i]) {
        if (!outs[1 - k][i])
          return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                              "prim::If: output %d is uninitialized in both "
                              "branches", i);
        c->cur = b[k];
        outs[k][i] = uninit_value(c, outs[1 - k][i]);
        c->cur = cur;
        if (!outs[k][i]) return oxp_sym_status(c);
      }
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < nout; i++)
      if (!oxp_block_add_output(b[k], outs[k][i]))
        return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  for (int i = 0; i < nout; i++) {
    oxp_value *pair[2] = {outs[0][i], outs[1][i]};
    oxp_status st = if_out_type(c, n, i < n->noutputs ? i : -1, pair,
                                &ifn->outputs[i]->type);
    if (st) return st;
  }
  for (int j = 0; j < nl; j++) {
    oxp_value *o = ifn->outputs[n->noutputs + j];
    o->name = lists[j]->name;
    oxp_seq_rebind(c, lists[j], o);
  }
  for (int i = 0; i < n->noutputs; i++) {
    oxp_status st = bind_out(c, n, i, ifn->outputs[i]);
    if (st) return st;
  }
  return OXP_OK;
}

/* ---- prim::Loop -------------------------------------------------------------- */

/* The initial value of carried input k (node input 2 + k). */
static oxp_value *carried_init(oxp_sctx *c, oxp_node *n, int k) {
  oxp_value *v = n->inputs[2 + k];
  if (oxp_seq_is_list(v))
    return seq_flow_ok(c, n, v, "a list carried by prim::Loop")
               ? oxp_seq_of(c, v, "a list carried by prim::Loop") : NULL;
  if (is_uninit(v)) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                 "prim::Loop: carried value %d (%%%s) starts uninitialized; "
                 "this is not supported", k, v->name ? v->name : "?");
    return NULL;
  }
  return oxp_sym_in(c, n, 2 + k);
}

/* The trip count: absent for the "no limit" INT64_MAX of while loops. */
static bool trip_count(oxp_sctx *c, oxp_node *n, oxp_value **m) {
  int64_t v;
  *m = NULL;
  if (oxp_sym_is_none(n, 0) || (oxp_sym_int(n, 0, &v) && v == INT64_MAX))
    return true;
  *m = oxp_sym_in_as(c, n, 0, OXP_DT_INT64);
  if (*m && oxp_sym_rank(*m) > 0) {
    static const int64_t zero = 0;
    *m = oxp_sym_squeeze(c, *m, &zero, 1);
  }
  return *m != NULL;
}

oxp_status oxp_s_loop(oxp_sctx *c, oxp_node *n) {
  if (n->nblocks != 1 || n->ninputs < 2)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::Loop with %d blocks and %d "
                        "inputs", n->nblocks, n->ninputs);
  oxp_block *sb = n->blocks[0];
  int ncar = n->ninputs - 2;
  if (sb->ninputs != ncar + 1 || sb->noutputs != ncar + 1 ||
      n->noutputs != ncar)
    return oxp_sym_fail(c, OXP_ERR_GRAPH, "prim::Loop carries %d values but "
                        "its block has %d inputs and %d outputs and the node "
                        "%d outputs", ncar, sb->ninputs, sb->noutputs,
                        n->noutputs);
  oxp_arena *a = oxp_sym_arena(c);
  oxp_value **lists = NULL, **seqs = NULL;
  int nl = outer_seqs(c, n, &lists, &seqs, "a list changed inside prim::Loop");
  if (nl < 0) return oxp_sym_status(c);
  int nin = 2 + ncar + nl;
  oxp_value **ins = oxp_alloc(a, sizeof *ins * (size_t)nin);
  if (!ins) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  if (!trip_count(c, n, &ins[0])) return oxp_sym_status(c);
  if (!(ins[1] = oxp_sym_in_as(c, n, 1, OXP_DT_BOOL))) return oxp_sym_status(c);
  for (int k = 0; k < ncar; k++)
    if (!(ins[2 + k] = carried_init(c, n, k))) return oxp_sym_status(c);
  for (int j = 0; j < nl; j++) ins[2 + ncar + j] = seqs[j];

  oxp_node *loop = oxp_sym_op(c, "Loop", ins, nin, ncar + nl);
  oxp_block *body = loop ? oxp_node_add_block(loop) : NULL;
  if (!body) return oxp_sym_status(c);
  oxp_value *iter = oxp_block_add_input(body, sb->inputs[0]->name,
                                        oxp_type_tensor(a, OXP_DT_INT64, 0, NULL));
  oxp_value *cin = oxp_block_add_input(body, NULL,
                                       oxp_type_tensor(a, OXP_DT_BOOL, 0, NULL));
  if (!iter || !cin) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  oxp_lower_bind(c, sb->inputs[0], iter);
  for (int k = 0; k < ncar + nl; k++) {
    oxp_value *src = k < ncar ? sb->inputs[1 + k] : lists[k - ncar];
    oxp_value *bi = oxp_block_add_input(
        body, src->name, oxp_ctl_carried_type(c, ins[2 + k], src->type));
    if (!bi) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    if (oxp_seq_is_list(src)) oxp_seq_rebind(c, src, bi);
    else oxp_lower_bind(c, src, bi);
  }
  oxp_status st = oxp_ctl_lower_into(c, sb, body);
  if (st) return st;

  oxp_block *cur = c->cur;
  c->cur = body;
  oxp_value *co = oxp_ctl_block_out(c, sb, sb->outputs[0], OXP_DT_BOOL);
  if (!co || !oxp_block_add_output(body, co)) {
    c->cur = cur;
    return oxp_sym_status(c);
  }
  for (int k = 0; k < ncar + nl; k++) {
    oxp_value *src = k < ncar ? sb->outputs[1 + k] : lists[k - ncar];
    /* ONNX wants a carried value's type loop-invariant: the output is
     * cast to the input's element type when they differ. */
    oxp_value *in = body->inputs[2 + k];
    int dt = !oxp_seq_is_list(src) && in->type ? in->type->dtype : 0;
    oxp_value *o = oxp_ctl_block_out(c, sb, src, dt);
    if (!o || !oxp_block_add_output(body, o)) {
      c->cur = cur;
      return oxp_sym_status(c);
    }
  }
  c->cur = cur;
  c->node = n;
  for (int k = 0; k < ncar + nl; k++)
    loop->outputs[k]->type = oxp_type_copy(a, body->inputs[2 + k]->type);
  for (int j = 0; j < nl; j++) {
    oxp_value *o = loop->outputs[ncar + j];
    o->name = lists[j]->name;
    oxp_seq_rebind(c, lists[j], o);
  }
  for (int k = 0; k < ncar; k++)
    if ((st = bind_out(c, n, k, loop->outputs[k]))) return st;
  return OXP_OK;
}
