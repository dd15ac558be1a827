/* fuzz_export.c: the whole pipeline on IR text plus weights: parse, bind
 * the sidecar, JIT passes, lowering, ONNX passes at a few opsets, then
 * serialization and the pretty printer.
 *
 * An input is IR text, optionally followed by WEIGHTS_MARK and the bytes
 * of a safetensors file. Without the mark there are no weights and
 * parameters stay graph inputs; with it, tensors bind to graph inputs and
 * `constant:NAME` data reaches constant folding, the Conv+BatchNorm fold
 * and initializer dedup, as the CLI's sidecar does. The mark holds NUL
 * bytes, which IR text never does. The options vary with a hash of the
 * input, so that one input always runs the same way (a replayed crash
 * reproduces). */
#include "export.h"
#include "fuzz_common.h"

static const char WEIGHTS_MARK[] = "\0safetensors\0";
#define WEIGHTS_MARK_LEN (sizeof WEIGHTS_MARK - 1)

static uint32_t fnv1a(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

static void options_for(oxp_options *o, uint32_t h, int opset) {
  oxp_options_init(o);
  o->opset = opset;
  o->quiet = true;
  o->constant_folding = (h & 3) != 0;
  static const oxp_export_type types[] = {
      OXP_OET_ONNX, OXP_OET_ONNX, OXP_OET_ONNX_ATEN_FALLBACK,
      OXP_OET_ONNX_FALLTHROUGH};
  o->export_type = types[(h >> 2) & 3];
  static const oxp_training modes[] = {OXP_TRAIN_EVAL, OXP_TRAIN_EVAL,
                                       OXP_TRAIN_PRESERVE, OXP_TRAIN_TRAIN};
  o->training = modes[(h >> 4) & 3];
  o->keep_initializers_as_inputs = ((h >> 6) & 7) == 0;
}

/* One export; returns the serialized model (malloc'd) or NULL. weights is
 * NULL for none, else nweights bytes of a safetensors file. */
static unsigned char *export_once(const char *text, size_t size,
                                  const char *weights, size_t nweights,
                                  uint32_t h, int opset, size_t *len) {
  *len = 0;
  oxp_arena *a = oxp_arena_new();
  FUZZ_ASSERT(a);
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_options o;
  options_for(&o, h, opset);
  unsigned char *buf = NULL;
  oxp_graph *g = NULL;
  oxp_status st = oxp_parse_ir(a, "fuzz.ir", text, size, &g, &d);
  if (st) goto fail;
  if (weights) {
    oxp_safetensors *sf = NULL;
    st = oxp_st_from_memory(a, "fuzz.safetensors", weights, nweights, &sf, &d);
    if (st) goto fail;
    int warnings = 0;
    st = oxp_bind_weights(g, sf, fuzz_count_warning, &warnings, &d);
    if (st) goto fail;
  }
  /* Dynamic batch axis on the first input, sometimes. */
  oxp_dyn_axis dyn = {NULL, 0, "batch"};
  const oxp_value *in0 = g->top->ninputs ? g->top->inputs[0] : NULL;
  if (((h >> 9) & 3) == 0 && in0 && in0->name && in0->type &&
      in0->type->kind == OXP_T_TENSOR && in0->type->rank > 0) {
    dyn.input = in0->name;
    o.dynamic_axes = &dyn;
    o.n_dynamic_axes = 1;
  }
  oxp_graph *onnx = NULL;
  st = oxp_export_from_graph(g, NULL, &o, &onnx, &d);
  if (st) goto fail;
  FUZZ_ASSERT(onnx);
  char *txt = oxp_pretty(onnx, &o);
  free(txt);
  st = oxp_write_buffer(onnx, &o, &buf, len, &d);
  if (st) goto fail;
  FUZZ_ASSERT(buf || *len == 0);
  oxp_arena_free(a);
  return buf;
fail:
  fuzz_check_diag(st, &d);
  oxp_arena_free(a);
  return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 * 1024) return 0;
  uint32_t h = fnv1a(data, size);
  /* IR and weights each in a heap block of its exact size, so that ASan
   * sees a read past the end of either. */
  const uint8_t *mark = memmem(data, size, WEIGHTS_MARK, WEIGHTS_MARK_LEN);
  size_t ntext = mark ? (size_t)(mark - data) : size;
  char *text = fuzz_copy(data, ntext);
  char *weights = NULL;
  size_t nweights = 0;
  if (mark) {
    nweights = size - ntext - WEIGHTS_MARK_LEN;
    weights = fuzz_copy(mark + WEIGHTS_MARK_LEN, nweights);
  }
  static const int opsets[] = {OXP_OPSET_MIN, 13, OXP_OPSET_DEFAULT,
                               OXP_OPSET_MAX};
  for (size_t k = 0; k < sizeof opsets / sizeof *opsets; k++) {
    size_t n1 = 0;
    unsigned char *b1 =
        export_once(text, ntext, weights, nweights, h, opsets[k], &n1);
    if (k == 2 && b1) {
      /* Same input and options give byte-identical output. */
      size_t n2 = 0;
      unsigned char *b2 =
          export_once(text, ntext, weights, nweights, h, opsets[k], &n2);
      FUZZ_ASSERT(b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
      free(b2);
    }
    free(b1);
  }
  free(weights);
  free(text);
  return 0;
}
