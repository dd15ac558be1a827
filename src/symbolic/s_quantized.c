/* s_quantized.c: quantized tensors (s_quantized.h): the pack a quantized
 * value lowers to, quantize_per_tensor and dequantize, and the dispatch of
 * other ops over quantized inputs by the rows of quant_args.def. The
 * float op between DequantizeLinear and QuantizeLinear rounds once, as
 * torch's quantized kernels do, so results agree to one quantization
 * step (docs/quantized.md). */
#include <string.h>

#include "lower_ctx.h"
#include "s_control.h" /* oxp_seq_is_list */
#include "s_quantized.h"

typedef enum { OXP_QA_OWN, OXP_QA_SAME, OXP_QA_SIGMOID, OXP_QA_TANH, OXP_QA_FLOAT } qa_mode;

typedef struct {
  const char *op;
  unsigned inputs;
  qa_mode out;
} qa_row;

static const qa_row rows[] = {
#define OXP_QARG(op, inputs, out) {op, inputs, out},
#include "quant_args.def"
#undef OXP_QARG
};

static const qa_row *find_row(const char *op) {
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    if (strcmp(rows[i].op, op) == 0) return &rows[i];
  return NULL;
}

static oxp_pack *qpack_of(oxp_sctx *c, oxp_value *v) {
  oxp_pack *p = oxp_lower_pack(c, v);
  return p && p->quant ? p : NULL;
}

static bool list_has_quant(oxp_sctx *c, oxp_value *v) {
  oxp_node *k = v ? v->producer : NULL;
  if (!k || !oxp_kind_is(k, "prim::ListConstruct")) return false;
  for (int i = 0; i < k->ninputs; i++)
    if (qpack_of(c, k->inputs[i])) return true;
  return false;
}

bool oxp_q_has_input(oxp_sctx *c, oxp_node *n) {
  for (int i = 0; i < n->ninputs; i++)
    if (qpack_of(c, n->inputs[i]) || list_has_quant(c, n->inputs[i])) return true;
  return false;
}

bool oxp_q_value(oxp_sctx *c, oxp_node *n, oxp_value *v, oxp_qval *out) {
  oxp_pack *p = v ? qpack_of(c, v) : NULL;
  if (!p) {
    oxp_sym_fail(c, OXP_ERR_UNSUPPORTED, "%s: %%%s is not a quantized tensor",
                 n->kind, v && v->name ? v->name : "?");
    return false;
  }
  *out = (oxp_qval){p->vals[0], p->vals[1], p->vals[2]};
  return true;
}

int oxp_q_dtype(const oxp_qval *q) { return oxp_sym_dtype(q->zp); }

oxp_value *oxp_q_dequant(oxp_sctx *c, const oxp_qval *q) {
  return oxp_sym_op3(c, "DequantizeLinear", q->q, q->scale, q->zp);
}

/* A zero point constant in zdt, refused when out of its range. */
static oxp_value *zero_point(oxp_sctx *c, oxp_node *n, int i, int zdt) {
  int64_t z;
  if (!oxp_sym_int(n, i, &z)) return oxp_sym_in_as(c, n, i, zdt);
  int64_t lo = zdt == OXP_DT_UINT8 ? 0 : -128, hi = zdt == OXP_DT_UINT8 ? 255 : 127;
  if (z < lo || z > hi) {
    oxp_sym_fail(c, OXP_ERR_GRAPH, "%s: zero point %lld is outside %s's range",
                 n->kind, (long long)z, oxp_dtype_name(zdt));
    return NULL;
  }
  return oxp_sym_const_scalar(c, (double)z, zdt);
}

bool oxp_q_params(oxp_sctx *c, oxp_node *n, int si, int zdt, oxp_value **scale,
                  oxp_value **zp) {
  double s;
  *scale = oxp_sym_float(n, si, &s) ? oxp_sym_const_scalar(c, s, OXP_DT_FLOAT)
                                    : oxp_sym_in_as(c, n, si, OXP_DT_FLOAT);
  *zp = *scale ? zero_point(c, n, si + 1, zdt) : NULL;
  return *zp != NULL;
}

oxp_status oxp_q_set_out(oxp_sctx *c, oxp_node *n, int i, oxp_value *f,
                         oxp_value *scale, oxp_value *zp) {
  if (!f || !scale || !zp) return oxp_sym_status(c);
  oxp_value *q = oxp_sym_op3(c, "QuantizeLinear", f, scale, zp);
  oxp_pack *p = oxp_alloc(oxp_sym_arena(c), sizeof *p);
  oxp_value **vals = p ? oxp_alloc(oxp_sym_arena(c), 3 * sizeof *vals) : NULL;
  if (!q || !vals) return oxp_sym_status(c) ? oxp_sym_status(c)
                                            : oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
  vals[0] = q, vals[1] = scale, vals[2] = zp;
  *p = (oxp_pack){vals, 3, true};
  oxp_lower_bind(c, n->outputs[i], NULL);
  oxp_lower_bind_pack(c, n->outputs[i], p);
  return OXP_OK;
}

/* ---- quantize_per_tensor, dequantize -------------------------------------------- */

/* torch's ScalarType of a quantized dtype -> the integer type; 0 if none. */
static int qdtype(int64_t st) {
  switch (st) {
  case 12: return OXP_DT_INT8;   /* torch.qint8 */
  case 13: return OXP_DT_UINT8;  /* torch.quint8 */
  default: return 0;             /* qint32, quint4x2, quint2x4 */
  }
}

/* quantize_per_tensor(x, scale, zero_point, dtype); scale and zero point
 * as numbers or 0-d tensors. */
oxp_status oxp_s_quantize_per_tensor(oxp_sctx *c, oxp_node *n) {
  int64_t st;
  if (!oxp_sym_need_int(c, n, 3, &st)) return oxp_sym_status(c);
  int zdt = qdtype(st);
  if (!zdt)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s: quantized dtype %lld has no ONNX type (torch.quint8 "
                        "and torch.qint8 do)", n->kind, (long long)st);
  if (oxp_seq_is_list(n->inputs[0]))
    return oxp_sym_unsupported(c, "quantize_per_tensor of a list of tensors");
  oxp_value *x = oxp_sym_in(c, n, 0);
  if (!x) return oxp_sym_status(c);
  int xdt = oxp_sym_need_dtype(c, x);
  if (!xdt) return oxp_sym_status(c);
  if (xdt != OXP_DT_FLOAT)
    return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                        "%s of a %s tensor is not supported (float32 is)", n->kind,
                        oxp_dtype_name(xdt));
  oxp_value *scale, *zp;
  if (!oxp_q_params(c, n, 1, zdt, &scale, &zp)) return oxp_sym_status(c);
  return oxp_q_set_out(c, n, 0, x, scale, zp);
}

/* dequantize(q); of a float tensor it is the tensor itself. */
oxp_status oxp_s_dequantize(oxp_sctx *c, oxp_node *n) {
  if (oxp_seq_is_list(n->inputs[0]))
    return oxp_sym_unsupported(c, "dequantize of a list of tensors");
  if (!qpack_of(c, n->inputs[0])) return oxp_sym_set_out(c, n, 0, oxp_sym_in(c, n, 0));
  oxp_qval q;
  if (!oxp_q_in(c, n, 0, &q)) return oxp_sym_status(c);
  return oxp_sym_set_out(c, n, 0, oxp_q_dequant(c, &q));
}

/* ---- other ops over quantized inputs ---------------------------------------------- */

/* While the float symbolic runs, a dequantized input is bound as a plain
 * value, typed float32 like its DequantizeLinear. */
typedef struct {
  oxp_value *src;
  oxp_pack *pack;
  oxp_type *type;
} saved_in;

static oxp_status refuse(oxp_sctx *c, oxp_node *n, const char *why) {
  return oxp_sym_fail(c, OXP_ERR_UNSUPPORTED,
                      "%s of a quantized tensor is not supported%s (docs/quantized.md)",
                      n->kind, why);
}

oxp_status oxp_q_args(oxp_sctx *c, oxp_node *n, oxp_symbolic_fn fn) {
  const qa_row *r = find_row(n->kind);
  if (!r || !fn) return refuse(c, n, "");
  if (r->out == OXP_QA_OWN) return fn(c, n);
  saved_in saved[16];
  int ns = 0;
  oxp_qval first = {0};
  oxp_arena *a = oxp_sym_arena(c);
  for (int i = 0; i < n->ninputs; i++) {
    oxp_value *v = n->inputs[i];
    if (list_has_quant(c, v)) return refuse(c, n, " in a list");
    oxp_pack *p = qpack_of(c, v);
    if (!p) continue;
    if (i >= 16 || !(r->inputs >> i & 1)) return refuse(c, n, " as this argument");
    oxp_qval q = {p->vals[0], p->vals[1], p->vals[2]};
    if (!first.q) first = q;
    oxp_value *f = oxp_q_dequant(c, &q);
    if (!f) return oxp_sym_status(c);
    saved[ns++] = (saved_in){v, p, v->type};
    oxp_type *ft = f->type ? oxp_type_copy(a, f->type) : oxp_type_tensor(a, OXP_DT_FLOAT, -1, NULL);
    if (!ft) return oxp_sym_fail(c, OXP_ERR_NOMEM, "out of memory");
    ft->dtype = OXP_DT_FLOAT;
    v->type = ft;
    oxp_lower_bind_pack(c, v, NULL);
    oxp_lower_bind(c, v, f);
  }
  oxp_value *out = n->noutputs ? n->outputs[0] : NULL;
  oxp_type *out_type = out ? out->type : NULL;
  bool requant = r->out != OXP_QA_FLOAT && out;
  if (requant && (!out_type || out_type->kind != OXP_T_TENSOR || !out_type->dtype)) {
    int rank = out_type && out_type->kind == OXP_T_TENSOR ? out_type->rank : -1;
    out->type = oxp_type_tensor(a, OXP_DT_FLOAT, rank, rank >= 0 ? out_type->dims : NULL);
  }
  oxp_status st = fn(c, n);
  for (int k = ns - 1; k >= 0; k--) {
    saved[k].src->type = saved[k].type;
    oxp_lower_bind(c, saved[k].src, NULL);
    oxp_lower_bind_pack(c, saved[k].src, saved[k].pack);
  }
  if (requant) out->type = out_type;
  if (st || !requant) return st;
  oxp_value *f = oxp_lower_lookup(c, out), *scale = first.scale, *zp = first.zp;
  if (r->out == OXP_QA_SIGMOID || r->out == OXP_QA_TANH) {
    if (oxp_q_dtype(&first) != OXP_DT_UINT8)
      return refuse(c, n, " unless it is quint8");
    bool tanh = r->out == OXP_QA_TANH;
    scale = oxp_sym_const_scalar(c, (tanh ? 2.0 : 1.0) / 256.0, OXP_DT_FLOAT);
    zp = oxp_sym_const_scalar(c, tanh ? 128 : 0, OXP_DT_UINT8);
  }
  if (f && oxp_sym_dtype(f) != OXP_DT_FLOAT)
    return refuse(c, n, " (its float result is not float32)");
  return oxp_q_set_out(c, n, 0, f, scale, zp);
}

oxp_value *oxp_q_weight_u8(oxp_sctx *c, oxp_value *v) {
  if (!v || oxp_sym_dtype(v) != OXP_DT_INT8) return v;
  oxp_value *w = oxp_sym_op2(c, "Add", oxp_sym_cast(c, v, OXP_DT_INT32),
                             oxp_sym_const_scalar(c, 128, OXP_DT_INT32));
  return oxp_sym_cast(c, w, OXP_DT_UINT8);
}
