/* The symbolic table of opset 19, expanded from the family lists. */
#define OXP_OPSET 19
#include "opset_table.h"
