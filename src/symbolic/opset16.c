/* The symbolic table of opset 16, expanded from the family lists. */
#define OXP_OPSET 16
#include "opset_table.h"
