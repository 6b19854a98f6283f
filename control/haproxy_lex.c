/* haproxy_lex.c -- see haproxy_lex.h. */
#include <stdio.h>
#include <string.h>

#include "haproxy_lex.h"

static int fail(char *why, size_t n, const char *text)
{
    if (why && n)
        snprintf(why, n, "%s", text);
    return -1;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int hap_split(const char *s, size_t len, hap_line *out, char *why, size_t why_len)
{
    size_t at = 0, i = 0;
    char quote = 0;
    int in_word = 0;
    out->n = 0;
    while (i < len) {
        char c = s[i];
        if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
            if (in_word) {
                out->buf[at++] = '\0';
                in_word = 0;
            }
            i++;
            continue;
        }
        if (!quote && c == '#')
            break;
        if (c == '\0')
            return fail(why, why_len, "a NUL byte in the line");
        if (!in_word) {
            if (out->n == HAP_MAX_WORDS)
                return fail(why, why_len, "more than 64 words on one line (haproxy's limit)");
            out->word[out->n++] = out->buf + at;
            in_word = 1;
        }
        if (at + 2 >= sizeof out->buf)
            return fail(why, why_len, "a line longer than 4095 bytes");
        if (quote == '\'' && c != '\'') {
            out->buf[at++] = c;
            i++;
            continue;
        }
        if ((c == '"' || c == '\'') && (!quote || quote == c)) {
            quote = quote ? 0 : c;
            i++;
            continue;
        }
        if (c == '$')
            return fail(why, why_len, "an environment variable ($NAME): the importer does not "
                                      "expand them; write the value");
        if (c == '\\') {
            if (i + 1 == len)
                return fail(why, why_len, "a '\\' at the end of the line: haproxy 2.6 has no line "
                                          "continuations");
            char e = s[i + 1];
            i += 2;
            if (e == '\\' || e == '"' || e == '\'' || e == '#' || e == ' ' || e == '$')
                out->buf[at++] = e;
            else if (e == 'r' || e == 'n' || e == 't')
                out->buf[at++] = e == 'r' ? '\r' : e == 'n' ? '\n' : '\t';
            else if (e == 'x' && i + 1 < len && hexval(s[i]) >= 0 && hexval(s[i + 1]) >= 0) {
                out->buf[at++] = (char)(hexval(s[i]) * 16 + hexval(s[i + 1]));
                i += 2;
            } else
                return fail(why, why_len, "an unknown escape (haproxy takes \\\\ \\\" \\' \\# "
                                          "\\<blank> \\r \\n \\t \\xHH)");
            continue;
        }
        out->buf[at++] = c;
        i++;
    }
    if (quote)
        return fail(why, why_len, quote == '"' ? "an unclosed double quote"
                                               : "an unclosed single quote");
    if (in_word)
        out->buf[at++] = '\0';
    return 0;
}
