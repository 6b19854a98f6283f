/* nginx_lex.c -- see nginx_lex.h. */
#include <string.h>

#include "nginx_lex.h"

void ngx_lex_init(ngx_lex *l, const char *text, size_t len)
{
    memset(l, 0, sizeof *l);
    l->text = text;
    l->len = len;
    l->cur_line = 1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int error(ngx_lex *l, const char *why)
{
    l->why = why;
    return NGX_TOK_ERROR;
}

static int put(ngx_lex *l, char c)
{
    if (c == '\0')
        return error(l, "a NUL byte");
    if (l->word_len + 1 >= sizeof l->word)
        return error(l, "a word longer than 4095 bytes");
    l->word[l->word_len++] = c;
    return 0;
}

int ngx_lex_next(ngx_lex *l)
{
    /* blanks and comments */
    for (;;) {
        while (l->at < l->len && blank(l->text[l->at]))
            l->cur_line += l->text[l->at++] == '\n';
        if (l->at < l->len && l->text[l->at] == '#') {
            while (l->at < l->len && l->text[l->at] != '\n')
                l->at++;
            continue;
        }
        break;
    }
    l->line = l->cur_line;
    l->word_len = 0;
    l->word[0] = '\0';
    if (l->at == l->len)
        return NGX_TOK_EOF;
    char c = l->text[l->at];
    if (c == ';' || c == '{' || c == '}') {
        l->at++;
        return c == ';' ? NGX_TOK_SEMI : c == '{' ? NGX_TOK_OPEN : NGX_TOK_CLOSE;
    }
    if (c == '"' || c == '\'') {
        char q = c;
        l->at++;
        for (;;) {
            if (l->at == l->len)
                return error(l, q == '"' ? "an unclosed double quote" : "an unclosed single quote");
            c = l->text[l->at++];
            if (c == q)
                break;
            l->cur_line += c == '\n';
            if (c == '\\' && l->at < l->len) {
                char e = l->text[l->at];
                if (e == '"' || e == '\'' || e == '\\' || e == 't' || e == 'r' || e == 'n') {
                    l->at++;
                    c = e == 't' ? '\t' : e == 'r' ? '\r' : e == 'n' ? '\n' : e;
                }
            }
            if (put(l, c))
                return NGX_TOK_ERROR;
        }
        if (l->at < l->len && !blank(l->text[l->at]) && !strchr(";{}", l->text[l->at]))
            return error(l, "unexpected text after a closing quote (nginx refuses it)");
        l->word[l->word_len] = '\0';
        return NGX_TOK_WORD;
    }
    while (l->at < l->len) {
        c = l->text[l->at];
        if (blank(c) || c == ';' || c == '{' || c == '}')
            break;
        l->at++;
        if (c == '\\' && l->at < l->len) {
            char e = l->text[l->at++];
            /* nginx keeps the backslash but for \" \' \\ \t \r \n */
            if (e == 't' || e == 'r' || e == 'n')
                e = e == 't' ? '\t' : e == 'r' ? '\r' : '\n';
            else if (e != '"' && e != '\'' && e != '\\' && put(l, '\\'))
                return NGX_TOK_ERROR;
            l->cur_line += e == '\n' && l->text[l->at - 1] == '\n';
            if (put(l, e))
                return NGX_TOK_ERROR;
            continue;
        }
        if (put(l, c))
            return NGX_TOK_ERROR;
    }
    l->word[l->word_len] = '\0';
    return NGX_TOK_WORD;
}
