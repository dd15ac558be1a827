/* source_loc.h: the Python source line a TorchScript IR line names in its
 * trailing comment ("%y : Tensor = aten::foo(%x) # model.py:42:0"), so that
 * an error located at an IR line can also name the line of the model that
 * made the node. Used by the CLI's error line and the public diag. */
#ifndef OXP_SOURCE_LOC_H
#define OXP_SOURCE_LOC_H

#include <stdbool.h>
#include <stddef.h>

/* Looks at line `line` (1-based) of the len bytes of IR text: when it ends
 * in a source comment "# FILE:LINE:COL", copies FILE into file (n bytes,
 * truncated) and sets *src_line, and returns true. Else returns false and
 * leaves file "" and *src_line 0. */
bool oxp_source_loc(const char *text, size_t len, int line, char *file,
                    size_t n, int *src_line);

#endif
