/* The symbolic table of opset 9, expanded from the family lists. */
#define OXP_OPSET 9
#include "opset_table.h"
