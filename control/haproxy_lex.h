/*
 * haproxy_lex.h -- one line of a haproxy.cfg into words, as haproxy 2.6's
 * parse_line() splits it: blanks separate words, '#' starts a comment,
 * "double" and 'single' quotes, and backslash escapes (\\ \" \' \# and a
 * blank, \r \n \t, \xHH) outside single quotes. haproxy 2.6 has no line
 * continuation: a '\' at the end of a line is refused, as are environment
 * variables ("$NAME", "${NAME}"), which the importer does not expand.
 */
#ifndef PLC_CONTROL_HAPROXY_LEX_H
#define PLC_CONTROL_HAPROXY_LEX_H

#include <stddef.h>

#define HAP_MAX_WORDS 64
#define HAP_LINE_MAX 4096 /* haproxy's LINESIZE is 2048; room for that */

typedef struct hap_line {
    char buf[HAP_LINE_MAX]; /* the words, each NUL-terminated */
    const char *word[HAP_MAX_WORDS];
    size_t n;
} hap_line;

/* Where variables' values come from: get(ctx, NAME) is the value or NULL
 * (unset); line is the line's number ($.LINE). */
typedef struct hap_env {
    const char *(*get)(void *ctx, const char *name);
    void *ctx;
    size_t line;
} hap_env;

/* Split line (len bytes, no newline) into out. Returns 0, or -1 with why
 * (NUL-terminated, at most why_len bytes). */
int hap_split(const char *line, size_t len, const hap_env *env, hap_line *out, char *why,
              size_t why_len);

/* A server address with its variables expanded as haproxy's env_expand()
 * expands them ($NAME or ${NAME} in any quoting; unset: empty) into out (n
 * bytes). Returns 0, or -1 when it does not fit. */
int hap_expand_address(const char *in, const hap_env *env, char *out, size_t n);

#endif
