/* The symbolic table of opset 21, expanded from the family lists. */
#define OXP_OPSET 21
#include "opset_table.h"
