/* bind_packed.c: the packed weights of quantized layers. torch keeps a
 * quantized conv's or linear's weight, its quantization parameters, bias
 * and conv geometry in one opaque object (Conv2dPackedParamsBase, ...),
 * which a traced graph takes as a class-typed input and the printed IR
 * cannot carry. The weights file holds its parts under the input's name
 * (docs/quantized.md); here they become constants that replace the packed
 * input of each quantized op, in the order packed.h fixes, and the class
 * input leaves the graph (ONNX has no such input). torch's exporter does
 * the same in its unpack_quantized_weights pass. A dynamically quantized
 * LSTM's or GRU's RNN cell params (two packed linears each) become the
 * inputs of the list that hands them to aten::quantized_lstm / gru. */
#include <stdio.h>
#include <string.h>

#include "oxp.h"
#include "packed.h"

#define CLASS_PREFIX "__torch__.torch.classes.quantized."
#define CELL_CLASS "__torch__.torch.classes.rnn.CellParamsBase"
#define MAXPATH 512

typedef struct {
  oxp_graph *g;
  const oxp_safetensors *st;
  bool *used;
  oxp_diag *d;
  oxp_value **ins;   /* packed graph inputs */
  oxp_value ***parts;/* per packed input: its constants, made once */
  int nins;
} packer;

static bool ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a >= b && strcmp(s + a - b, tail) == 0;
}

/* "Conv2d", "Conv3d", "Linear" or "Cell" (RNN cell) packed params; NULL
 * for other types. */
static const char *packed_kind(const oxp_type *t) {
  if (t && t->kind == OXP_T_OTHER && t->name && strcmp(t->name, CELL_CLASS) == 0)
    return "Cell";
  if (!t || t->kind != OXP_T_OTHER || !t->name ||
      strncmp(t->name, CLASS_PREFIX, strlen(CLASS_PREFIX)) != 0)
    return NULL;
  static const char *const kinds[] = {"Conv2d", "Conv3d", "Linear"};
  const char *rest = t->name + strlen(CLASS_PREFIX);
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (strncmp(rest, kinds[i], strlen(kinds[i])) == 0 &&
        strcmp(rest + strlen(kinds[i]), "PackedParamsBase") == 0)
      return kinds[i];
  return ends_with(rest, "PackedParamsBase") ? rest : NULL;
}

/* How many inputs packed params of that kind become. */
static int nparts(const char *kind) {
  if (strcmp(kind, "Cell") == 0) return OXP_PK_CELL_N;
  return strncmp(kind, "Conv", 4) == 0 ? OXP_PK_CONV_N : OXP_PK_LINEAR_N;
}

static oxp_status nomem(packer *p) {
  return oxp_fail(p->d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
}

static oxp_loc input_loc(const packer *p, const oxp_value *in) {
  oxp_loc loc = {p->g->file, 0, 0};
  if (p->g->input_locs && in->owner == p->g->top) loc = p->g->input_locs[in->index];
  return loc;
}

/* The dotted attribute path a prim::GetAttr chain reads ("c._packed_params"),
 * as the exporter names the graph input it lifted; false if too long. */
static bool attr_path(const oxp_node *n, char *buf, size_t size) {
  const char *parts[32];
  int np = 0;
  for (const oxp_node *k = n; k && oxp_kind_is(k, "prim::GetAttr") && np < 32;
       k = k->ninputs ? k->inputs[0]->producer : NULL) {
    const oxp_attr *a = oxp_attr_get(k, "name");
    if (!a || a->kind != OXP_A_STR) return false;
    parts[np++] = a->s;
  }
  size_t len = 0;
  buf[0] = 0;
  for (int i = np - 1; i >= 0; i--) {
    int w = snprintf(buf + len, size - len, "%s%s", i == np - 1 ? "" : ".", parts[i]);
    if (w < 0 || (size_t)w >= size - len) return false;
    len += (size_t)w;
  }
  return np > 0;
}

/* The packed graph input that value v stands for, or -1. */
static int packed_input(const packer *p, const oxp_value *v) {
  char path[MAXPATH];
  const char *name = v->name;
  if (v->producer) {
    if (!oxp_kind_is(v->producer, "prim::GetAttr") ||
        !attr_path(v->producer, path, sizeof path))
      return -1;
    name = path;
  }
  for (int i = 0; i < p->nins; i++)
    if (name && strcmp(p->ins[i]->name, name) == 0) return i;
  return -1;
}

/* ---- the parts --------------------------------------------------------------- */

typedef struct {
  const char *suffix;
  int dtype;       /* 0: the weight's dtype (zero point); -1: float32 or the weight's */
  int rank;        /* -1: 0-d or 1-d */
  bool optional;
} part_spec;

/* In packed.h's order. */
static const part_spec specs[OXP_PK_CONV_N] = {
    [OXP_PK_WEIGHT] = {".weight", -1, -1, false},
    [OXP_PK_SCALE] = {".weight.scale", OXP_DT_FLOAT, -1, false},
    [OXP_PK_ZERO_POINT] = {".weight.zero_point", 0, -1, false},
    [OXP_PK_AXIS] = {".weight.axis", OXP_DT_INT64, 0, true},
    [OXP_PK_BIAS] = {".bias", OXP_DT_FLOAT, 1, true},
    [OXP_PK_REDUCED_QMAX] = {".reduced_qmax", OXP_DT_INT64, 0, true},
    [OXP_PK_STRIDE] = {".stride", OXP_DT_INT64, 1, false},
    [OXP_PK_PADDING] = {".padding", OXP_DT_INT64, 1, false},
    [OXP_PK_DILATION] = {".dilation", OXP_DT_INT64, 1, false},
    [OXP_PK_OUTPUT_PADDING] = {".output_padding", OXP_DT_INT64, 1, false},
    [OXP_PK_GROUPS] = {".groups", OXP_DT_INT64, 0, false},
    [OXP_PK_TRANSPOSED] = {".transposed", OXP_DT_INT64, 0, false},
};

/* A constant before the top block's first node: the tensor of sidecar
 * entry e (borrowed from the mapping), or None when e is NULL. */
static oxp_value *constant(packer *p, const oxp_st_entry *e, const char *name) {
  oxp_arena *a = p->g->arena;
  oxp_node *k = oxp_node_new(p->g, "prim::Constant", 1);
  if (!k) return NULL;
  oxp_value *v = k->outputs[0];
  if (e) {
    oxp_tensor *t = oxp_tensor_new(a, e->t.dtype, e->t.rank, e->t.dims, e->t.data, e->t.nbytes);
    if (!t) return NULL;
    t->src_path = e->t.src_path ? oxp_strdup(a, e->t.src_path) : NULL;
    t->src_offset = e->t.src_offset;
    oxp_attr_set_t(k, "value", t);
    v->type = oxp_type_tensor(a, t->dtype, t->rank, t->dims);
    p->used[e - p->st->entries] = true;
  } else {
    v->type = oxp_type_new(a, OXP_T_NONE);
  }
  v->name = oxp_strdup(a, name);
  if (!v->type || !v->name) return NULL;
  oxp_block *top = p->g->top;
  if (top->first) oxp_node_insert_before(top->first, k);
  else oxp_block_append(top, k);
  return v;
}

/* key: the whole key, or its suffix after the input's name (".bias"). */
static oxp_status bad_part(packer *p, const oxp_value *in, const char *key,
                           const char *why) {
  oxp_loc loc = input_loc(p, in);
  return oxp_fail(p->d, OXP_ERR_WEIGHTS, &loc, NULL,
                  "packed params %%%s: weight '%s%s' %s (docs/quantized.md)",
                  in->name, key[0] == '.' ? in->name : "", key, why);
}

/* Checks entry e against spec s (wdt: the weight's dtype). */
static oxp_status check_part(packer *p, const oxp_value *in, const char *key,
                             const oxp_st_entry *e, const part_spec *s, int wdt) {
  int want = s->dtype > 0 ? s->dtype : wdt;
  if (s->dtype < 0 && e->t.dtype != OXP_DT_INT8 && e->t.dtype != OXP_DT_UINT8)
    return bad_part(p, in, key, "must be int8 or uint8");
  if (s->dtype >= 0 && e->t.dtype != want) {
    char why[96];
    snprintf(why, sizeof why, "has dtype %s, expected %s",
             oxp_dtype_name(e->t.dtype), oxp_dtype_name(want));
    return bad_part(p, in, key, why);
  }
  if (s->rank >= 0 && e->t.rank != s->rank)
    return bad_part(p, in, key, s->rank ? "must be 1-d" : "must be 0-d");
  if (s->rank < 0 && s->dtype >= 0 && e->t.rank > 1)
    return bad_part(p, in, key, "must be 0-d or 1-d");
  return OXP_OK;
}

/* Constant for the entry at `in`'s name + key, as spec s says; NULL
 * after a diagnostic. */
static const oxp_st_entry *find_part(packer *p, const oxp_value *in, const char *key,
                                     const part_spec *s, int wdt, oxp_status *st) {
  const oxp_st_entry *e = p->st ? oxp_st_find(p->st, key) : NULL;
  *st = OXP_OK;
  if (!e && !s->optional)
    *st = bad_part(p, in, key, p->st ? "is missing from the weights file"
                                     : "is needed, but there is no weights file");
  else if (e)
    *st = check_part(p, in, key, e, s, wdt);
  return *st ? NULL : e;
}

/* The n parts (packed.h's order) of a conv's or linear's packed params
 * `in`, keyed by its name + prefix ("" or an RNN cell's ".ih", ".hh"),
 * into vals. */
static oxp_status layer_parts(packer *p, oxp_value *in, const char *prefix, int n,
                              oxp_value **vals) {
  const oxp_st_entry *es[OXP_PK_CONV_N] = {0};
  int wdt = 0;
  for (int k = 0; k < n; k++) {
    const char *key = oxp_sprintf(p->g->arena, "%s%s%s", in->name, prefix, specs[k].suffix);
    if (!key) return nomem(p);
    oxp_status st;
    es[k] = find_part(p, in, key, &specs[k], wdt, &st);
    if (st) return st;
    if (k == OXP_PK_WEIGHT) wdt = es[k]->t.dtype;
    if (!(vals[k] = constant(p, es[k], key))) return nomem(p);
  }
  const oxp_tensor *sc = &es[OXP_PK_SCALE]->t, *zp = &es[OXP_PK_ZERO_POINT]->t;
  const char *zkey = oxp_sprintf(p->g->arena, "%s.weight.zero_point", prefix);
  const char *akey = oxp_sprintf(p->g->arena, "%s.weight.axis", prefix);
  if (!zkey || !akey) return nomem(p);
  if (sc->rank != zp->rank || (sc->rank == 1 && sc->dims[0] != zp->dims[0]))
    return bad_part(p, in, zkey, "must have the scale's shape");
  if ((sc->rank == 1) != (es[OXP_PK_AXIS] != NULL))
    return bad_part(p, in, akey,
                    sc->rank == 1 ? "is needed by a per-channel scale"
                                  : "goes only with a per-channel scale");
  return OXP_OK;
}

/* An RNN cell's parts: its two linears' and reduce_range. */
static oxp_status cell_parts(packer *p, oxp_value *in, oxp_value **vals) {
  static const part_spec reduce = {".reduce_range", OXP_DT_INT64, 0, false};
  oxp_status st;
  if ((st = layer_parts(p, in, ".ih", OXP_PK_LINEAR_N, vals + OXP_PK_CELL_IH)) ||
      (st = layer_parts(p, in, ".hh", OXP_PK_LINEAR_N, vals + OXP_PK_CELL_HH)))
    return st;
  const char *key = oxp_sprintf(p->g->arena, "%s%s", in->name, reduce.suffix);
  if (!key) return nomem(p);
  const oxp_st_entry *e = find_part(p, in, key, &reduce, 0, &st);
  if (st) return st;
  if (!(vals[OXP_PK_CELL_REDUCE] = constant(p, e, key))) return nomem(p);
  return OXP_OK;
}

/* The constants of packed input i (made at its first use). */
static oxp_status make_parts(packer *p, int i) {
  if (p->parts[i]) return OXP_OK;
  oxp_value *in = p->ins[i];
  const char *kind = packed_kind(in->type);
  bool conv = strncmp(kind, "Conv", 4) == 0, cell = strcmp(kind, "Cell") == 0;
  if (!conv && !cell && strcmp(kind, "Linear") != 0) {
    oxp_loc loc = input_loc(p, in);
    return oxp_fail(p->d, OXP_ERR_UNSUPPORTED, &loc, NULL,
                    "packed params %%%s of type %s are not supported (quantized "
                    "conv and linear layers and dynamically quantized RNN cells "
                    "are)", in->name, in->type->name);
  }
  int n = nparts(kind);
  oxp_value **vals = oxp_alloc(p->g->arena, sizeof *vals * (size_t)n);
  if (!vals) return nomem(p);
  oxp_status st = cell ? cell_parts(p, in, vals) : layer_parts(p, in, "", n, vals);
  if (st) return st;
  p->parts[i] = vals;
  return OXP_OK;
}

/* Replaces input k of n (packed input i) by i's constants. */
static oxp_status splice(packer *p, oxp_node *n, int k, int i) {
  oxp_status st = make_parts(p, i);
  if (st) return st;
  int np = nparts(packed_kind(p->ins[i]->type));
  int old = n->ninputs, total = old - 1 + np;
  oxp_value **was = oxp_alloc(p->g->arena, sizeof *was * (size_t)old);
  if (!was) return nomem(p);
  memcpy(was, n->inputs, sizeof *was * (size_t)old);
  for (int j = 0; j < total; j++) {
    oxp_value *v = j < k ? was[j] : j < k + np ? p->parts[i][j - k] : was[j - np + 1];
    if (j < old) oxp_node_set_input(n, j, v);
    else if (!oxp_node_add_input(n, v)) return nomem(p);
  }
  return OXP_OK;
}

/* n gathers RNN cell params for quantized RNN ops only. */
static bool is_cell_list(const oxp_node *n) {
  if (!oxp_kind_is(n, "prim::ListConstruct") || n->noutputs != 1) return false;
  const oxp_value *l = n->outputs[0];
  for (int i = 0; i < l->nuses; i++) {
    const oxp_node *u = l->uses[i].node;
    if (l->uses[i].index != 2 ||
        !(oxp_kind_is(u, "aten::quantized_lstm") || oxp_kind_is(u, "aten::quantized_gru")))
      return false;
  }
  return l->nuses > 0 && !oxp_value_is_block_output(l);
}

static oxp_status walk(packer *p, oxp_block *b) {
  for (oxp_node *n = b->first; n; n = n->next) {
    for (int k = 0; k < n->ninputs; k++) {
      oxp_value *v = n->inputs[k];
      if (!v || !packed_kind(v->type) || oxp_kind_is(n, "prim::GetAttr")) continue;
      int i = packed_input(p, v);
      bool cell = strcmp(packed_kind(v->type), "Cell") == 0;
      if (i < 0 || (cell ? !is_cell_list(n) : strncmp(n->kind, "quantized::", 11) != 0)) {
        oxp_loc loc = n->loc;
        if (!loc.file) loc.file = p->g->file;
        return oxp_fail(p->d, OXP_ERR_UNSUPPORTED, &loc, n->kind,
                        i < 0  ? "%s: packed params %%%s are not a graph input "
                                 "(onnxexp reads them from the weights file by "
                                 "the input's name)"
                        : cell ? "%s takes the RNN cell params %%%s: onnxexp "
                                 "unpacks them only in the list that "
                                 "aten::quantized_lstm / quantized_gru reads"
                               : "%s takes the packed params %%%s: onnxexp "
                                 "unpacks them for quantized:: ops only",
                        n->kind, v->name ? v->name : "?");
      }
      oxp_status st = splice(p, n, k, i);
      if (st) return st;
      k += nparts(packed_kind(p->ins[i]->type)) - 1;
    }
    for (int j = 0; j < n->nblocks; j++) {
      oxp_status st = walk(p, n->blocks[j]);
      if (st) return st;
    }
  }
  return OXP_OK;
}

/* The packed inputs leave the top block's inputs (and their locations). */
static void drop_inputs(packer *p) {
  oxp_block *top = p->g->top;
  int w = 0;
  for (int r = 0; r < top->ninputs; r++) {
    oxp_value *v = top->inputs[r];
    if (packed_kind(v->type)) continue;
    if (p->g->input_locs) p->g->input_locs[w] = p->g->input_locs[r];
    v->index = w;
    top->inputs[w++] = v;
  }
  top->ninputs = w;
}

oxp_status oxp_bind_packed(oxp_graph *g, const oxp_safetensors *st, bool *used,
                           oxp_diag *d) {
  packer p = {g, st, used, d, NULL, NULL, 0};
  oxp_block *top = g->top;
  for (int i = 0; i < top->ninputs; i++) p.nins += packed_kind(top->inputs[i]->type) != NULL;
  if (!p.nins) return OXP_OK;
  p.ins = oxp_alloc(g->arena, sizeof *p.ins * (size_t)p.nins);
  p.parts = oxp_alloc(g->arena, sizeof *p.parts * (size_t)p.nins);
  if (!p.ins || !p.parts) return nomem(&p);
  p.nins = 0;
  for (int i = 0; i < top->ninputs; i++)
    if (packed_kind(top->inputs[i]->type)) p.ins[p.nins++] = top->inputs[i];
  oxp_status s = walk(&p, top);
  if (s) return s;
  drop_inputs(&p);
  return OXP_OK;
}
