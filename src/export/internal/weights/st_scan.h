/* st_scan.h: a safetensors header read without a JSON tree, for the
 * plain form writers emit (st_scan.c); private to the weights loader. */
#ifndef OXP_ST_SCAN_H
#define OXP_ST_SCAN_H

#include "oxp.h"

/* One header entry as written: nothing checked beyond the syntax. */
typedef struct {
  const char *name; /* NUL-terminated, in the arena */
  const char *dtype;
  size_t dtype_len; /* dtype is not NUL-terminated: it points into text */
  int rank;
  int64_t *dims;    /* rank entries, in the arena (NULL for rank 0) */
  uint64_t begin, end;
} oxp_st_raw;

/* Reads text (len bytes, no NUL needed) when it is one object of entries
 * {"dtype": "...", "shape": [...], "data_offsets": [b, e]} (keys in any
 * order, each once), names and dtypes printable ASCII without escapes,
 * integers without sign or leading zeros. Anything else (a
 * "__metadata__" entry, an escape, another key, a syntax error) returns
 * false and leaves the header to the JSON reader, which reads all of
 * JSON and says what is wrong. Names and dims go to keep, the entry list
 * to scratch. Out of memory also returns false; the arena remembers it. */
bool oxp_st_scan(oxp_arena *keep, oxp_arena *scratch, const char *text, size_t len,
                 oxp_st_raw **out, int *n);

#endif
