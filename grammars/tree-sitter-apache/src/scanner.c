/*
 * External scanner for the Apache grammar: the arguments of a section opener.
 *
 * httpd finds the end of `<Name args>` by taking the LAST `>` on the (joined)
 * line (core.c: ap_strrchr_c(arg, '>')), so `<IfVersion >= 2.4>`,
 * `<If "%{X} > 1">` and `<If cond>#` all work. A regular-expression token
 * cannot see that far ahead; this scanner scans to the end of the logical
 * line and ends the SECTION_ARGUMENTS token just before the last `>`.
 * Everything between the section name and that `>` is one token; the
 * consumer splits it into words with httpd's own quoting rules.
 */
#include "tree_sitter/parser.h"

enum TokenType { SECTION_ARGUMENTS, ERROR_SENTINEL };

void *tree_sitter_apache_external_scanner_create(void) { return NULL; }
void tree_sitter_apache_external_scanner_destroy(void *payload) { (void)payload; }
unsigned tree_sitter_apache_external_scanner_serialize(void *payload, char *buffer) {
  (void)payload; (void)buffer;
  return 0;
}
void tree_sitter_apache_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  (void)payload; (void)buffer; (void)length;
}

static bool is_blank(int32_t c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

bool tree_sitter_apache_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  (void)payload;
  if (valid_symbols[ERROR_SENTINEL] || !valid_symbols[SECTION_ARGUMENTS]) return false;

  /* Leading blanks (and line continuations) are not part of the token. */
  for (;;) {
    if (is_blank(lexer->lookahead)) {
      lexer->advance(lexer, true);
    } else if (lexer->lookahead == '\\') {
      /* Only a continuation may be skipped; anything else starts the token. */
      break;
    } else {
      break;
    }
  }

  bool found = false;
  bool content_before_gt = false;
  bool content = false;
  while (!lexer->eof(lexer) && lexer->lookahead != '\n') {
    int32_t c = lexer->lookahead;
    if (c == '>') {
      if (content) {
        lexer->mark_end(lexer);
        found = true;
        content_before_gt = true;
      }
      lexer->advance(lexer, false);
      content = true;
      continue;
    }
    if (c == '\\') {
      lexer->advance(lexer, false);
      if (lexer->lookahead == '\r') lexer->advance(lexer, false);
      if (lexer->lookahead == '\n') lexer->advance(lexer, false); /* continuation */
      content = true;
      continue;
    }
    if (!is_blank(c)) content = true;
    lexer->advance(lexer, false);
  }
  if (!found || !content_before_gt) return false;
  lexer->result_symbol = SECTION_ARGUMENTS;
  return true;
}
