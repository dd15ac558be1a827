/* fuzz_safetensors.c: oxp_st_from_memory on arbitrary bytes, then binding
 * the weights to small fixed graphs and exporting them, so that weight
 * bytes also reach constant folding and serialization. */
#include "export.h"
#include "fuzz_common.h"

/* Declared types: bind checks dtype and shape against them. Printed
 * constants, which `constant:c` / `constant:k` tensors override. */
static const char TYPED[] =
    "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),\n"
    "      %fc.weight : Float(4, 3),\n"
    "      %fc.bias : Float(4),\n"
    "      %emb.weight : Float(*, 3),\n"
    "      %m : Bool(2, 4),\n"
    "      %h : Half(2, *)):\n"
    "  %c : Float(2, 4) = prim::Constant[value= 1  2  3  4  5  6  7  8 "
    "[ CPUFloatType{2,4} ]]()\n"
    "  %k : Long(2) = prim::Constant[value= 0  1 [ CPULongType{2} ]]()\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %neg : int = prim::Constant[value=-1]()\n"
    "  %no : bool = prim::Constant[value=0]()\n"
    "  %y : Float(2, 4) = aten::linear(%x, %fc.weight, %fc.bias)\n"
    "  %z : Float(2, 4) = aten::add(%y, %c, %one)\n"
    "  %w : Float(2, 4) = aten::where(%m, %z, %y)\n"
    "  %e : Float(2, 3) = aten::embedding(%emb.weight, %k, %neg, %no, %no)\n"
    "  %g : Float(2, 3) = aten::index_select(%emb.weight, %zero, %k)\n"
    "  %hs : Half(2, *) = aten::neg(%h)\n"
    "  return (%w, %e, %g, %hs)\n";

/* Undeclared types: any dtype and shape binds, and folding sees them. */
static const char UNTYPED[] =
    "graph(%p : Tensor,\n"
    "      %q : Tensor):\n"
    "  %one : int = prim::Constant[value=1]()\n"
    "  %zero : int = prim::Constant[value=0]()\n"
    "  %neg : int = prim::Constant[value=-1]()\n"
    "  %s : Tensor = aten::add(%p, %q, %one)\n"
    "  %t : Tensor = aten::mul(%s, %p)\n"
    "  %f : Tensor = aten::flatten(%t, %zero, %neg)\n"
    "  %l : Tensor[] = prim::ListConstruct(%f, %f)\n"
    "  %c : Tensor = aten::cat(%l, %zero)\n"
    "  %u : Tensor = aten::unsqueeze(%c, %zero)\n"
    "  %v : Tensor = aten::transpose(%u, %zero, %neg)\n"
    "  return (%v)\n";

static void export_with(oxp_arena *a, const char *ir, size_t n,
                        const oxp_safetensors *st, int opset) {
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_graph *g = NULL;
  oxp_status s = oxp_parse_ir(a, "fixed.ir", ir, n, &g, &d);
  FUZZ_ASSERT(s == OXP_OK);
  int warnings = 0;
  s = oxp_bind_weights(g, st, fuzz_count_warning, &warnings, &d);
  if (s) {
    fuzz_check_diag(s, &d);
    return;
  }
  oxp_options o;
  oxp_options_init(&o);
  o.opset = opset;
  o.quiet = true;
  oxp_graph *onnx = NULL;
  s = oxp_export_from_graph(g, NULL, &o, &onnx, &d);
  if (s) {
    fuzz_check_diag(s, &d);
    return;
  }
  unsigned char *buf = NULL;
  size_t len = 0;
  s = oxp_write_buffer(onnx, &o, &buf, &len, &d);
  if (s) fuzz_check_diag(s, &d);
  free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *bytes = fuzz_copy(data, size);
  oxp_arena *a = oxp_arena_new();
  FUZZ_ASSERT(a);
  oxp_diag d;
  oxp_diag_clear(&d);
  oxp_safetensors *st = NULL;
  oxp_status s = oxp_st_from_memory(a, "fuzz.safetensors", bytes, size, &st,
                                    &d);
  if (s == OXP_OK) {
    FUZZ_ASSERT(st);
    for (int i = 0; i < st->nentries; i++) {
      const oxp_st_entry *e = &st->entries[i];
      FUZZ_ASSERT(e->name && oxp_st_find(st, e->name));
      /* Tensor bytes lie inside the input. */
      FUZZ_ASSERT(e->t.nbytes == 0 ||
                  ((const char *)e->t.data >= bytes &&
                   e->t.nbytes <= size &&
                   (size_t)((const char *)e->t.data - bytes) <=
                       size - e->t.nbytes));
      /* Touch every byte so an out-of-bounds view shows up. */
      volatile unsigned char sink = 0;
      for (size_t k = 0; k < e->t.nbytes; k++)
        sink ^= ((const unsigned char *)e->t.data)[k];
      (void)sink;
    }
    export_with(a, TYPED, sizeof TYPED - 1, st, 17);
    export_with(a, UNTYPED, sizeof UNTYPED - 1, st, 13);
    oxp_st_close(st);
  } else {
    FUZZ_ASSERT(!st || s);
    fuzz_check_diag(s, &d);
  }
  oxp_arena_free(a);
  free(bytes);
  return 0;
}
