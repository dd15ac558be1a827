/* json.h: a small strict JSON reader, private to the weights loader.
 *
 * It reads what safetensors headers contain (objects, arrays, strings,
 * integers) plus true/false/null so that an unexpected value is reported
 * by the caller as a schema problem rather than as a syntax error. Numbers
 * with a fraction or exponent are rejected: no header field needs them, and
 * accepting them would let a float sneak into a shape. */
#ifndef OXP_JSON_H
#define OXP_JSON_H

#include "oxp.h"

typedef enum {
  OXP_J_NULL,
  OXP_J_BOOL,
  OXP_J_INT,
  OXP_J_STR,
  OXP_J_ARR,
  OXP_J_OBJ
} oxp_json_kind;

typedef struct oxp_json oxp_json;
struct oxp_json {
  oxp_json_kind kind;
  size_t pos;          /* byte offset of the value in the text */
  bool b;              /* OXP_J_BOOL */
  int64_t i;           /* OXP_J_INT */
  const char *s;       /* OXP_J_STR: NUL-terminated, UTF-8, no NUL inside */
  size_t slen;
  int n;               /* OXP_J_ARR / OXP_J_OBJ: number of items */
  oxp_json **items;    /* array elements or object values, in text order */
  const char **keys;   /* OXP_J_OBJ: keys, parallel to items */
};

/* Why parsing failed and where (byte offset into the text). */
typedef struct {
  size_t pos;
  char msg[128];
} oxp_json_err;

/* Parses exactly one value; only whitespace may follow it. text need not be
 * NUL-terminated. Everything lives in a. Returns NULL with *err filled on a
 * syntax error, or with err->msg "out of memory". */
oxp_json *oxp_json_parse(oxp_arena *a, const char *text, size_t len,
                         oxp_json_err *err);

#endif
