/* serialize.c: lowered oxp graph -> onnx.ModelProto, packed to a sink.
 *
 * The ModelProto is built with every protobuf-c struct in the graph's arena,
 * so there is nothing to free one by one and no error path can leak. Strings
 * and int arrays that already have the right layout (names, dims, INTS) are
 * borrowed, not copied; tensor bytes are borrowed too (ser_tensor.c).
 *
 * Packing streams through a ProtobufCBuffer: protobuf-c emits many tiny
 * appends (tags, lengths, names) and one append per bytes field. The tiny
 * ones are gathered in a 64 KiB staging buffer; a big one (a weight's
 * raw_data) flushes the stage and goes to the sink as is, so weights reach
 * write(2) straight from the mmap; a lazy tensor's (ser_tensor.c) is made
 * there a chunk at a time. */
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "serialize.h"
#include "onnx/onnx.pb-c.h"
#include "proto_pack.h"

enum { STAGE_SIZE = 64 * 1024 };


typedef struct {
  oxp_arena *a;
  const oxp_options *o;
  oxp_diag *d;
  oxp_tensor_writer tw;
  int *out_stamp;   /* by value id: stamp of the block listing it as output */
  int stamp;
  oxp_status st;
  /* One TypeProto per distinct tensor type (values of a graph mostly share
   * a few types), packed once (proto_pack.c's shared messages). */
  struct type_slot {
    const oxp_type *t; /* NULL: free */
    uint64_t h;
    Onnx__TypeProto *tp;
  } *types;
  size_t ntypes, captypes;
} ser;

/* opsets.def's rows are ascending without gaps, so MIN..MAX is the
 * range and row k is opset MIN + k. */
#define OXP_OPSET(v, ir)                                                   \
  _Static_assert(OXP_OPSET_IDX_##v == (v) - OXP_OPSET_MIN,                \
                 "opsets.def: opset " #v " breaks the ascending, gapless rows");
#include "opsets.def"
#undef OXP_OPSET
_Static_assert(OXP_OPSET_DEFAULT >= OXP_OPSET_MIN && OXP_OPSET_DEFAULT <= OXP_OPSET_MAX,
               "the default opset is outside opsets.def");

int64_t oxp_ir_version_for_opset(int opset) {
  static const int64_t ir[OXP_OPSET_COUNT] = {
#define OXP_OPSET(v, irv) [(v) - OXP_OPSET_MIN] = (irv),
#include "opsets.def"
#undef OXP_OPSET
  };
  /* 0 outside opsets.def: the caller rejects it. */
  return opset >= OXP_OPSET_MIN && opset <= OXP_OPSET_MAX ? ir[opset - OXP_OPSET_MIN] : 0;
}

static bool nomem(ser *s) {
  if (!s->st)
    s->st = oxp_fail(s->d, OXP_ERR_NOMEM, NULL, NULL,
                     "out of memory while building the ONNX model");
  return false;
}

/* Arena allocation that records the failure once; callers test for NULL.
 * After a failure every allocation fails, so the build unwinds fast. */
static void *alloc(ser *s, size_t n) {
  void *p = s->st ? NULL : oxp_alloc(s->a, n ? n : 1);
  if (!p) nomem(s);
  return p;
}
#define NEW(s, T, init) ((T *)new_msg((s), sizeof(T), (void (*)(void *))(init)))
#define ARRAY(s, T, n) ((T *)alloc((s), sizeof(T) * (size_t)(n)))

static void *new_msg(ser *s, size_t size, void (*init)(void *)) {
  void *p = alloc(s, size);
  if (p) init(p);
  return p;
}

/* protobuf-c fields are char * but never written through. */
static char *str(const char *p) { return (char *)(uintptr_t)p; }

/* ---- types ---------------------------------------------------------------- */

static bool type_known(const oxp_type *t) {
  if (!t) return false;
  switch (t->kind) {
  case OXP_T_TENSOR: return t->dtype != OXP_DT_UNDEFINED;
  case OXP_T_SEQUENCE:
  case OXP_T_OPTIONAL: return type_known(t->elem);
  default: return false;
  }
}

static Onnx__TensorShapeProto *ser_shape(ser *s, const oxp_type *t) {
  Onnx__TensorShapeProto *sh =
      NEW(s, Onnx__TensorShapeProto, onnx__tensor_shape_proto__init);
  if (!sh) return NULL;
  sh->n_dim = (size_t)t->rank;
  sh->dim = ARRAY(s, Onnx__TensorShapeProto__Dimension *, t->rank);
  if (!sh->dim) return NULL;
  for (int i = 0; i < t->rank; i++) {
    Onnx__TensorShapeProto__Dimension *dm =
        NEW(s, Onnx__TensorShapeProto__Dimension,
            onnx__tensor_shape_proto__dimension__init);
    if (!dm) return NULL;
    /* An unknown dim without a name stays a Dimension with neither field:
     * the rank is still known. */
    if (t->dim_params && t->dim_params[i]) {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      dm->dim_param = str(t->dim_params[i]);
    } else if (t->dims[i] >= 0) {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dm->dim_value = t->dims[i];
    }
    sh->dim[i] = dm;
  }
  return sh;
}

/* A dim's name as ser_shape writes it, or NULL. */
static const char *dim_param(const oxp_type *t, int i) {
  return t->dim_params ? t->dim_params[i] : NULL;
}

static uint64_t tensor_hash(const oxp_type *t) {
  uint64_t h = ((uint64_t)(unsigned)t->dtype << 32) ^ (uint64_t)(unsigned)t->rank;
  for (int i = 0; i < t->rank; i++) {
    const char *dp = dim_param(t, i);
    h = (h ^ (uint64_t)t->dims[i]) * 0x100000001b3ull;
    for (; dp && *dp; dp++) h = (h ^ (unsigned char)*dp) * 0x100000001b3ull;
  }
  return h ^ (h >> 29);
}

/* Would a and b serialize to the same TypeProto? */
static bool tensor_same(const oxp_type *a, const oxp_type *b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++) {
    const char *pa = dim_param(a, i), *pb = dim_param(b, i);
    if (pa || pb) {
      if (!pa || !pb || strcmp(pa, pb) != 0) return false;
    } else if ((a->dims[i] >= 0 || b->dims[i] >= 0) && a->dims[i] != b->dims[i]) {
      return false;
    }
  }
  return true;
}

static size_t type_slot_of(const struct type_slot *v, size_t cap, const oxp_type *t, uint64_t h) {
  size_t i = (size_t)h & (cap - 1);
  while (v[i].t && !(v[i].h == h && tensor_same(v[i].t, t))) i = (i + 1) & (cap - 1);
  return i;
}

/* The slot for tensor type t: its TypeProto, or the free one it goes to;
 * NULL when the arena runs out. At most half full. */
static struct type_slot *type_slot(ser *s, const oxp_type *t) {
  if (2 * (s->ntypes + 1) > s->captypes) {
    size_t cap = s->captypes ? s->captypes * 2 : 64;
    struct type_slot *v = ARRAY(s, struct type_slot, cap);
    if (!v) return NULL;
    for (size_t i = 0; i < s->captypes; i++)
      if (s->types[i].t) v[type_slot_of(v, cap, s->types[i].t, s->types[i].h)] = s->types[i];
    s->types = v, s->captypes = cap;
  }
  uint64_t h = tensor_hash(t);
  struct type_slot *e = &s->types[type_slot_of(s->types, s->captypes, t, h)];
  e->h = h;
  return e;
}

/* NULL without an error when t has no ONNX form (or is unknown). */
static Onnx__TypeProto *ser_type(ser *s, const oxp_type *t) {
  if (!t) return NULL;
  Onnx__TypeProto *tp;
  switch (t->kind) {
  case OXP_T_TENSOR: {
    struct type_slot *e = type_slot(s, t);
    if (!e) return NULL;
    if (e->t) return e->tp;
    Onnx__TypeProto__Tensor *tt =
        NEW(s, Onnx__TypeProto__Tensor, onnx__type_proto__tensor__init);
    if (!tt) return NULL;
    tt->has_elem_type = t->dtype != OXP_DT_UNDEFINED;
    tt->elem_type = t->dtype;
    if (t->rank >= 0 && !(tt->shape = ser_shape(s, t))) return NULL;
    if (!(tp = NEW(s, Onnx__TypeProto, onnx__type_proto__init))) return NULL;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    e->t = t, e->tp = tp, s->ntypes++;
    return tp;
  }
  case OXP_T_SEQUENCE: {
    Onnx__TypeProto *elem = ser_type(s, t->elem);
    if (!elem) return NULL;
    Onnx__TypeProto__Sequence *sq =
        NEW(s, Onnx__TypeProto__Sequence, onnx__type_proto__sequence__init);
    if (!sq || !(tp = NEW(s, Onnx__TypeProto, onnx__type_proto__init)))
      return NULL;
    sq->elem_type = elem;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    tp->sequence_type = sq;
    return tp;
  }
  case OXP_T_OPTIONAL: {
    Onnx__TypeProto *elem = ser_type(s, t->elem);
    if (!elem) return NULL;
    Onnx__TypeProto__Optional *op =
        NEW(s, Onnx__TypeProto__Optional, onnx__type_proto__optional__init);
    if (!op || !(tp = NEW(s, Onnx__TypeProto, onnx__type_proto__init)))
      return NULL;
    op->elem_type = elem;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
    tp->optional_type = op;
    return tp;
  }
  default:
    return NULL;
  }
}

static Onnx__ValueInfoProto *ser_value_info(ser *s, const oxp_value *v) {
  Onnx__ValueInfoProto *vi =
      NEW(s, Onnx__ValueInfoProto, onnx__value_info_proto__init);
  if (!vi) return NULL;
  vi->name = str(v->name);
  const oxp_type *t = v->type;
  /* A weight listed as an input needs a type even if none was declared;
   * its tensor says exactly what it is. */
  if (!t && v->init)
    t = oxp_type_tensor(s->a, v->init->dtype, v->init->rank, v->init->dims);
  vi->type = ser_type(s, t);
  return s->st ? NULL : vi;
}

/* ---- nodes ---------------------------------------------------------------- */

static Onnx__GraphProto *ser_block(ser *s, const oxp_block *b,
                                   const char *name, bool top);

/* The GraphProto attribute each block of a control-flow node becomes. */
static const char *block_attr_name(const oxp_node *n, const char *domain,
                                   int k) {
  const char *op = oxp_op_type(n->kind);
  if (*domain) return NULL;
  if (strcmp(op, "If") == 0) return k == 0 ? "then_branch" :
                                     k == 1 ? "else_branch" : NULL;
  if (strcmp(op, "Loop") == 0 || strcmp(op, "Scan") == 0 ||
      strcmp(op, "SequenceMap") == 0)
    return k == 0 ? "body" : NULL;
  return NULL;
}

static Onnx__AttributeProto *ser_attr(ser *s, const oxp_node *n,
                                      const oxp_attr *a) {
  Onnx__AttributeProto *ap =
      NEW(s, Onnx__AttributeProto, onnx__attribute_proto__init);
  if (!ap) return NULL;
  ap->name = str(a->name);
  ap->has_type = 1;
  switch (a->kind) {
  case OXP_A_INT:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    ap->has_i = 1;
    ap->i = a->i;
    break;
  case OXP_A_FLOAT:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    ap->has_f = 1;
    ap->f = (float)a->f;
    break;
  case OXP_A_STR:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    ap->has_s = 1;
    ap->s.len = a->s ? strlen(a->s) : 0;
    ap->s.data = (uint8_t *)str(a->s);
    break;
  case OXP_A_TENSOR: {
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (!a->t) goto bad;
    oxp_status st = oxp_ser_tensor(&s->tw, a->t, NULL, &ap->t);
    if (st) {
      s->st = st;
      return NULL;
    }
    break;
  }
  case OXP_A_INTS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    ap->n_ints = (size_t)a->n;
    ap->ints = a->ints; /* int64_t already */
    break;
  case OXP_A_FLOATS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    ap->n_floats = (size_t)a->n;
    if (!(ap->floats = ARRAY(s, float, a->n))) return NULL;
    for (int i = 0; i < a->n; i++) ap->floats[i] = (float)a->floats[i];
    break;
  case OXP_A_STRS:
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    ap->n_strings = (size_t)a->n;
    if (!(ap->strings = ARRAY(s, ProtobufCBinaryData, a->n))) return NULL;
    for (int i = 0; i < a->n; i++) {
      ap->strings[i].len = strlen(a->strs[i]);
      ap->strings[i].data = (uint8_t *)str(a->strs[i]);
    }
    break;
  default:
    goto bad;
  }
  return ap;
bad:
  s->st = oxp_fail(s->d, OXP_ERR_INTERNAL, &n->loc, n->kind,
                   "attribute %s of %s has no ONNX form", a->name, n->kind);
  return NULL;
}

static Onnx__NodeProto *ser_node(ser *s, const oxp_node *n) {
  Onnx__NodeProto *np = NEW(s, Onnx__NodeProto, onnx__node_proto__init);
  if (!np) return NULL;
  const char *domain = oxp_op_domain(s->a, n->kind);
  if (!domain) {
    nomem(s);
    return NULL;
  }
  np->op_type = str(oxp_op_type(n->kind));
  np->domain = *domain ? str(domain) : NULL;
  np->name = str(n->name);
  if (!s->o->strip_doc_string && n->source) np->doc_string = str(n->source);

  np->n_input = (size_t)n->ninputs;
  if (!(np->input = ARRAY(s, char *, n->ninputs))) return NULL;
  for (int i = 0; i < n->ninputs; i++) /* "" marks an absent optional */
    np->input[i] = str(n->inputs[i] ? n->inputs[i]->name : "");
  np->n_output = (size_t)n->noutputs;
  if (!(np->output = ARRAY(s, char *, n->noutputs))) return NULL;
  for (int i = 0; i < n->noutputs; i++)
    np->output[i] = str(n->outputs[i]->name);

  int na = n->nblocks;
  for (const oxp_attr *a = n->attrs; a; a = a->next) na++;
  if (!(np->attribute = ARRAY(s, Onnx__AttributeProto *, na))) return NULL;
  for (const oxp_attr *a = n->attrs; a; a = a->next)
    if (!(np->attribute[np->n_attribute++] = ser_attr(s, n, a))) return NULL;
  for (int k = 0; k < n->nblocks; k++) {
    const char *an = block_attr_name(n, domain, k);
    if (!an) {
      s->st = oxp_fail(s->d, OXP_ERR_INTERNAL, &n->loc, n->kind,
                       "%s has a block %d with no ONNX graph attribute",
                       n->kind, k);
      return NULL;
    }
    Onnx__AttributeProto *ap =
        NEW(s, Onnx__AttributeProto, onnx__attribute_proto__init);
    if (!ap) return NULL;
    ap->name = str(an);
    ap->has_type = 1;
    ap->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    const char *gname = oxp_sprintf(s->a, "%s_%s", n->name, an);
    if (!gname) {
      nomem(s);
      return NULL;
    }
    if (!(ap->g = ser_block(s, n->blocks[k], gname, false)))
      return NULL;
    np->attribute[np->n_attribute++] = ap;
  }
  return np;
}

/* ---- graphs --------------------------------------------------------------- */

static bool add_init(ser *s, Onnx__GraphProto *gp, const oxp_value *v) {
  oxp_status st = oxp_ser_tensor(&s->tw, v->init, v->name,
                                 &gp->initializer[gp->n_initializer]);
  if (st) {
    s->st = st;
    return false;
  }
  gp->n_initializer++;
  return true;
}

static Onnx__GraphProto *ser_block(ser *s, const oxp_block *b,
                                   const char *name, bool top) {
  Onnx__GraphProto *gp = NEW(s, Onnx__GraphProto, onnx__graph_proto__init);
  if (!gp) return NULL;
  gp->name = str(name);

  /* Inputs: a subgraph lists all block inputs; the top graph follows the
   * keep_initializers_as_inputs / export_params split. */
  if (!(gp->input = ARRAY(s, Onnx__ValueInfoProto *, b->ninputs)))
    return NULL;
  for (int i = 0; i < b->ninputs; i++) {
    const oxp_value *v = b->inputs[i];
    if (top && v->init) continue; /* user inputs come first */
    if (!(gp->input[gp->n_input++] = ser_value_info(s, v))) return NULL;
  }
  for (int i = 0; top && i < b->ninputs; i++) {
    const oxp_value *v = b->inputs[i];
    if (!v->init || !oxp_top_input_listed(s->o, v)) continue;
    if (!(gp->input[gp->n_input++] = ser_value_info(s, v))) return NULL;
  }

  gp->initializer = ARRAY(s, Onnx__TensorProto *, b->ninputs + b->ninits);
  if (!gp->initializer) return NULL;
  for (int i = 0; top && i < b->ninputs; i++)
    if (oxp_top_input_is_init(s->o, b->inputs[i]) &&
        !add_init(s, gp, b->inputs[i]))
      return NULL;
  for (int i = 0; i < b->ninits; i++) {
    if (!b->inits[i]->init) {
      s->st = oxp_fail(s->d, OXP_ERR_INTERNAL, NULL, NULL,
                       "constant %%%s has no tensor", b->inits[i]->name);
      return NULL;
    }
    if (!add_init(s, gp, b->inits[i])) return NULL;
  }

  if (!(gp->output = ARRAY(s, Onnx__ValueInfoProto *, b->noutputs)))
    return NULL;
  int stamp = ++s->stamp;
  for (int i = 0; i < b->noutputs; i++) {
    s->out_stamp[b->outputs[i]->id] = stamp;
    if (!(gp->output[gp->n_output++] = ser_value_info(s, b->outputs[i])))
      return NULL;
  }

  /* value_info before the nodes: serializing a node recurses into its
   * blocks, which restamp their own outputs. */
  int nn = 0, nvi = 0;
  for (const oxp_node *n = b->first; n; n = n->next, nn++) nvi += n->noutputs;
  if (!(gp->value_info = ARRAY(s, Onnx__ValueInfoProto *, nvi))) return NULL;
  for (const oxp_node *n = b->first; n; n = n->next)
    for (int i = 0; i < n->noutputs; i++) {
      const oxp_value *v = n->outputs[i];
      if (s->out_stamp[v->id] == stamp || !type_known(v->type)) continue;
      if (!(gp->value_info[gp->n_value_info++] = ser_value_info(s, v)))
        return NULL;
    }

  if (!(gp->node = ARRAY(s, Onnx__NodeProto *, nn))) return NULL;
  for (const oxp_node *n = b->first; n; n = n->next)
    if (!(gp->node[gp->n_node++] = ser_node(s, n))) return NULL;
  return gp;
}

/* ---- opset imports -------------------------------------------------------- */

typedef struct {
  Onnx__OperatorSetIdProto **v;
  size_t n, cap;
  oxp_map seen; /* domain -> entry */
} imports;

static bool add_import(ser *s, imports *im, const char *domain,
                       int64_t version) {
  if (oxp_map_get(&im->seen, domain)) return true;
  if (im->n == im->cap) {
    size_t nc = im->cap ? im->cap * 2 : 8;
    void *p = oxp_realloc(s->a, im->v, im->cap * sizeof *im->v,
                          nc * sizeof *im->v);
    if (!p) return nomem(s);
    im->v = p;
    im->cap = nc;
  }
  Onnx__OperatorSetIdProto *op =
      NEW(s, Onnx__OperatorSetIdProto, onnx__operator_set_id_proto__init);
  if (!op) return false;
  if (!oxp_map_put(&im->seen, domain, op)) return nomem(s);
  op->domain = str(domain);
  op->has_version = 1;
  op->version = version;
  im->v[im->n++] = op;
  return true;
}

static int64_t custom_version(const oxp_options *o, const char *domain) {
  for (int i = 0; i < o->n_custom_opsets; i++)
    if (strcmp(o->custom_opsets[i].domain, domain) == 0)
      return o->custom_opsets[i].version;
  return 1;
}

/* Custom domains in first-use order, so the list is deterministic. */
static bool used_domains(ser *s, imports *im, const oxp_block *b) {
  for (const oxp_node *n = b->first; n; n = n->next) {
    const char *dom = oxp_op_domain(s->a, n->kind);
    if (!dom) return nomem(s);
    if (*dom && !add_import(s, im, dom, custom_version(s->o, dom)))
      return false;
    for (int k = 0; k < n->nblocks; k++)
      if (!used_domains(s, im, n->blocks[k])) return false;
  }
  return true;
}

static bool ser_imports(ser *s, Onnx__ModelProto *m, const oxp_graph *g) {
  imports im = {0};
  oxp_map_init(&im.seen, s->a);
  if (!add_import(s, &im, "", s->o->opset)) return false;
  /* "ai.onnx" is the default domain by another name; it never gets an
   * entry of its own. */
  if (!oxp_map_put(&im.seen, "ai.onnx", im.v[0])) return nomem(s);
  if (!used_domains(s, &im, g->top)) return false;
  for (int i = 0; i < s->o->n_custom_opsets; i++)
    if (!add_import(s, &im, s->o->custom_opsets[i].domain,
                    s->o->custom_opsets[i].version))
      return false;
  m->n_opset_import = im.n;
  m->opset_import = im.v;
  return true;
}

/* ---- packing -------------------------------------------------------------- */

/* What oxp_ser_build returns: the ModelProto first, so the pointer it
 * hands out is also this. */
typedef struct {
  Onnx__ModelProto m;
  oxp_lazy_refs lazy;
  oxp_pb_sizes sizes; /* of every message, once measured (proto_pack.c) */
  uint64_t size;      /* the whole model's */
} built;

typedef struct {
  ProtobufCBuffer base; /* first: protobuf-c hands us &base */
  oxp_sink *sink;
  const oxp_lazy_refs *lazy;
  unsigned char *stage;
  size_t used;
  uint64_t total;
  oxp_status st;
} stream;

static void flush(stream *st) {
  if (st->used && st->st == OXP_OK)
    st->st = st->sink->write(st->sink, st->stage, st->used);
  st->used = 0;
}

static oxp_status sink_put(void *u, const void *p, size_t n) {
  oxp_sink *s = u;
  return s->write(s, p, n);
}

static void stream_append(ProtobufCBuffer *b, size_t len, const uint8_t *p) {
  stream *st = (stream *)b;
  if (st->st || len == 0) return;
  st->total += len;
  if (len >= STAGE_SIZE) {
    flush(st);
    const oxp_tensor *lz = oxp_lazy_refs_find(st->lazy, p, len);
    if (st->st == OXP_OK)
      st->st = lz ? oxp_tensor_produce(lz, sink_put, st->sink, st->sink->d)
                  : st->sink->write(st->sink, p, len);
    return;
  }
  if (st->used + len > STAGE_SIZE) flush(st);
  memcpy(st->stage + st->used, p, len);
  st->used += len;
}

oxp_status oxp_ser_measure(Onnx__ModelProto *m, uint64_t *size, oxp_diag *d) {
  built *b = (built *)m;
  if (!b->sizes.n && !oxp_pb_measure(&m->base, &b->sizes, &b->size))
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory while sizing the ONNX model");
  *size = b->size;
  return OXP_OK;
}

oxp_status oxp_ser_pack(Onnx__ModelProto *m, oxp_sink *sink, oxp_diag *d) {
  uint64_t size = 0;
  oxp_status ms = oxp_ser_measure(m, &size, d);
  if (ms) return ms;
  if (size > OXP_PROTO_LIMIT)
    return oxp_fail(d, OXP_ERR_UNSUPPORTED, NULL, NULL,
                    "the model would be %llu bytes, above protobuf's 2 GiB "
                    "limit; write it to a file so its tensors can go to "
                    "external data",
                    (unsigned long long)size);
  stream st = {.base = {.append = stream_append}, .sink = sink,
                .lazy = &((const built *)m)->lazy};
  if (!(st.stage = oxp_mem_alloc(STAGE_SIZE)))
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory for the write buffer");
  oxp_pb_pack(&m->base, &((const built *)m)->sizes, &st.base);
  flush(&st);
  free(st.stage);
  if (st.st)
    /* The sink normally said why in its own diag; this only fills in. */
    return oxp_fail(d, st.st, NULL, NULL, "writing the model failed");
  if (st.total != size)
    return oxp_fail(d, OXP_ERR_INTERNAL, NULL, NULL,
                    "packed %llu bytes, expected %llu",
                    (unsigned long long)st.total, (unsigned long long)size);
  return OXP_OK;
}

oxp_status oxp_ser_build(oxp_graph *g, const oxp_options *o, oxp_ext *ext,
                         Onnx__ModelProto **out, oxp_diag *d) {
  *out = NULL;
  int64_t ir = oxp_ir_version_for_opset(o->opset);
  if (ir == 0)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "opset %d is not supported (%d to %d)", o->opset,
                    OXP_OPSET_MIN, OXP_OPSET_MAX);
  /* The pipeline names values as its last step; a graph built by hand is
   * named here (naming is idempotent, but a walk of the whole graph). */
  if (!g->named) {
    oxp_status st = oxp_assign_names(g, d);
    if (st) return st;
  }

  ser s = {.a = g->arena, .o = o, .d = d};
  s.out_stamp = ARRAY(&s, int, g->nvalues + 1);
  built *b = NEW(&s, built, onnx__model_proto__init);
  if (!b) return s.st;
  b->sizes = (oxp_pb_sizes){.a = g->arena, .shared = &onnx__type_proto__descriptor};
  Onnx__ModelProto *m = &b->m;
  s.tw = (oxp_tensor_writer){.arena = g->arena, .opts = o, .ext = ext,
                             .lazy = &b->lazy, .d = d};
  m->has_ir_version = 1;
  m->ir_version = ir;
  m->producer_name = str("onnxexp");
  m->producer_version = str(OXP_VERSION);
  if (!o->strip_doc_string && o->doc_string)
    m->doc_string = str(o->doc_string);
  if (!ser_imports(&s, m, g)) return s.st;
  if (!(m->graph = ser_block(&s, g->top, "main_graph", true))) return s.st;
  oxp_lazy_refs_seal(&b->lazy);
  *out = m;
  return OXP_OK;
}

/* A sink of its own has no data file and no directory to point into, so
 * only inline models can be streamed to one; oxp_write_file does the rest. */
oxp_status oxp_serialize(oxp_graph *g, const oxp_options *o, oxp_sink *sink,
                         oxp_diag *d) {
  if (o->external_data != OXP_EXT_NONE)
    return oxp_fail(d, OXP_ERR_USAGE, NULL, NULL,
                    "external data needs the model written to a file");
  Onnx__ModelProto *m;
  oxp_status st = oxp_ser_build(g, o, NULL, &m, d);
  return st ? st : oxp_ser_pack(m, sink, d);
}

/* ---- sizes ------------------------------------------------------------------ */

static uint64_t block_tensor_bytes(const oxp_block *b) {
  uint64_t n = 0;
  for (int i = 0; i < b->ninputs; i++)
    if (b->inputs[i]->init) n += b->inputs[i]->init->nbytes;
  for (int i = 0; i < b->ninits; i++)
    if (b->inits[i]->init) n += b->inits[i]->init->nbytes;
  for (const oxp_node *nd = b->first; nd; nd = nd->next) {
    for (const oxp_attr *a = nd->attrs; a; a = a->next)
      if (a->kind == OXP_A_TENSOR && a->t) n += a->t->nbytes;
    for (int k = 0; k < nd->nblocks; k++) n += block_tensor_bytes(nd->blocks[k]);
  }
  return n;
}

uint64_t oxp_graph_tensor_bytes(const oxp_graph *g) {
  return g && g->top ? block_tensor_bytes(g->top) : 0;
}
