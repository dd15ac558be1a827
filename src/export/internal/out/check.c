/* check.c: the structural model check behind onnxexp_check_model. It
 * unpacks with protobuf-c (so the bytes are a ModelProto by definition of
 * the schema; proto_depth.c first bounds the nesting that unpack recurses
 * over) and then checks only what every loader needs first; it is
 * deliberately not a port of onnx.checker. */
#include <stdlib.h>
#include <string.h>

#include <protobuf-c/protobuf-c.h>

#include "api_core.h"
#include "proto_depth.h"
#include "onnx/onnx.pb-c.h"

/* protobuf-c's allocations are the library's too (failure points for the
 * tests, fault.h), and unpack answers NULL both for bytes that do not
 * parse and for memory that ran out: the allocator tells which. */
static void *pb_alloc(void *data, size_t n) {
  void *p = oxp_mem_alloc(n);
  if (!p) *(bool *)data = true;
  return p;
}

static void pb_free(void *data, void *p) {
  (void)data;
  free(p);
}

static bool is_default_domain(const char *d) {
  return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

static bool imported(const oxp_model_info *m, const char *domain) {
  for (int i = 0; i < m->nopsets; i++)
    if (is_default_domain(domain) ? is_default_domain(m->opsets[i].domain)
                                  : strcmp(m->opsets[i].domain, domain) == 0)
      return true;
  return false;
}

static oxp_status check_graph(const oxp_model_info *m,
                              const Onnx__GraphProto *g, int depth,
                              oxp_diag *d) {
  if (depth > 64)
    return oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL,
                    "subgraphs nested deeper than 64");
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *n = g->node[i];
    const char *op = n->op_type ? n->op_type : "?";
    if (!imported(m, n->domain))
      return oxp_fail(d, OXP_ERR_GRAPH, NULL, op,
                      "node %zu (%s) uses domain '%s', which the model does "
                      "not import", i, op, n->domain ? n->domain : "");
    for (size_t k = 0; k < n->n_attribute; k++) {
      const Onnx__AttributeProto *a = n->attribute[k];
      oxp_status st = OXP_OK;
      if (a->g) st = check_graph(m, a->g, depth + 1, d);
      for (size_t j = 0; j < a->n_graphs && !st; j++)
        st = check_graph(m, a->graphs[j], depth + 1, d);
      if (st) return st;
    }
  }
  return OXP_OK;
}

static const char **names_of(oxp_arena *a, Onnx__ValueInfoProto **v, size_t n) {
  const char **r = oxp_alloc(a, sizeof *r * (n + 1));
  for (size_t i = 0; r && i < n; i++)
    if (!(r[i] = oxp_strdup(a, v[i]->name ? v[i]->name : ""))) return NULL;
  return r;
}

static oxp_status fill(oxp_model_info *m, const Onnx__ModelProto *mp,
                       oxp_diag *d) {
  oxp_arena *a = m->arena;
  const Onnx__GraphProto *g = mp->graph;
  m->ir_version = mp->ir_version;
  m->nopsets = (int)mp->n_opset_import;
  m->opsets = oxp_alloc(a, sizeof *m->opsets * (mp->n_opset_import + 1));
  if (!m->opsets) return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *op = mp->opset_import[i];
    if (!op->has_version)
      return oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL,
                      "opset import of domain '%s' has no version",
                      op->domain ? op->domain : "");
    m->opsets[i].domain = oxp_strdup(a, is_default_domain(op->domain) ? "" : op->domain);
    m->opsets[i].version = op->version;
  }
  m->ninputs = (int)g->n_input;
  m->noutputs = (int)g->n_output;
  m->nnodes = (int)g->n_node;
  m->ninits = (int)g->n_initializer;
  m->inputs = names_of(a, g->input, g->n_input);
  m->outputs = names_of(a, g->output, g->n_output);
  m->node_ops = oxp_alloc(a, sizeof *m->node_ops * (g->n_node + 1));
  for (size_t i = 0; m->node_ops && i < g->n_node; i++)
    m->node_ops[i] = oxp_strdup(a, g->node[i]->op_type ? g->node[i]->op_type : "");
  /* Any name that could not be copied (NULL in a list) fails it all. */
  if (oxp_arena_failed(a)) return oxp_fail_nomem(d);
  return check_graph(m, g, 0, d);
}

oxp_status oxp_check_model(const void *buf, size_t len, oxp_model_info **out,
                           oxp_diag *d) {
  if (out) *out = NULL;
  oxp_status st = oxp_proto_depth_check(&onnx__model_proto__descriptor, buf,
                                        len, d);
  if (st) return st;
  bool oom = false;
  ProtobufCAllocator pb = {pb_alloc, pb_free, &oom};
  Onnx__ModelProto *mp = onnx__model_proto__unpack(&pb, len, buf);
  if (!mp && oom)
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL,
                    "out of memory reading a %zu-byte model", len);
  if (!mp)
    return oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL,
                    "the %zu bytes do not parse as an onnx ModelProto", len);
  if (!mp->has_ir_version || mp->ir_version <= 0)
    st = oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL, "the model has no ir_version");
  else if (!mp->graph)
    st = oxp_fail(d, OXP_ERR_GRAPH, NULL, NULL, "the model has no graph");
  oxp_model_info *m = NULL;
  oxp_arena *a = st ? NULL : oxp_arena_new();
  if (!st && !(a && (m = oxp_alloc(a, sizeof *m))))
    st = oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (!st) {
    m->arena = a;
    st = fill(m, mp, d);
  }
  onnx__model_proto__free_unpacked(mp, &pb);
  if (st || !out) {
    oxp_arena_free(a);
    return st;
  }
  *out = m;
  return OXP_OK;
}

void oxp_model_info_free(oxp_model_info *m) {
  if (m) oxp_arena_free(m->arena);
}
