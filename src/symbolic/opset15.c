/* The symbolic table of opset 15, expanded from the family lists. */
#define OXP_OPSET 15
#include "opset_table.h"
