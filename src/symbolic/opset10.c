/* The symbolic table of opset 10, expanded from the family lists. */
#define OXP_OPSET 10
#include "opset_table.h"
