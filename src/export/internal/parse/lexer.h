/* lexer.h: tokens of TorchScript IR text, for the parser only.
 *
 * The lexer is a small value type: copying it saves a position, so the
 * parser looks ahead by lexing from a copy instead of keeping a token
 * queue. Newlines are tokens because the printed IR is line-structured
 * (a node is one line, its blocks follow on their own lines). */
#ifndef OXP_LEXER_H
#define OXP_LEXER_H

#include "oxp.h"

typedef enum {
  LX_EOF,
  LX_NEWLINE,
  LX_VALUE,   /* %name: text is the name without '%' */
  LX_IDENT,   /* int, Float, aten::add, __torch__.M, block0, inf, ... */
  LX_NUMBER,  /* 1, -1, 2., 1.5e-05, -inf, -nan */
  LX_STRING,  /* "..." or '...', text includes the quotes */
  LX_COMMENT, /* # ... to end of line, text without '#' and blanks */
  LX_ARROW,   /* -> */
  LX_PUNCT,   /* one character, in c */
  LX_BAD      /* a lexical error, explained by err */
} oxp_tok_kind;

typedef struct {
  oxp_tok_kind kind;
  const char *p; /* token text, not NUL-terminated */
  size_t n;
  int c;         /* LX_PUNCT: the character */
  oxp_loc loc;
  const char *err;
} oxp_tok;

typedef struct {
  const char *file;
  const char *s;
  size_t len, pos;
  int line;
  size_t line_start; /* pos of the first byte of the line: col is the
                        distance from it, so bytes are not counted one by
                        one (only a newline token spans lines) */
  /* The token a peek found at ahead_at, and where the lexer stands after
   * it: the parser peeks at most tokens before taking them, and would
   * otherwise lex each twice. */
  size_t ahead_at; /* SIZE_MAX: none */
  oxp_tok ahead;
  size_t ahead_pos, ahead_line_start;
  int ahead_line;
} oxp_lexer;

void oxp_lx_init(oxp_lexer *lx, const char *file, const char *s, size_t len);
/* Lexes the next token (lexer.c); oxp_lx_next and oxp_lx_peek below
 * take a peeked one instead. */
oxp_tok oxp_lx_lex(oxp_lexer *lx);
oxp_tok oxp_lx_peek_lex(oxp_lexer *lx);
/* Inline: the parser takes a token it peeked at most of the time, and a
 * caller that reads only a token's kind and character then loads those
 * two fields, not a copy of the whole token. */
static inline oxp_tok oxp_lx_next(oxp_lexer *lx) {
  if (lx->ahead_at == lx->pos) {
    lx->pos = lx->ahead_pos;
    lx->line = lx->ahead_line;
    lx->line_start = lx->ahead_line_start;
    return lx->ahead;
  }
  return oxp_lx_lex(lx);
}
/* The next token, left in place (and remembered for oxp_lx_next). */
static inline oxp_tok oxp_lx_peek(oxp_lexer *lx) {
  if (lx->ahead_at == lx->pos) return lx->ahead;
  return oxp_lx_peek_lex(lx);
}
/* Where the next token starts (after blanks); for raw scans. */
oxp_loc oxp_lx_here(const oxp_lexer *lx);

/* Inline: the parser asks it of nearly every token. */
static inline bool oxp_lx_is_punct(oxp_tok t, int c) { return t.kind == LX_PUNCT && t.c == c; }
/* Is t an identifier (or number) spelled exactly s? */
bool oxp_lx_is_word(oxp_tok t, const char *s);
/* "'foo'", "end of line", ... for messages; buf gets at most n bytes. */
const char *oxp_lx_describe(oxp_tok t, char *buf, size_t n);

/* Decodes a LX_STRING token (escapes as the TorchScript printer writes
 * them) into a NUL-terminated arena string; *n gets its length, which may
 * include NUL bytes. Returns NULL and sets *err (and *at) when malformed. */
char *oxp_lx_unquote(oxp_arena *a, oxp_tok t, size_t *n, const char **err,
                 oxp_loc *at);

/* Raw text from the current position up to (not including) the next '#',
 * newline or end, with surrounding blanks trimmed. Used for scope names,
 * which may contain any character. */
const char *oxp_lx_raw_until_comment(oxp_lexer *lx, size_t *n);

#endif
