/* pretty.c: the lowered graph as readable text, in the spirit of
 * torch.onnx.export_to_pretty_string and onnx.helper.printable_graph:
 *
 *   ir_version: 8
 *   opset_import: ""=17, mydomain=1
 *   producer: onnxexp 0.1.0
 *   graph main_graph (
 *     %x[FLOAT, batchx3]
 *   ) initializers (
 *     %w[FLOAT, 4x3]
 *   ) {
 *     %y = Gemm[alpha=1, transB=1](%x, %w)
 *     return (%y)
 *   }
 *
 * It prints what the serializer would write (same names, same input and
 * initializer split), so it is useful for --verbose and for test diffs. The
 * output is deterministic; floats use %g, so they depend on no locale
 * beyond the C library's LC_NUMERIC. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serialize.h"

typedef struct {
  char *p;
  size_t len, cap;
  bool oom;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0,
                    fmt, ap);
  va_end(ap);
  if (n < 0) {
    b->oom = true;
    return;
  }
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 1024;
    while (nc < b->len + (size_t)n + 1) nc *= 2;
    char *q = oxp_mem_realloc(b->p, nc);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = nc;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
  }
  b->len += (size_t)n;
}

static void indent(sbuf *b, int depth) { put(b, "%*s", 2 * depth, ""); }

/* ONNX's spelling of the element types, as onnx.helper prints them. */
static const char *onnx_dtype(int dt) {
  static const char *const names[OXP_DT_COUNT] = {
      "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32",
      "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64",
      "COMPLEX64", "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"};
  return dt >= 0 && dt < OXP_DT_COUNT ? names[dt] : "?";
}

static void put_dims(sbuf *b, int rank, const int64_t *dims,
                     const char *const *params) {
  if (rank == 0) put(b, "scalar");
  for (int i = 0; i < rank; i++) {
    if (i) put(b, "x");
    if (params && params[i]) put(b, "%s", params[i]);
    else if (dims[i] >= 0) put(b, "%lld", (long long)dims[i]);
    else put(b, "?");
  }
}

static void put_type(sbuf *b, const oxp_type *t) {
  switch (t->kind) {
  case OXP_T_TENSOR:
    put(b, "%s", onnx_dtype(t->dtype));
    if (t->rank >= 0) {
      put(b, ", ");
      put_dims(b, t->rank, t->dims, t->dim_params);
    }
    break;
  case OXP_T_SEQUENCE:
  case OXP_T_OPTIONAL:
    put(b, t->kind == OXP_T_SEQUENCE ? "seq(" : "optional(");
    if (t->elem) put_type(b, t->elem);
    put(b, ")");
    break;
  default: {
    char tmp[128];
    oxp_type_print(t, tmp, sizeof tmp);
    put(b, "%s", tmp);
  }
  }
}

static void put_value(sbuf *b, const oxp_value *v, bool typed) {
  put(b, "%%%s", v->name ? v->name : "?");
  if (typed && v->type) {
    put(b, "[");
    put_type(b, v->type);
    put(b, "]");
  }
}

static void put_tensor(sbuf *b, const oxp_tensor *t, const char *name) {
  if (name) put(b, "%%%s", name);
  put(b, "[%s, ", onnx_dtype(t->dtype));
  put_dims(b, t->rank, t->dims, NULL);
  put(b, "]");
}

static void put_str(sbuf *b, const char *s) {
  put(b, "'");
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\'' || c == '\\') put(b, "\\%c", c);
    else if (c < 0x20 || c == 0x7f) put(b, "\\x%02x", c);
    else put(b, "%c", c);
  }
  put(b, "'");
}

static void put_attr(sbuf *b, const oxp_attr *a) {
  put(b, "%s=", a->name);
  switch (a->kind) {
  case OXP_A_INT: put(b, "%lld", (long long)a->i); break;
  case OXP_A_FLOAT: put(b, "%g", (double)(float)a->f); break;
  case OXP_A_STR: put_str(b, a->s); break;
  case OXP_A_TENSOR:
    if (a->t) put_tensor(b, a->t, NULL);
    else put(b, "<no tensor>");
    break;
  case OXP_A_INTS:
  case OXP_A_FLOATS:
  case OXP_A_STRS:
    put(b, "[");
    for (int i = 0; i < a->n; i++) {
      if (i) put(b, ", ");
      if (a->kind == OXP_A_INTS) put(b, "%lld", (long long)a->ints[i]);
      else if (a->kind == OXP_A_FLOATS)
        put(b, "%g", (double)(float)a->floats[i]);
      else put_str(b, a->strs[i]);
    }
    put(b, "]");
    break;
  default: put(b, "None"); break;
  }
}

static void put_block(sbuf *b, const oxp_options *o, const oxp_block *blk,
                      const char *name, bool top, int depth);

static const char *block_label(const oxp_node *n, int k) {
  const char *op = oxp_op_type(n->kind);
  if (strcmp(op, "If") == 0) return k == 0 ? "then_branch" : "else_branch";
  return n->nblocks == 1 ? "body" : "block";
}

static void put_node(sbuf *b, const oxp_options *o, const oxp_node *n,
                     int depth) {
  indent(b, depth);
  for (int i = 0; i < n->noutputs; i++) {
    if (i) put(b, ", ");
    put_value(b, n->outputs[i], false);
  }
  if (n->noutputs) put(b, " = ");
  /* Custom domains stay visible; the default domain goes unsaid. */
  const char *op = oxp_op_type(n->kind);
  bool dflt = op == n->kind || strncmp(n->kind, "onnx::", 6) == 0;
  put(b, "%s", dflt ? op : n->kind);
  if (n->attrs) {
    put(b, "[");
    for (const oxp_attr *a = n->attrs; a; a = a->next) {
      if (a != n->attrs) put(b, ", ");
      put_attr(b, a);
    }
    put(b, "]");
  }
  put(b, "(");
  for (int i = 0; i < n->ninputs; i++) {
    if (i) put(b, ", ");
    if (n->inputs[i]) put_value(b, n->inputs[i], false);
    else put(b, "\"\""); /* absent optional input */
  }
  put(b, ")");
  if (n->nblocks) {
    put(b, " {\n");
    for (int k = 0; k < n->nblocks; k++) {
      const char *label = block_label(n, k);
      indent(b, depth + 1);
      put(b, "%s: ", label);
      char gname[256];
      snprintf(gname, sizeof gname, "%s_%s", n->name ? n->name : "?", label);
      put_block(b, o, n->blocks[k], gname, false, depth + 1);
    }
    indent(b, depth);
    put(b, "}");
  }
  put(b, "\n");
}

static void put_block(sbuf *b, const oxp_options *o, const oxp_block *blk,
                      const char *name, bool top, int depth) {
  put(b, "graph %s (\n", name);
  /* Same order as the serializer: user inputs, then listed weights. */
  for (int pass = 0; pass < (top ? 2 : 1); pass++)
    for (int i = 0; i < blk->ninputs; i++) {
      const oxp_value *v = blk->inputs[i];
      if (top && (pass == 0) != !v->init) continue;
      if (top && pass == 1 && !oxp_top_input_listed(o, v)) continue;
      indent(b, depth + 1);
      put_value(b, v, true);
      put(b, "\n");
    }
  indent(b, depth);
  put(b, ")");
  bool any_init = blk->ninits > 0;
  for (int i = 0; top && i < blk->ninputs; i++)
    any_init |= oxp_top_input_is_init(o, blk->inputs[i]);
  if (any_init) {
    put(b, " initializers (\n");
    for (int i = 0; top && i < blk->ninputs; i++) {
      if (!oxp_top_input_is_init(o, blk->inputs[i])) continue;
      indent(b, depth + 1);
      put_tensor(b, blk->inputs[i]->init, blk->inputs[i]->name);
      put(b, "\n");
    }
    for (int i = 0; i < blk->ninits; i++) {
      indent(b, depth + 1);
      if (blk->inits[i]->init)
        put_tensor(b, blk->inits[i]->init, blk->inits[i]->name);
      else put_value(b, blk->inits[i], true);
      put(b, "\n");
    }
    indent(b, depth);
    put(b, ")");
  }
  put(b, " {\n");
  for (const oxp_node *n = blk->first; n; n = n->next)
    put_node(b, o, n, depth + 1);
  indent(b, depth + 1);
  put(b, "return (");
  for (int i = 0; i < blk->noutputs; i++) {
    if (i) put(b, ", ");
    put_value(b, blk->outputs[i], false);
  }
  put(b, ")\n");
  indent(b, depth);
  put(b, "}\n");
}

/* Custom domains in first-use order, as the serializer lists them. */
static void put_domains(sbuf *b, const oxp_options *o, const oxp_block *blk,
                        oxp_map *seen, oxp_arena *a) {
  for (const oxp_node *n = blk->first; n; n = n->next) {
    const char *dom = oxp_op_domain(a, n->kind);
    if (dom && *dom && !oxp_map_get(seen, dom)) {
      int64_t ver = 1;
      for (int i = 0; i < o->n_custom_opsets; i++)
        if (strcmp(o->custom_opsets[i].domain, dom) == 0)
          ver = o->custom_opsets[i].version;
      if (!oxp_map_put(seen, dom, (void *)dom)) b->oom = true;
      put(b, ", %s=%lld", dom, (long long)ver);
    }
    for (int k = 0; k < n->nblocks; k++)
      put_domains(b, o, n->blocks[k], seen, a);
  }
}

char *oxp_pretty_graph(oxp_graph *g, const oxp_options *o) {
  /* Names only fail on a malformed graph; print what is there anyway,
   * since this text is what one reads to find out what is wrong. */
  (void)oxp_assign_names(g, NULL);
  sbuf b = {0};
  put(&b, "ir_version: %lld\n",
      (long long)oxp_ir_version_for_opset(o->opset));
  put(&b, "opset_import: \"\"=%d", o->opset);
  oxp_map seen;
  oxp_map_init(&seen, g->arena);
  if (!oxp_map_put(&seen, "", "") || !oxp_map_put(&seen, "ai.onnx", ""))
    b.oom = true;
  put_domains(&b, o, g->top, &seen, g->arena);
  for (int i = 0; i < o->n_custom_opsets; i++) {
    const char *dom = o->custom_opsets[i].domain;
    if (oxp_map_get(&seen, dom)) continue;
    if (!oxp_map_put(&seen, dom, (void *)dom)) b.oom = true;
    put(&b, ", %s=%lld", dom, (long long)o->custom_opsets[i].version);
  }
  put(&b, "\nproducer: onnxexp " OXP_VERSION "\n");
  if (!o->strip_doc_string && o->doc_string) {
    put(&b, "doc_string: ");
    put_str(&b, o->doc_string);
    put(&b, "\n");
  }
  put_block(&b, o, g->top, "main_graph", true, 0);
  if (b.oom || oxp_arena_failed(g->arena)) {
    free(b.p);
    return NULL;
  }
  return b.p;
}

char *oxp_pretty(const oxp_graph *g, const oxp_options *o) {
  /* export.h keeps the const; naming is the only write and is idempotent,
   * so a graph already named is not changed at all. */
  return oxp_pretty_graph((oxp_graph *)(uintptr_t)g, o);
}
