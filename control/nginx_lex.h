/*
 * nginx_lex.h -- the tokens of an nginx configuration, as nginx 1.22's
 * ngx_conf_read_token() reads them: words separated by blanks, ';', '{'
 * and '}' on their own, '#' comments at a word's start, "double" and
 * 'single' quoted words (\" \' \\ \t \r \n unescaped; other escapes kept
 * as written), a '\' outside quotes taking the next byte literally.
 */
#ifndef PLC_CONTROL_NGINX_LEX_H
#define PLC_CONTROL_NGINX_LEX_H

#include <stddef.h>

enum { NGX_TOK_EOF, NGX_TOK_WORD, NGX_TOK_SEMI, NGX_TOK_OPEN, NGX_TOK_CLOSE, NGX_TOK_ERROR };

#define NGX_WORD_MAX 4096

typedef struct ngx_lex {
    const char *text;
    size_t len, at;
    size_t line;             /* of the last token */
    size_t cur_line;         /* where the reader is */
    char word[NGX_WORD_MAX]; /* the last word, NUL-terminated (a NUL inside is an error) */
    size_t word_len;
    const char *why;         /* NGX_TOK_ERROR: what */
} ngx_lex;

void ngx_lex_init(ngx_lex *l, const char *text, size_t len);

/* The next token (NGX_TOK_*); a word in l->word. */
int ngx_lex_next(ngx_lex *l);

#endif
