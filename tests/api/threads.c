/* threads.c: several threads export different models at once while one
 * thread registers and unregisters a custom symbolic for an op they use.
 * Built with -fsanitize=thread over the core and the shims: any data race
 * is a ThreadSanitizer report and a failing exit status. Each export must
 * also succeed and be either the built-in or the custom lowering. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxexp/onnxexp.h>

enum { EXPORTERS = 4, ROUNDS = 40, TOGGLES = 200 };

static const char LINEAR_IR[] =
    "graph(%x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),\n"
    "      %fc.weight : Float(3, 4, strides=[4, 1], requires_grad=1, device=cpu),\n"
    "      %fc.bias : Float(3, strides=[1], requires_grad=1, device=cpu)):\n"
    "  %y : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::linear(%x, %fc.weight, %fc.bias)\n"
    "  %z : Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu) = aten::relu(%y)\n"
    "  return (%z)\n";

static const char SIGMOID_IR[] =
    "graph(%x : Float(5, strides=[1], requires_grad=0, device=cpu)):\n"
    "  %y : Float(5, strides=[1], requires_grad=0, device=cpu) = aten::sigmoid(%x)\n"
    "  %z : Float(5, strides=[1], requires_grad=0, device=cpu) = aten::relu(%y)\n"
    "  return (%z)\n";

static atomic_int custom_calls, builtin_seen, outside_export, failures, started;
static atomic_bool stop;

static onnxexp_status relu_as_tanh(onnxexp_graph_context *ctx, const onnxexp_node *node,
                                   void *user) {
  (void)user;
  if (!onnxexp_is_in_onnx_export()) atomic_fetch_add(&outside_export, 1);
  atomic_fetch_add(&custom_calls, 1);
  onnxexp_value *x, *y;
  onnxexp_status s = onnxexp_g_input(ctx, node, 0, &x);
  if (!s) s = onnxexp_g_op(ctx, "Tanh", &x, 1, 1, &y, NULL);
  return s ? s : onnxexp_g_set_output(ctx, node, 0, y);
}

/* 1: the model ends in the built-in Relu, 2: in the custom Tanh, 0: bad. */
static int lowering_of(const unsigned char *buf, size_t len) {
  onnxexp_model_info *m;
  if (onnxexp_check_model(buf, len, &m, NULL)) return 0;
  int n = onnxexp_model_info_num_nodes(m);
  const char *op = n ? onnxexp_model_info_node_op(m, n - 1) : "";
  int r = strcmp(op, "Relu") == 0 ? 1 : strcmp(op, "Tanh") == 0 ? 2 : 0;
  onnxexp_model_info_free(m);
  return r;
}

static void *exporter(void *arg) {
  int id = (int)(size_t)arg;
  onnxexp_diag *d;
  if (onnxexp_diag_create(&d)) return NULL;
  atomic_fetch_add(&started, 1);
  for (int r = 0; r < ROUNDS; r++) {
    onnxexp_options o;
    onnxexp_options_init(&o, sizeof o, NULL);
    o.opset_version = 9 + (id * 3 + r) % 13; /* different models, opsets */
    const char *ir = (id + r) % 2 ? LINEAR_IR : SIGMOID_IR;
    unsigned char *buf = NULL;
    size_t len;
    int how = 0;
    if (onnxexp_export_text_to_buffer(ir, strlen(ir), "t.ir", &o, &buf, &len, d) ||
        !(how = lowering_of(buf, len))) {
      fprintf(stderr, "thread %d round %d: %s\n", id, r, onnxexp_diag_message(d));
      atomic_fetch_add(&failures, 1);
    }
    if (how == 1) atomic_fetch_add(&builtin_seen, 1);
    onnxexp_free(buf);
    if (onnxexp_is_in_onnx_export()) atomic_fetch_add(&outside_export, 1);
  }
  onnxexp_diag_free(d);
  return NULL;
}

/* Toggles until the exporters are done (at least TOGGLES times), so the
 * registry changes under running exports. */
static void *registrar(void *arg) {
  (void)arg;
  while (atomic_load(&started) == 0) sched_yield();
  for (int i = 0; i < TOGGLES || !atomic_load(&stop); i++) {
    if (onnxexp_register_custom_op_symbolic("aten::relu", relu_as_tanh, NULL, 9, NULL) ||
        onnxexp_unregister_custom_op_symbolic("aten::relu", 9, NULL))
      atomic_fetch_add(&failures, 1);
  }
  /* Leave it registered so the last exports see it for sure. */
  onnxexp_register_custom_op_symbolic("aten::relu", relu_as_tanh, NULL, 9, NULL);
  return NULL;
}

int main(void) {
  pthread_t t[EXPORTERS], reg;
  if (pthread_create(&reg, NULL, registrar, NULL)) return 1;
  for (int i = 0; i < EXPORTERS; i++)
    if (pthread_create(&t[i], NULL, exporter, (void *)(size_t)i)) return 1;
  for (int i = 0; i < EXPORTERS; i++) pthread_join(t[i], NULL);
  atomic_store(&stop, true);
  pthread_join(reg, NULL);
  /* One more export after the registrar settled: the custom one applies. */
  exporter((void *)(size_t)0);
  onnxexp_unregister_custom_op_symbolic("aten::relu", 9, NULL);
  int f = atomic_load(&failures), o = atomic_load(&outside_export);
  printf("%d exports (%d built-in), %d custom calls, %d failures, %d flag errors\n",
         (EXPORTERS + 1) * ROUNDS, atomic_load(&builtin_seen), atomic_load(&custom_calls), f, o);
  return f || o || atomic_load(&custom_calls) == 0;
}
