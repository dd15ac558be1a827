/* parser.c: TorchScript IR text (as str(graph) prints it) to an oxp_graph.
 *
 *   graph  := 'graph' '(' [param {',' param}] ')' ':' EOL body
 *             'return' '(' [use {',' use}] ')' EOL
 *   param  := %name [':' type]
 *   body   := {node EOL}
 *   node   := [param {',' param}] '=' kind ['[' attrs ']'] '(' uses ')'
 *             [', scope: TEXT'] ['# SOURCE'] EOL {block}
 *   block  := 'blockN' '(' [param {',' param}] ')' ':' EOL body
 *             '->' '(' [use {',' use}] ')' EOL
 *
 * Indentation is not significant: '->' closes a block and 'blockN' can
 * only follow a node or another block, so the structure is unambiguous
 * without it. Names follow the IR's scoping: a block sees the names of
 * the blocks around it, and its own names end with it. */
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* One map holds every visible name, so a lookup costs the same at any
 * depth; a scope lists its own definitions to retire them when it ends. */
typedef struct def def;
struct def {
  oxp_value *v; /* NULL once its scope has ended */
  oxp_loc loc;
  def *next;    /* the scope's previous definition */
};

typedef struct scope scope;
struct scope {
  def *defs;
  scope *up;
};

/* A node output as its line declares it. */
typedef struct {
  oxp_tok name;
  oxp_type *type;
} out_decl;

typedef struct {
  oxp_pctx c;
  oxp_graph *g;
  oxp_map names; /* name -> def */
  scope *sc;
  out_decl *outs; /* the current node line's outputs */
  int capouts;
  /* Op kinds and source comments repeat from line to line: recent ones
   * are reused (strings are never written after parsing), which spares
   * an arena copy of each per node. */
  struct recent_text {
    const char *s; /* NULL: empty */
    size_t n;
  } recent[32];
} parser;

/* text (n bytes) as a NUL-terminated arena string: a recent one with the
 * same bytes, or a new copy. NULL when the arena runs out. */
static const char *recent_str(parser *p, const char *text, size_t n) {
  size_t h = n ? n * 31 + (unsigned char)text[n - 1] * 7 + (unsigned char)text[n / 2] : 0;
  struct recent_text *r = &p->recent[h % (sizeof p->recent / sizeof *p->recent)];
  if (r->s && r->n == n && memcmp(r->s, text, n) == 0) return r->s;
  char *s = oxp_strndup(p->c.a, text, n);
  if (s) r->s = s, r->n = n;
  return s;
}

/* ---- errors ---------------------------------------------------------- */

bool oxp_perr(oxp_pctx *c, const oxp_loc *loc, const char *fmt, ...) {
  if (c->st) return false;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  c->st = oxp_fail(c->d, OXP_ERR_PARSE, loc, NULL, "%s", msg);
  return false;
}

bool oxp_pnomem(oxp_pctx *c, const oxp_loc *loc) {
  if (!c->st) c->st = oxp_fail(c->d, OXP_ERR_NOMEM, loc, NULL, "out of memory");
  return false;
}

bool oxp_punexpected(oxp_pctx *c, oxp_tok t, const char *want) {
  char b[64];
  if (t.kind == LX_BAD) return oxp_perr(c, &t.loc, "%s", t.err);
  return oxp_perr(c, &t.loc, "expected %s, found %s", want,
                  oxp_lx_describe(t, b, sizeof b));
}

bool oxp_pexpect(oxp_pctx *c, int p, const char *what) {
  oxp_tok t = oxp_lx_next(&c->lx);
  if (oxp_lx_is_punct(t, p)) return true;
  char want[96];
  snprintf(want, sizeof want, "'%c' %s", p, what);
  return oxp_punexpected(c, t, want);
}

static bool expect_word(parser *p, const char *w, const char *want) {
  oxp_tok t = oxp_lx_next(&p->c.lx);
  return oxp_lx_is_word(t, w) || oxp_punexpected(&p->c, t, want);
}

/* A line may end in a comment; the printer puts source locations there. */
static bool expect_eol(parser *p, const char *after) {
  oxp_tok t = oxp_lx_next(&p->c.lx);
  if (t.kind == LX_COMMENT) t = oxp_lx_next(&p->c.lx);
  if (t.kind == LX_NEWLINE || t.kind == LX_EOF) return true;
  char want[96];
  snprintf(want, sizeof want, "end of line after %s", after);
  return oxp_punexpected(&p->c, t, want);
}

static void skip_newlines(parser *p) {
  for (;;) {
    oxp_tok t = oxp_lx_peek(&p->c.lx);
    if (t.kind != LX_NEWLINE && t.kind != LX_COMMENT) return;
    oxp_lx_next(&p->c.lx);
  }
}

/* ---- names ------------------------------------------------------------ */

static def *lookup(parser *p, const char *name) {
  def *d = oxp_map_get(&p->names, name);
  return d && d->v ? d : NULL;
}

static bool define(parser *p, oxp_value *v, oxp_loc loc) {
  def *old = lookup(p, v->name);
  if (old)
    return oxp_perr(&p->c, &loc, "value '%%%s' is defined twice (first at "
                    "line %d)", v->name, old->loc.line);
  def *d = oxp_alloc(p->c.a, sizeof *d);
  if (!d || !oxp_map_put(&p->names, v->name, d)) return oxp_pnomem(&p->c, &loc);
  d->v = v;
  d->loc = loc;
  d->next = p->sc->defs;
  p->sc->defs = d;
  return true;
}

static bool push_scope(parser *p) {
  scope *s = oxp_alloc(p->c.a, sizeof *s);
  if (!s) return oxp_pnomem(&p->c, NULL);
  s->up = p->sc;
  p->sc = s;
  return true;
}

static void pop_scope(parser *p) {
  for (def *d = p->sc->defs; d; d = d->next) d->v = NULL;
  p->sc = p->sc->up;
}

static char *tok_str(parser *p, oxp_tok t) {
  char *s = oxp_strndup(p->c.a, t.p, t.n);
  if (!s) oxp_pnomem(&p->c, &t.loc);
  return s;
}

/* `%name` that must already be defined. */
static oxp_value *use(parser *p) {
  oxp_tok t = oxp_lx_next(&p->c.lx);
  if (t.kind != LX_VALUE) {
    oxp_punexpected(&p->c, t, "a value such as '%x'");
    return NULL;
  }
  /* The name is only looked up: on the stack, not copied to the arena
   * (every use of every value passes here). */
  char buf[128];
  char *name = buf;
  if (t.n < sizeof buf) memcpy(buf, t.p, t.n), buf[t.n] = 0;
  else if (!(name = tok_str(p, t))) return NULL;
  def *d = lookup(p, name);
  if (!d) oxp_perr(&p->c, &t.loc, "use of undefined value '%%%s'", name);
  return d ? d->v : NULL;
}

/* `(%a, %b)` handing each value to add (node input or block output). */
static bool uses(parser *p, const char *what, void *into,
                 bool (*add)(void *, oxp_value *)) {
  char ctx[96];
  oxp_tok open = oxp_lx_next(&p->c.lx);
  if (!oxp_lx_is_punct(open, '(')) {
    snprintf(ctx, sizeof ctx, "'(' before %s", what);
    return oxp_punexpected(&p->c, open, ctx);
  }
  if (oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), ')')) return oxp_lx_next(&p->c.lx), true;
  for (;;) {
    oxp_value *v = use(p);
    if (!v) return false;
    if (!add(into, v)) return oxp_pnomem(&p->c, NULL);
    oxp_tok t = oxp_lx_next(&p->c.lx);
    if (oxp_lx_is_punct(t, ')')) return true;
    if (!oxp_lx_is_punct(t, ',')) {
      snprintf(ctx, sizeof ctx, "',' or ')' in %s", what);
      return oxp_punexpected(&p->c, t, ctx);
    }
  }
}

static bool add_node_input(void *n, oxp_value *v) {
  return oxp_node_add_input(n, v);
}
static bool add_block_output(void *b, oxp_value *v) {
  return oxp_block_add_output(b, v);
}

/* `%name [: type]`; parse_ir leaves the type out, meaning Tensor. */
static bool param(parser *p, oxp_tok *name, oxp_type **ty) {
  *name = oxp_lx_next(&p->c.lx);
  if (name->kind != LX_VALUE)
    return oxp_punexpected(&p->c, *name, "a value such as '%x'");
  if (!oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), ':')) {
    *ty = oxp_type_tensor(p->c.a, 0, -1, NULL);
    return *ty || oxp_pnomem(&p->c, &name->loc);
  }
  oxp_lx_next(&p->c.lx);
  *ty = oxp_parse_type(&p->c);
  return *ty != NULL;
}

/* Records where the graph's newest input is declared; the array doubles
 * at powers of two, so n inputs cost O(n). */
static bool note_input_loc(parser *p, oxp_block *b, oxp_loc loc) {
  oxp_graph *g = b->graph;
  int i = b->ninputs - 1;
  if (i == 0 || (i >= 8 && (i & (i - 1)) == 0)) {
    size_t old = i ? (size_t)i : 0, cap = i ? 2 * (size_t)i : 8;
    g->input_locs = oxp_realloc(p->c.a, g->input_locs, old * sizeof loc,
                                cap * sizeof loc);
    if (!g->input_locs) return false;
  }
  g->input_locs[i] = loc;
  return true;
}

/* Block or graph parameters up to ')', defined in the current scope. */
static bool params(parser *p, oxp_block *b, bool multiline) {
  if (multiline) skip_newlines(p);
  if (oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), ')')) return oxp_lx_next(&p->c.lx), true;
  for (;;) {
    oxp_tok name;
    oxp_type *ty;
    if (!param(p, &name, &ty)) return false;
    char *s = tok_str(p, name);
    oxp_value *v = s ? oxp_block_add_input(b, s, ty) : NULL;
    if (!v || (!b->owner && !note_input_loc(p, b, name.loc)))
      return oxp_pnomem(&p->c, &name.loc);
    if (!define(p, v, name.loc)) return false;
    if (multiline) skip_newlines(p);
    oxp_tok t = oxp_lx_next(&p->c.lx);
    if (oxp_lx_is_punct(t, ')')) return true;
    if (!oxp_lx_is_punct(t, ','))
      return oxp_punexpected(&p->c, t, multiline ? "',' or ')' after a graph input"
                                            : "',' or ')' after a block "
                                              "parameter");
    if (multiline) skip_newlines(p);
  }
}

/* ---- nodes and blocks --------------------------------------------------- */

/* Blocks nest by recursion (body -> node -> block -> body). Whatever a
 * level does besides recursing lives in out-of-line helpers, so the
 * recursive frames stay small. */

static bool body(parser *p, oxp_block *b, int depth);

/* `blockN(params):` opening a block at depth; NULL after an error. */
static OXP_OUT_OF_LINE oxp_block *block_header(parser *p, oxp_node *n, int depth) {
  oxp_tok name = oxp_lx_next(&p->c.lx);
  if (depth > OXP_MAX_BLOCK_DEPTH) {
    oxp_perr(&p->c, &name.loc, "blocks nested deeper than %d (onnxexp's "
             "limit)", OXP_MAX_BLOCK_DEPTH);
    return NULL;
  }
  oxp_block *b = oxp_node_add_block(n);
  if (!b) return oxp_pnomem(&p->c, &name.loc), NULL;
  bool ok = push_scope(p) &&
            oxp_pexpect(&p->c, '(', "after the block name") &&
            params(p, b, false) &&
            oxp_pexpect(&p->c, ':', "after the block parameters") &&
            expect_eol(p, "the block header");
  return ok ? b : NULL;
}

/* `-> (outputs)` closing b; its names end with it. */
static OXP_OUT_OF_LINE bool block_end(parser *p, oxp_block *b) {
  oxp_lx_next(&p->c.lx); /* -> */
  if (!uses(p, "the block outputs", b, add_block_output) ||
      !expect_eol(p, "the block outputs"))
    return false;
  pop_scope(p);
  return true;
}

static bool block(parser *p, oxp_node *n, int depth) {
  oxp_block *b = block_header(p, n, depth);
  return b && body(p, b, depth) && block_end(p, b);
}

static bool is_block_header(oxp_tok t) {
  if (t.kind != LX_IDENT || t.n < 6 || memcmp(t.p, "block", 5) != 0)
    return false;
  for (size_t i = 5; i < t.n; i++)
    if (t.p[i] < '0' || t.p[i] > '9') return false;
  return true;
}

/* "aten::add.Tensor" -> kind "aten::add", overload "Tensor". */
static bool op_kind(parser *p, oxp_node *n, oxp_tok t) {
  const char *sep = NULL;
  for (size_t i = 0; i + 1 < t.n; i++)
    if (t.p[i] == ':' && t.p[i + 1] == ':') sep = t.p + i;
  if (!sep) return oxp_punexpected(&p->c, t, "an operator such as 'aten::add'");
  const char *dot = memchr(sep, '.', (size_t)(t.p + t.n - sep));
  size_t klen = dot ? (size_t)(dot - t.p) : t.n;
  oxp_node_set_kind(n, recent_str(p, t.p, klen));
  if (dot) n->overload = oxp_strndup(p->c.a, dot + 1, t.n - klen - 1);
  return (n->kind && (!dot || n->overload)) || oxp_pnomem(&p->c, &t.loc);
}

/* `^Name[attrs](scalar args)(inputs)`: an autograd Function the tracer
 * recorded. The scalar arguments are Python objects; their text is kept. */
static bool python_op(parser *p, oxp_node *n, const oxp_type *decl) {
  oxp_tok name = oxp_lx_next(&p->c.lx);
  if (name.kind != LX_IDENT)
    return oxp_punexpected(&p->c, name, "a Python function name after '^'");
  oxp_node_set_kind(n, "prim::PythonOp");
  char *s = tok_str(p, name);
  if (!s) return false;
  oxp_attr_set_s(n, "pyname", s);
  if (oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), '[') && !oxp_parse_attrs(&p->c, n, decl))
    return false;
  oxp_tok open = oxp_lx_next(&p->c.lx), last = open;
  if (!oxp_lx_is_punct(open, '('))
    return oxp_punexpected(&p->c, open, "'(' before the Python op's arguments");
  for (int depth = 1; depth > 0;) {
    last = oxp_lx_next(&p->c.lx);
    if (last.kind == LX_NEWLINE || last.kind == LX_EOF || last.kind == LX_BAD)
      return oxp_punexpected(&p->c, last, "')' after the Python op's arguments");
    depth += oxp_lx_is_punct(last, '(') - oxp_lx_is_punct(last, ')');
  }
  char *args = oxp_strndup(p->c.a, open.p + 1, (size_t)(last.p - open.p - 1));
  if (!args) return oxp_pnomem(&p->c, &open.loc);
  oxp_attr_set_s(n, "scalar_args", args);
  return true;
}

/* The part of a node line after its outputs: kind, attributes, inputs,
 * scope and source comment. */
static bool node_rest(parser *p, oxp_node *n, const oxp_type *decl) {
  oxp_tok t = oxp_lx_next(&p->c.lx);
  if (oxp_lx_is_punct(t, '^')) {
    if (!python_op(p, n, decl)) return false;
  } else if (t.kind != LX_IDENT) {
    return oxp_punexpected(&p->c, t, "an operator such as 'aten::add'");
  } else if (!op_kind(p, n, t) ||
             (oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), '[') &&
              !oxp_parse_attrs(&p->c, n, decl))) {
    return false;
  }
  if (!uses(p, "the node's inputs", n, add_node_input)) return false;
  if (oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), ',')) {
    oxp_lx_next(&p->c.lx);
    size_t len;
    if (!expect_word(p, "scope", "'scope:' after ','") ||
        !oxp_pexpect(&p->c, ':', "after 'scope'"))
      return false;
    const char *s = oxp_lx_raw_until_comment(&p->c.lx, &len);
    if (!(n->scope = oxp_strndup(p->c.a, s, len)))
      return oxp_pnomem(&p->c, NULL);
  }
  t = oxp_lx_peek(&p->c.lx);
  if (t.kind == LX_COMMENT) {
    oxp_lx_next(&p->c.lx);
    if (!(n->source = recent_str(p, t.p, t.n)))
      return oxp_pnomem(&p->c, &t.loc);
  }
  return expect_eol(p, "the node");
}

/* `%a : T, %b : T =` or a bare `=` into p->outs, which every node
 * reuses; returns the count, -1 on error. */
static int node_outputs(parser *p) {
  int n = 0;
  if (oxp_lx_peek(&p->c.lx).kind == LX_VALUE) {
    for (;;) {
      if (n == p->capouts) {
        int nc = n ? n * 2 : 4;
        out_decl *o = oxp_realloc(p->c.a, p->outs, sizeof *o * (size_t)n,
                                  sizeof *o * (size_t)nc);
        if (!o) return oxp_pnomem(&p->c, NULL), -1;
        p->outs = o;
        p->capouts = nc;
      }
      if (!param(p, &p->outs[n].name, &p->outs[n].type)) return -1;
      n++;
      if (!oxp_lx_is_punct(oxp_lx_peek(&p->c.lx), ',')) break;
      oxp_lx_next(&p->c.lx);
    }
  }
  if (!oxp_pexpect(&p->c, '=', n ? "after the node's outputs"
                                 : "or a value to start a node"))
    return -1;
  return n;
}

/* A node's line, appended to b. *locs gets where its outputs are named,
 * for define_outputs: nested nodes reuse p->outs before that. */
static OXP_OUT_OF_LINE oxp_node *node_line(parser *p, oxp_block *b,
                                       oxp_loc **locs) {
  oxp_loc at = oxp_lx_here(&p->c.lx);
  int nout = node_outputs(p);
  if (nout < 0) return NULL;
  if (nout == 0) at = oxp_lx_here(&p->c.lx);
  oxp_node *n = oxp_node_new(p->g, "", nout);
  *locs = nout ? oxp_alloc(p->c.a, sizeof **locs * (size_t)nout) : NULL;
  if (!n || (nout && !*locs)) return oxp_pnomem(&p->c, &at), NULL;
  n->loc = at;
  for (int i = 0; i < nout; i++) {
    n->outputs[i]->type = p->outs[i].type;
    (*locs)[i] = p->outs[i].name.loc;
    if (!(n->outputs[i]->name = tok_str(p, p->outs[i].name))) return NULL;
  }
  if (!node_rest(p, n, nout ? p->outs[0].type : NULL)) return NULL;
  oxp_block_append(b, n);
  return n;
}

static OXP_OUT_OF_LINE bool at_block_header(parser *p) {
  return is_block_header(oxp_lx_peek(&p->c.lx));
}

/* After the node's blocks: they cannot see the node's own outputs. */
static OXP_OUT_OF_LINE bool define_outputs(parser *p, oxp_node *n,
                                       const oxp_loc *locs) {
  for (int i = 0; i < n->noutputs; i++)
    if (!define(p, n->outputs[i], locs[i])) return false;
  return true;
}

static bool node(parser *p, oxp_block *b, int depth) {
  oxp_loc *locs;
  oxp_node *n = node_line(p, b, &locs);
  if (!n) return false;
  while (at_block_header(p))
    if (!block(p, n, depth + 1)) return false;
  return define_outputs(p, n, locs);
}

/* Skips to the next node of a block at depth; *more is false at the
 * block's end ('return' for the top block, '->' for nested ones). */
static OXP_OUT_OF_LINE bool next_node(parser *p, int depth, bool *more) {
  skip_newlines(p);
  oxp_tok t = oxp_lx_peek(&p->c.lx);
  *more = false;
  if (depth == 0 && oxp_lx_is_word(t, "return")) return true;
  if (depth > 0 && t.kind == LX_ARROW) return true;
  /* Say which end is missing rather than "expected a node". */
  if (depth > 0 && oxp_lx_is_word(t, "return"))
    return oxp_punexpected(&p->c, t, "'-> (...)' to end the block");
  if (depth == 0 && t.kind == LX_ARROW)
    return oxp_punexpected(&p->c, t, "a node or 'return' (no block is open)");
  if (t.kind == LX_EOF)
    return oxp_perr(&p->c, &t.loc, "expected %s before end of input",
                    depth ? "'-> (...)' to end the block" : "'return'");
  *more = true;
  return true;
}

/* Nodes up to 'return' (top block) or '->' (nested blocks). */
static bool body(parser *p, oxp_block *b, int depth) {
  for (bool more;;) {
    if (!next_node(p, depth, &more)) return false;
    if (!more) return true;
    if (!node(p, b, depth)) return false;
  }
}

static bool graph(parser *p) {
  skip_newlines(p);
  if (!expect_word(p, "graph", "'graph' at the start of the IR") ||
      !oxp_pexpect(&p->c, '(', "after 'graph'") ||
      !params(p, p->g->top, true) ||
      !oxp_pexpect(&p->c, ':', "after the graph inputs") ||
      !expect_eol(p, "the graph header") || !body(p, p->g->top, 0))
    return false;
  oxp_lx_next(&p->c.lx); /* return */
  if (!uses(p, "the returned values", p->g->top, add_block_output) ||
      !expect_eol(p, "the return"))
    return false;
  skip_newlines(p);
  oxp_tok t = oxp_lx_next(&p->c.lx);
  return t.kind == LX_EOF || oxp_punexpected(&p->c, t, "end of input after return");
}

oxp_status oxp_parse_ir(oxp_arena *a, const char *file, const char *text,
                        size_t len, oxp_graph **out, oxp_diag *d) {
  *out = NULL;
  parser p = {.c = {.a = a, .d = d}};
  oxp_lx_init(&p.c.lx, file, text ? text : "", text ? len : 0);
  oxp_map_init(&p.names, a);
  if (!(p.g = oxp_graph_new(a, file)) || !push_scope(&p))
    return oxp_fail(d, OXP_ERR_NOMEM, NULL, NULL, "out of memory");
  if (!graph(&p)) return p.c.st ? p.c.st : OXP_ERR_INTERNAL;
  *out = p.g;
  return OXP_OK;
}
