/* The symbolic table of opset 14, expanded from the family lists. */
#define OXP_OPSET 14
#include "opset_table.h"
