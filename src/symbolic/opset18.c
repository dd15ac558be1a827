/* The symbolic table of opset 18, expanded from the family lists. */
#define OXP_OPSET 18
#include "opset_table.h"
