/* frontend.c: how a compiler frontend uses libonnxexp. It builds
 *
 *   z = mydomain::Foo(aten::linear(x, fc.weight, fc.bias), beta=1.5)
 *
 * in memory, with the weights attached from its own arrays, registers a
 * symbolic for its custom op mydomain::Foo (y * sigmoid(beta * y), made
 * of standard ONNX ops so any runtime can run it), exports the model to a
 * buffer, checks it, and writes it to the file named on the command line.
 *
 *   cc frontend.c $(pkg-config --cflags --libs onnxexp) -o frontend
 *   ./frontend model.onnx */
#include <stdio.h>
#include <stdlib.h>

#include <onnxexp/onnxexp.h>

/* mydomain::Foo(y, beta): y * Sigmoid(beta * y). */
static onnxexp_status foo_symbolic(onnxexp_graph_context *g, const onnxexp_node *node,
                                   void *user) {
  onnxexp_value *y = NULL, *beta = NULL, *in[2], *scaled = NULL, *gate = NULL,
                *out = NULL;
  double b;
  (void)user;
  onnxexp_status s = onnxexp_g_const_float(g, node, 1, &b); /* beta must be constant */
  if (!s) s = onnxexp_g_input(g, node, 0, &y);
  if (!s) s = onnxexp_g_constant_scalar(g, b, onnxexp_value_dtype(y), &beta);
  in[0] = y, in[1] = beta;
  if (!s) s = onnxexp_g_op(g, "Mul", in, 2, 1, &scaled, NULL);
  if (!s) s = onnxexp_g_op(g, "Sigmoid", &scaled, 1, 1, &gate, NULL);
  in[1] = gate;
  if (!s) s = onnxexp_g_op(g, "Mul", in, 2, 1, &out, NULL);
  return s ? s : onnxexp_g_set_output(g, node, 0, out);
}

static float weight[3][4], bias[3];

/* The graph torch would trace for Linear(4, 3) followed by Foo. */
static onnxexp_status build(onnxexp_graph **out, onnxexp_diag *d) {
  const int64_t xdims[] = {2, 4}, wdims[] = {3, 4}, bdims[] = {3}, ydims[] = {2, 3};
  onnxexp_graph *g;
  onnxexp_value *in[3], *beta = NULL, *y = NULL, *z = NULL;
  onnxexp_node *n;
  onnxexp_status s = onnxexp_graph_create("frontend", &g, d);
  if (s) return s;
  onnxexp_block *top = onnxexp_graph_block(g);
  if (!s) s = onnxexp_graph_add_input(g, "x", ONNXEXP_DT_FLOAT, 2, xdims, &in[0], d);
  if (!s) s = onnxexp_graph_add_input(g, "fc.weight", ONNXEXP_DT_FLOAT, 2, wdims, &in[1], d);
  if (!s) s = onnxexp_graph_add_input(g, "fc.bias", ONNXEXP_DT_FLOAT, 1, bdims, &in[2], d);
  /* Weights are borrowed, not copied: they must outlive the export. */
  if (!s) s = onnxexp_graph_attach_weight(g, "fc.weight", ONNXEXP_DT_FLOAT, 2, wdims,
                                          weight, sizeof weight, d);
  if (!s) s = onnxexp_graph_attach_weight(g, "fc.bias", ONNXEXP_DT_FLOAT, 1, bdims,
                                          bias, sizeof bias, d);
  if (!s) s = onnxexp_block_add_node(top, "aten::linear", in, 3, 1, &n, d);
  if (!s) {
    y = onnxexp_node_output(n, 0);
    s = onnxexp_value_set_type(y, ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 2, ydims, d);
  }
  if (!s) s = onnxexp_block_add_node(top, "prim::Constant", NULL, 0, 1, &n, d);
  if (!s) s = onnxexp_node_set_float(n, "value", 1.5, d);
  if (!s) {
    beta = onnxexp_node_output(n, 0);
    s = onnxexp_value_set_type(beta, ONNXEXP_TYPE_FLOAT, ONNXEXP_DT_UNDEFINED, 0, NULL, d);
  }
  in[0] = y, in[1] = beta;
  if (!s) s = onnxexp_block_add_node(top, "mydomain::Foo", in, 2, 1, &n, d);
  if (!s) {
    z = onnxexp_node_output(n, 0);
    s = onnxexp_value_set_type(z, ONNXEXP_TYPE_TENSOR, ONNXEXP_DT_FLOAT, 2, ydims, d);
  }
  if (!s) s = onnxexp_value_set_name(z, "z", d);
  if (!s) s = onnxexp_block_add_output(top, z, d);
  if (s) {
    onnxexp_graph_free(g);
    return s;
  }
  *out = g;
  return ONNXEXP_OK;
}

static int fail(const char *what, onnxexp_diag *d) {
  char msg[1200];
  onnxexp_diag_format(d, msg, sizeof msg);
  fprintf(stderr, "frontend: %s: %s (%s)\n", what, msg,
          onnxexp_status_string(onnxexp_diag_status(d)));
  onnxexp_diag_free(d);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: frontend OUT.onnx\n");
    return 2;
  }
  for (int o = 0; o < 3; o++) {
    bias[o] = 0.1f * (float)o;
    for (int k = 0; k < 4; k++) weight[o][k] = (float)(o * 4 + k) / 10.0f - 0.5f;
  }
  onnxexp_diag *d;
  if (onnxexp_diag_create(&d)) return 1;
  printf("onnxexp %s (headers %s)\n", onnxexp_version(), ONNXEXP_VERSION_STRING);

  if (onnxexp_register_custom_op_symbolic("mydomain::Foo", foo_symbolic, NULL, 9, d))
    return fail("register", d);
  onnxexp_graph *g;
  if (build(&g, d)) return fail("build", d);

  onnxexp_options opts;
  onnxexp_options_init(&opts, sizeof opts, NULL);
  opts.opset_version = 17;
  unsigned char *buf;
  size_t len;
  onnxexp_status s = onnxexp_export_graph_to_buffer(g, &opts, &buf, &len, d);
  onnxexp_graph_free(g); /* the weights may go now too */
  if (s) return fail("export", d);

  onnxexp_model_info *info;
  if (onnxexp_check_model(buf, len, &info, d)) return fail("check", d);
  printf("model: %zu bytes, ir_version %lld, opset %lld, %d nodes:",
         len, (long long)onnxexp_model_info_ir_version(info),
         (long long)onnxexp_model_info_opset(info, ""), onnxexp_model_info_num_nodes(info));
  for (int i = 0; i < onnxexp_model_info_num_nodes(info); i++)
    printf(" %s", onnxexp_model_info_node_op(info, i));
  printf("\n");
  onnxexp_model_info_free(info);

  FILE *f = fopen(argv[1], "wb");
  int ok = f && fwrite(buf, 1, len, f) == len;
  if (f && fclose(f)) ok = 0;
  onnxexp_free(buf);
  onnxexp_unregister_custom_op_symbolic("mydomain::Foo", 9, NULL);
  onnxexp_diag_free(d);
  if (!ok) {
    perror(argv[1]);
    return 1;
  }
  printf("wrote %s\n", argv[1]);
  return 0;
}
