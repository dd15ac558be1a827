/* parse.h: what the parser's files share. parser.c builds the graph
 * structure, parse_type.c reads types, parse_attr.c attributes and
 * parse_tensor.c inline tensor data. Private to the parser. */
#ifndef OXP_PARSE_H
#define OXP_PARSE_H

#include "lexer.h"

/* Tensor types already parsed, by their exact text (parse_type.c): a
 * traced graph prints one of a few types on every line, and reading one
 * from a copy costs a tenth of parsing it. */
typedef struct {
  const char **text;
  size_t *len;
  oxp_type **type;
  size_t cap, n;
} oxp_type_cache;

typedef struct {
  oxp_lexer lx;
  oxp_arena *a;
  oxp_diag *d;
  oxp_status st; /* first failure; parsing stops at it */
  oxp_type_cache types;
} oxp_pctx;

/* Records a parse error at loc (the first one wins); returns false so
 * callers can write `return perr(...)`. */
bool oxp_perr(oxp_pctx *c, const oxp_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Records an allocation failure; returns false. */
bool oxp_pnomem(oxp_pctx *c, const oxp_loc *loc);
/* "expected <want>, found <t>" at t (or t's own error if it is LX_BAD). */
bool oxp_punexpected(oxp_pctx *c, oxp_tok t, const char *want);
/* Consumes the next token if it is the punctuation p, else reports
 * "expected 'p' <what>, found ...". */
bool oxp_pexpect(oxp_pctx *c, int p, const char *what);

/* A type (parse_type.c), nested at most OXP_MAX_TYPE_DEPTH deep. NULL
 * after an error. */
oxp_type *oxp_parse_type(oxp_pctx *c);

/* Parses `[name=value, ...]` (the '[' is next) onto n. decl is the
 * declared type of n's first output (NULL if none): inline tensor data
 * takes its dtype and shape from it. */
bool oxp_parse_attrs(oxp_pctx *c, oxp_node *n, const oxp_type *decl);

/* ---- numbers and tensor data (parse_tensor.c) ---- */

/* A printed number: exact when its text is integral, else a double. */
typedef struct {
  double f;
  int64_t i;
  double im; /* imaginary part of a complex scalar */
  bool isint;
  bool rounded; /* tensor data: printed at the printer's full precision */
  const char *s; /* list elements that are strings */
} oxp_pnum;

typedef struct {
  oxp_pnum *v;
  int64_t *pos; /* where each value goes in a tensor, or unused */
  int n, cap;
} oxp_pnums;

/* Signed integer literal with overflow check. */
bool oxp_parse_int(oxp_tok t, int64_t *out);
/* Is t a number (including bare inf and nan)? */
bool oxp_pnum_token(oxp_tok t);
bool oxp_pnum_read(oxp_pctx *c, oxp_tok t, oxp_pnum *out);
bool oxp_pnums_push(oxp_pctx *c, oxp_pnums *e, oxp_pnum x, int64_t pos,
                    oxp_loc at);
/* Torch's rule without a declared dtype: Long if all integral, else Float. */
int oxp_pnums_dtype(const oxp_pnums *e);

/* A tensor-valued attribute: `{x}`, a printout, or `<Tensor>`. Sets
 * *handled to false (consuming nothing) when the value is none of them. */
bool oxp_parse_tensor_value(oxp_pctx *c, oxp_node *n, const char *name,
                            const oxp_type *decl, bool *handled);

#endif
