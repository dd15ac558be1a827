/* The symbolic table of opset 12, expanded from the family lists. */
#define OXP_OPSET 12
#include "opset_table.h"
