/* ops.h: prototypes of every symbolic function, derived from the family
 * lists so a table entry and its declaration cannot disagree. */
#ifndef OXP_OPS_H
#define OXP_OPS_H

#include "sym.h"

#define OXP_OP(ver, name, fn) oxp_status fn(oxp_sctx *c, oxp_node *n);
#include "ops.def"
#undef OXP_OP

#endif
