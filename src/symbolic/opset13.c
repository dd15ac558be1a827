/* The symbolic table of opset 13, expanded from the family lists. */
#define OXP_OPSET 13
#include "opset_table.h"
