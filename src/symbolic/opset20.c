/* The symbolic table of opset 20, expanded from the family lists. */
#define OXP_OPSET 20
#include "opset_table.h"
