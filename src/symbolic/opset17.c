/* The symbolic table of opset 17, expanded from the family lists. */
#define OXP_OPSET 17
#include "opset_table.h"
