/* json_locate.c -- see json_locate.h. A scanner that only skips: strings
 * (with escapes), numbers and literals, objects and arrays. */
#include "json_locate.h"

#include <string.h>

typedef struct scan {
    const char *t;
    size_t n, at;
} scan;

static void ws(scan *s)
{
    while (s->at < s->n && strchr(" \t\r\n", s->t[s->at]) && s->t[s->at])
        s->at++;
}

/* Past a string whose opening quote is at s->at; returns the start of its
 * content and its raw length through *start, *len. */
static void skip_string(scan *s, size_t *start, size_t *len)
{
    size_t i = s->at + 1;
    *start = i;
    while (i < s->n && s->t[i] != '"')
        i += s->t[i] == '\\' ? 2 : 1;
    *len = (i < s->n ? i : s->n) - *start;
    s->at = i < s->n ? i + 1 : s->n;
}

static void skip_value(scan *s)
{
    ws(s);
    if (s->at >= s->n)
        return;
    char c = s->t[s->at];
    if (c == '"') {
        size_t a, b;
        skip_string(s, &a, &b);
    } else if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        s->at++;
        for (;;) {
            ws(s);
            if (s->at >= s->n || s->t[s->at] == close) {
                s->at += s->at < s->n;
                return;
            }
            size_t before = s->at;
            if (c == '{') {
                size_t a, b;
                skip_string(s, &a, &b);
                ws(s);
                s->at += s->at < s->n; /* ':' */
            }
            skip_value(s);
            ws(s);
            if (s->at < s->n && s->t[s->at] == ',')
                s->at++;
            /* Every pass moves on, whatever the text holds (a fuzzer found
             * a document on which this loop stood still). */
            if (s->at == before)
                s->at++;
        }
    } else {
        while (s->at < s->n && !strchr(",}] \t\r\n", s->t[s->at]))
            s->at++;
    }
}

/* With s->at on a value: move to the child named by step, return 1; or
 * stay and return 0. */
static int enter(scan *s, const plc_json_step *step)
{
    size_t here = s->at;
    char c = s->t[s->at];
    if ((c == '{') != (step->name != NULL) || (c != '{' && c != '['))
        return 0;
    s->at++;
    for (size_t i = 0;; i++) {
        ws(s);
        if (s->at >= s->n || s->t[s->at] == '}' || s->t[s->at] == ']')
            break;
        size_t before = s->at;
        int match;
        if (c == '{') {
            size_t a, len;
            skip_string(s, &a, &len);
            match = len == strlen(step->name) && memcmp(s->t + a, step->name, len) == 0;
            ws(s);
            s->at += s->at < s->n; /* ':' */
        } else {
            match = i == step->index;
        }
        ws(s);
        if (match)
            return 1;
        skip_value(s);
        ws(s);
        if (s->at < s->n && s->t[s->at] == ',')
            s->at++;
        if (s->at == before) /* always move on, as in skip_value */
            s->at++;
    }
    s->at = here;
    return 0;
}

void plc_json_locate(const char *text, size_t len, const plc_json_step *path, size_t depth,
                     int *line, int *column)
{
    scan s = {text, len, 0};
    ws(&s);
    for (size_t d = 0; d < depth && s.at < s.n && enter(&s, &path[d]); d++)
        ;
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < s.at; i++) {
        if (text[i] == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}
