/**
 * @file Apache httpd configuration grammar for tree-sitter.
 *
 * The lexical rules mirror how httpd itself reads a configuration file
 * (server/util.c: ap_cfg_getline, cfg_trim_line, ap_getword_conf;
 * server/config.c: ap_build_config_sub):
 *
 *  - a backslash immediately before a newline joins the next line, anywhere,
 *    including inside quoted arguments and comments;
 *  - `#` starts a comment only as the first non-blank character of a line;
 *    elsewhere it is part of an argument;
 *  - an argument starting with `"` or `'` runs to the matching quote (a
 *    backslash escapes that quote or a backslash) or, unterminated, to the end
 *    of the line; any other argument runs to the next blank;
 *  - a section opener is `<Name args>`; the `>` that closes it is the last one
 *    on the line, so `>` inside arguments (`<IfVersion >= 2.4>`) is kept;
 *    text after it is ignored by httpd and kept here as `trailing`;
 *  - a section closer is the single word `</Name>`; its name is matched to the
 *    opener case-insensitively by the consumer, as httpd does.
 */

export default grammar({
  name: 'apache',

  extras: $ => [/[ \t\f\v\r]/, $.line_continuation],

  // `_error_sentinel` is never valid in a real parse state: when the scanner
  // sees it valid, tree-sitter is recovering from an error and the scanner
  // declines, so recovery never swallows a closing tag as opener arguments.
  externals: $ => [$.section_arguments, $._error_sentinel],

  rules: {
    config: $ => seq(repeat($._line), optional($._statement)),

    _line: $ => seq(optional($._statement), $._newline),

    _statement: $ => choice($.directive, $.section, $.comment),

    comment: _ => token(seq('#', repeat(choice(/[^\n]/, /\\\r?\n/)))),

    directive: $ => seq(
      field('name', $.directive_name),
      repeat(field('argument', $._argument)),
    ),

    directive_name: _ => token(seq(/[^\s<#\\]|\\[^\s]/, repeat(choice(/[^\s]/, /\\\r?\n/)))),

    _argument: $ => choice($.word, $.quoted_string),


    word: _ => token(seq(
      choice(/[^\s"'\\]/, /\\[^\s]/, '\\'),
      repeat(choice(/[^\s]/, /\\\r?\n/)),
    )),

    quoted_string: _ => token(choice(
      seq('"', repeat(choice(/[^"\\\n]/, /\\[^\n]/, /\\\r?\n/)), optional('"')),
      seq("'", repeat(choice(/[^'\\\n]/, /\\[^\n]/, /\\\r?\n/)), optional("'")),
    )),

    section: $ => seq(
      field('open', $.section_open),
      $._newline,
      repeat($._line),
      field('close', $.section_close),
    ),

    section_open: $ => seq(
      field('name', $.section_name),
      optional(field('arguments', $.section_arguments)),
      '>',
      optional(field('trailing', $.trailing)),
    ),

    section_name: _ => token(seq('<', /[^\s>\/]/, repeat(/[^\s>]/))),

    section_close: $ => seq(
      field('name', $.close_tag),
      optional(field('trailing', $.trailing)),
    ),

    close_tag: _ => token(seq('</', repeat(/[^\s]/))),

    trailing: _ => token(/[^\s][^\r\n]*/),

    line_continuation: _ => token(/\\\r?\n/),

    _newline: _ => /\n/,
  },
});
