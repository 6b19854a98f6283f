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

/* Split line (len bytes, no newline) into out. Returns 0, or -1 with why
 * (NUL-terminated, at most why_len bytes). */
int hap_split(const char *line, size_t len, hap_line *out, char *why, size_t why_len);

#endif
