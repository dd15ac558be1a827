/* opset_table.h: expands the family lists (*.def) into the table of one
 * opset. An opsetN.c file defines OXP_OPSET and includes this, so each
 * opset has one table and each op's opsets are written once, beside its
 * family (the X-macro pattern of Lua's lopcodes.h). */
#include "sym.h"
#include "ops.h"

#define OXP_KEEP(name, fn) {name, fn},
#define OXP_DROP(name, fn)

#define OXP_SEL(v) (OXP_OPSET == (v))
#if OXP_SEL(9)
#define OXP_AT_9 OXP_KEEP
#else
#define OXP_AT_9 OXP_DROP
#endif
#if OXP_SEL(10)
#define OXP_AT_10 OXP_KEEP
#else
#define OXP_AT_10 OXP_DROP
#endif
#if OXP_SEL(11)
#define OXP_AT_11 OXP_KEEP
#else
#define OXP_AT_11 OXP_DROP
#endif
#if OXP_SEL(12)
#define OXP_AT_12 OXP_KEEP
#else
#define OXP_AT_12 OXP_DROP
#endif
#if OXP_SEL(13)
#define OXP_AT_13 OXP_KEEP
#else
#define OXP_AT_13 OXP_DROP
#endif
#if OXP_SEL(14)
#define OXP_AT_14 OXP_KEEP
#else
#define OXP_AT_14 OXP_DROP
#endif
#if OXP_SEL(15)
#define OXP_AT_15 OXP_KEEP
#else
#define OXP_AT_15 OXP_DROP
#endif
#if OXP_SEL(16)
#define OXP_AT_16 OXP_KEEP
#else
#define OXP_AT_16 OXP_DROP
#endif
#if OXP_SEL(17)
#define OXP_AT_17 OXP_KEEP
#else
#define OXP_AT_17 OXP_DROP
#endif
#if OXP_SEL(18)
#define OXP_AT_18 OXP_KEEP
#else
#define OXP_AT_18 OXP_DROP
#endif
#if OXP_SEL(19)
#define OXP_AT_19 OXP_KEEP
#else
#define OXP_AT_19 OXP_DROP
#endif
#if OXP_SEL(20)
#define OXP_AT_20 OXP_KEEP
#else
#define OXP_AT_20 OXP_DROP
#endif
#if OXP_SEL(21)
#define OXP_AT_21 OXP_KEEP
#else
#define OXP_AT_21 OXP_DROP
#endif

#define OXP_CAT(a, b) a##b
#define OXP_XCAT(a, b) OXP_CAT(a, b)

static const oxp_sym_entry entries[] = {
#define OXP_OP(ver, name, fn) OXP_AT_##ver(name, fn)
#include "ops.def"
#undef OXP_OP
    {NULL, NULL}};

const oxp_sym_table OXP_XCAT(oxp_sym_opset, OXP_OPSET) = {
    OXP_OPSET, entries, (int)(sizeof entries / sizeof *entries) - 1};
