/* builder_depth.c: deep.builder. A graph built through the public builder
 * obeys the parser's block-nesting limit: the passes recurse once per
 * level whichever way the graph was made. Nests prim::If nodes until
 * onnxexp_node_add_block refuses; that must happen at exactly
 * OXP_MAX_BLOCK_DEPTH with the named message. Exits 0 when it does. */
#include <stdio.h>
#include <string.h>

#include <onnxexp/onnxexp.h>

#include "oxp.h" /* the limit only */

int main(void) {
  const int limit = OXP_MAX_BLOCK_DEPTH;
  onnxexp_graph *g;
  onnxexp_diag *d;
  if (onnxexp_graph_create("deep", &g, NULL) || onnxexp_diag_create(&d)) return 2;
  onnxexp_block *b = onnxexp_graph_block(g);
  int depth = 0;
  for (;;) {
    onnxexp_node *n;
    onnxexp_block *inner;
    if (onnxexp_block_add_node(b, "prim::If", NULL, 0, 1, &n, d)) break;
    if (onnxexp_node_add_block(n, &inner, d)) break;
    b = inner;
    if (++depth > limit) break;
  }
  const char *msg = onnxexp_diag_message(d);
  char want[96];
  snprintf(want, sizeof want, "blocks nested deeper than %d (onnxexp's limit)",
           limit);
  int ok = depth == limit && onnxexp_diag_status(d) == ONNXEXP_ERR_USAGE &&
           strstr(msg, want);
  if (!ok)
    fprintf(stderr, "builder_depth: stopped at depth %d (limit %d): %s\n",
            depth, limit, msg && *msg ? msg : "no error");
  onnxexp_diag_free(d);
  onnxexp_graph_free(g);
  return ok ? 0 : 1;
}
