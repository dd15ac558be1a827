/* The symbolic table of opset 11, expanded from the family lists. */
#define OXP_OPSET 11
#include "opset_table.h"
