/* haproxy_lex.c -- see haproxy_lex.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "haproxy_lex.h"

#define NAME_MAX_LEN 256

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

typedef struct splitter {
    hap_line *out;
    size_t at;
    int in_word;
    char *why;
    size_t why_len;
} splitter;

static int put(splitter *sp, char c)
{
    if (!sp->in_word) {
        if (sp->out->n == HAP_MAX_WORDS)
            return fail(sp->why, sp->why_len, "more than 64 words on one line (haproxy's limit)");
        sp->out->word[sp->out->n++] = sp->out->buf + sp->at;
        sp->in_word = 1;
    }
    if (c == '\0')
        return 0; /* a word begun (a quote), nothing in it yet */
    if (sp->at + 2 >= sizeof sp->out->buf)
        return fail(sp->why, sp->why_len, "a line longer than 4095 bytes (variables expanded)");
    sp->out->buf[sp->at++] = c;
    return 0;
}

static void end_word(splitter *sp)
{
    if (sp->in_word)
        sp->out->buf[sp->at++] = '\0';
    sp->in_word = 0;
}

/* A variable inside double quotes, s[*i] just after the '$' (parse_line). */
static int variable(splitter *sp, const char *s, size_t len, size_t *i, const hap_env *env)
{
    size_t p = *i;
    int brace = p < len && s[p] == '{';
    p += (size_t)brace;
    if (p == len || !(isalpha((unsigned char)s[p]) || s[p] == '_' || s[p] == '.'))
        return fail(sp->why, sp->why_len, "a '$' inside double quotes not followed by a variable "
                                          "name (haproxy refuses it; write \\$)");
    size_t name_at = p;
    if (s[p] == '.')
        p++;
    while (p < len && (isalnum((unsigned char)s[p]) || s[p] == '_'))
        p++;
    char name[NAME_MAX_LEN], number[24];
    if (p - name_at >= sizeof name)
        return fail(sp->why, sp->why_len, "a variable name longer than 255 bytes");
    memcpy(name, s + name_at, p - name_at);
    name[p - name_at] = '\0';
    const char *value;
    if (name[0] == '.') {
        if (strcmp(name, ".LINE"))
            return fail(sp->why, sp->why_len, !strcmp(name, ".FILE") || !strcmp(name, ".SECTION")
                        ? "$.FILE and $.SECTION are not expanded by the importer (it reads the "
                          "text, not haproxy's file and section state): write the value"
                        : "an unknown pseudo-variable (haproxy 2.6 has $.LINE, $.FILE, $.SECTION)");
        snprintf(number, sizeof number, "%zu", env->line);
        value = number;
    } else {
        value = env->get(env->ctx, name);
    }
    int split = 0;
    if (brace && p < len && s[p] == '[') {
        if (p + 2 >= len || s[p + 1] != '*' || s[p + 2] != ']')
            return fail(sp->why, sp->why_len, "expected [*] after a variable's name");
        split = 1;
        p += 3;
    }
    const char *def = NULL;
    size_t def_len = 0;
    if (brace) {
        if (p < len && s[p] == '-') {
            def = s + p + 1;
            while (p < len && s[p] != '}')
                p++;
            def_len = (size_t)(s + p - def);
        }
        if (p == len || s[p] != '}')
            return fail(sp->why, sp->why_len, "an unclosed '${' (haproxy refuses it)");
        p++;
    }
    *i = p;
    size_t n = value ? strlen(value) : def ? def_len : 0;
    const char *v = value ? value : def;
    for (size_t k = 0; k < n; k++) {
        if (split && isspace((unsigned char)v[k])) {
            /* haproxy ends the word and starts the next at a blank */
            put(sp, '\0');
            end_word(sp);
            while (k + 1 < n && isspace((unsigned char)v[k + 1]))
                k++;
            if (put(sp, '\0'))
                return -1;
            continue;
        }
        if (v[k] == '\0' || put(sp, v[k]))
            return v[k] ? -1 : 0;
    }
    return 0;
}

int hap_split(const char *s, size_t len, const hap_env *env, hap_line *out, char *why,
              size_t why_len)
{
    splitter sp = {out, 0, 0, why, why_len};
    size_t i = 0;
    char quote = 0;
    out->n = 0;
    while (i < len) {
        char c = s[i];
        if (!quote && (c == ' ' || c == '\t' || c == '\r')) {
            end_word(&sp);
            i++;
            continue;
        }
        if (!quote && c == '#')
            break;
        if (c == '\0')
            return fail(why, why_len, "a NUL byte in the line");
        if (quote == '\'' && c != '\'') {
            if (put(&sp, c))
                return -1;
            i++;
            continue;
        }
        if ((c == '"' || c == '\'') && (!quote || quote == c)) {
            quote = quote ? 0 : c;
            if (put(&sp, '\0'))
                return -1;
            i++;
            continue;
        }
        if (c == '$' && quote == '"') {
            i++;
            if (variable(&sp, s, len, &i, env))
                return -1;
            continue;
        }
        if (c == '\\') {
            if (i + 1 == len)
                return fail(why, why_len, "a '\\' at the end of the line: haproxy 2.6 has no line "
                                          "continuations");
            char e = s[i + 1];
            if (e == '\\' || e == ' ' || e == '#' || e == '"' || e == '\'' ||
                (e == '$' && quote == '"')) {
                c = e;
                i += 2;
            } else if (e == 'r' || e == 'n' || e == 't') {
                c = e == 'r' ? '\r' : e == 'n' ? '\n' : '\t';
                i += 2;
            } else if (e == 'x') {
                if (i + 3 >= len || hexval(s[i + 2]) < 0 || hexval(s[i + 3]) < 0)
                    return fail(why, why_len, "\\x without two hex digits (haproxy refuses it)");
                c = (char)(hexval(s[i + 2]) * 16 + hexval(s[i + 3]));
                i += 4;
            } else {
                i++; /* not an escape: the backslash stays, as haproxy keeps it */
            }
            if (put(&sp, c))
                return -1;
            continue;
        }
        if (put(&sp, c))
            return -1;
        i++;
    }
    if (quote)
        return fail(why, why_len, quote == '"' ? "an unclosed double quote"
                                               : "an unclosed single quote");
    end_word(&sp);
    return 0;
}

int hap_expand_address(const char *in, const hap_env *env, char *out, size_t n)
{
    size_t at = 0;
    for (const char *p = in; *p;) {
        if (*p != '$') {
            if (at + 1 >= n)
                return -1;
            out[at++] = *p++;
            continue;
        }
        const char *name = p + 1 + (p[1] == '{');
        const char *end = name;
        while (isalnum((unsigned char)*end) || *end == '_')
            end++;
        char var[NAME_MAX_LEN];
        if ((size_t)(end - name) >= sizeof var)
            return -1;
        memcpy(var, name, (size_t)(end - name));
        var[end - name] = '\0';
        const char *value = *var ? env->get(env->ctx, var) : NULL;
        p = end + (*end == '}' && name > p + 1);
        for (size_t k = 0; value && value[k]; k++) {
            if (at + 1 >= n)
                return -1;
            out[at++] = value[k];
        }
    }
    out[at] = '\0';
    return 0;
}
