/* export_state.c: whether an export runs on this thread. A thread-local
 * depth, not a global flag, so exports on other threads do not show and a
 * custom symbolic that exports a helper model nests correctly. */
#include "api_core.h"

static _Thread_local int depth;

void oxp_export_enter(void) { depth++; }

void oxp_export_leave(void) {
  if (depth > 0) depth--;
}

bool oxp_in_export(void) { return depth > 0; }
