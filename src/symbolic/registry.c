/* registry.c: symbolic lookup over the per-opset tables. A later table
 * overrides an earlier one only for the ops it lists, as torch.onnx's
 * symbolic_opsetN modules do. */
#include <string.h>

#include "sym.h"

#define OXP_TABLE(v) extern const oxp_sym_table oxp_sym_opset##v;
OXP_TABLE(9) OXP_TABLE(10) OXP_TABLE(11) OXP_TABLE(12) OXP_TABLE(13)
OXP_TABLE(14) OXP_TABLE(15) OXP_TABLE(16) OXP_TABLE(17) OXP_TABLE(18)
OXP_TABLE(19) OXP_TABLE(20) OXP_TABLE(21)
#undef OXP_TABLE

const oxp_sym_table *const oxp_sym_tables[] = {
    &oxp_sym_opset9,  &oxp_sym_opset10, &oxp_sym_opset11, &oxp_sym_opset12,
    &oxp_sym_opset13, &oxp_sym_opset14, &oxp_sym_opset15, &oxp_sym_opset16,
    &oxp_sym_opset17, &oxp_sym_opset18, &oxp_sym_opset19, &oxp_sym_opset20,
    &oxp_sym_opset21,
};
const int oxp_sym_ntables = sizeof oxp_sym_tables / sizeof *oxp_sym_tables;

oxp_symbolic_fn oxp_sym_lookup(const char *op, int opset, int *first_opset) {
  oxp_symbolic_fn fn = NULL;
  if (first_opset) *first_opset = 0;
  for (int t = 0; t < oxp_sym_ntables; t++) {
    const oxp_sym_table *tab = oxp_sym_tables[t];
    for (int i = 0; i < tab->n; i++) {
      if (strcmp(tab->entries[i].op, op) != 0) continue;
      if (first_opset && !*first_opset) *first_opset = tab->opset;
      if (tab->opset <= opset) fn = tab->entries[i].fn;
    }
  }
  return fn;
}

const char *oxp_sym_why_not(const char *op) {
  static const struct { const char *op, *why; } no[] = {
#define OXP_NO(op, why) {op, why},
#include "unsupported.def"
#undef OXP_NO
  };
  for (size_t i = 0; i < sizeof no / sizeof *no; i++)
    if (strcmp(no[i].op, op) == 0) return no[i].why;
  return NULL;
}
