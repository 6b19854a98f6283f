/* haproxy_cond.c -- see haproxy_cond.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "haproxy_cond.h"

#define MAX_RECURSION 1024 /* haproxy's MAX_CFG_RECURSION */
#define MAX_ARG 4096

typedef struct cond {
    const char *p;
    const hap_env *env;
    char *why;
    size_t why_len;
    int undecided; /* why holds the first term the importer cannot decide */
} cond;

/* Truth values: 0, 1, and UNKNOWN for a term the importer cannot decide,
 * combined as Kleene's logic combines them: 0 && UNKNOWN is 0 whatever the
 * term is on the proxy, as haproxy's evaluation stopping early makes it. */
enum { UNKNOWN = 2 };

/* A term that cannot be decided here: the first one's reason is kept. */
static int unknown(cond *c, int *truth, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int unknown(cond *c, int *truth, const char *fmt, ...)
{
    if (!c->undecided && c->why && c->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_len, fmt, ap);
        va_end(ap);
    }
    c->undecided = 1;
    *truth = UNKNOWN;
    return 0;
}

static int fail(cond *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(cond *c, const char *fmt, ...)
{
    if (c->why && c->why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, c->why_len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void blanks(cond *c)
{
    while (*c->p == ' ' || *c->p == '\t')
        c->p++;
}

static int expr(cond *c, int depth, int *truth);

/* "X.Y[.Z]" against 2.6: -1 older, 1 newer, 0 the same as every 2.6.x
 * (2.6, 2.6.0), 2 undecided (2.6.Z, Z > 0; or not digits and dots). */
static int against_26(const char *v)
{
    long part[3] = {0, 0, 0};
    int n = 0;
    const char *p = v;
    while (n < 3) {
        if (*p < '0' || *p > '9')
            return 2;
        char *end;
        part[n++] = strtol(p, &end, 10);
        p = end;
        if (*p != '.')
            break;
        p++;
    }
    if (*p)
        return 2;
    if (part[0] != 2)
        return part[0] < 2 ? -1 : 1;
    if (part[1] != 6)
        return part[1] < 6 ? -1 : 1;
    return part[2] ? 2 : 0;
}

/* A predicate's "(a,b...)" into args (each NUL-terminated in buf). */
static int arguments(cond *c, const char *name, char *buf, const char **args, int want)
{
    if (*c->p != '(')
        return fail(c, "%s: missing arguments (haproxy refuses it)", name);
    c->p++;
    int n = 0;
    size_t at = 0;
    args[0] = buf;
    for (;; c->p++) {
        char ch = *c->p;
        if (!ch)
            return fail(c, "%s: missing ')' (haproxy refuses it)", name);
        if (ch == '"' || ch == '\'' || ch == '\\')
            return fail(c, "%s: quotes or backslashes in a predicate's arguments are not "
                           "read by the importer: resolve the condition in the file", name);
        if (ch == ',' || ch == ')') {
            buf[at++] = '\0';
            if (++n > want)
                return fail(c, "%s: too many arguments (haproxy refuses it)", name);
            if (ch == ')')
                break;
            args[n] = buf + at;
            continue;
        }
        if (at + 2 >= MAX_ARG)
            return fail(c, "%s: arguments longer than 4095 bytes", name);
        buf[at++] = ch;
    }
    c->p++;
    if (n < want)
        return fail(c, "%s: missing arguments (haproxy refuses it)", name);
    return 0;
}

static int predicate(cond *c, int *truth)
{
    static const char *const names[] = {"defined", "feature", "streq", "strneq",
                                        "version_atleast", "version_before", NULL};
    static const int counts[] = {1, 1, 2, 2, 1, 1};
    size_t len = strcspn(c->p, " (");
    int k = 0;
    while (names[k] && !(strlen(names[k]) == len && !strncmp(c->p, names[k], len)))
        k++;
    if (!names[k])
        return fail(c, "unparsable conditional expression '%s' (haproxy refuses it)", c->p);
    c->p += len;
    char buf[MAX_ARG];
    const char *args[2];
    if (arguments(c, names[k], buf, args, counts[k]))
        return -1;
    switch (k) {
    case 0:
        *truth = c->env->get(c->env->ctx, args[0]) != NULL;
        return 0;
    case 1:
        return unknown(c, truth, "feature(%s) depends on how the proxy's haproxy was built: the "
                                 "importer cannot decide it; resolve the condition in the file",
                       args[0]);
    case 2:
    case 3:
        *truth = !strcmp(args[0], args[1]) == (k == 2);
        return 0;
    default: {
        int cmp = against_26(args[0]);
        if (cmp == 2)
            return unknown(c, truth, "version \"%s\": which haproxy 2.6.x the proxy runs decides "
                                     "it; resolve the condition in the file", args[0]);
        *truth = k == 4 ? cmp <= 0 : cmp > 0;
        return 0;
    }
    }
}

static int term(cond *c, int depth, int *truth)
{
    blanks(c);
    if (depth <= 0)
        return fail(c, "unparsable conditional expression '%s' (nested too deep)", c->p);
    int neg = 0;
    while (*c->p == '!') {
        neg = !neg;
        c->p++;
        blanks(c);
    }
    char *end;
    long v = strtol(c->p, &end, 0);
    if (end != c->p) {
        c->p = end;
        *truth = v != 0;
    } else if (*c->p == '(') {
        c->p++;
        blanks(c);
        if (expr(c, depth - 1, truth))
            return -1;
        blanks(c);
        if (*c->p != ')')
            return fail(c, "expected ')' in '%s' (haproxy refuses it)", c->p);
        c->p++;
        blanks(c);
    } else if (predicate(c, truth)) {
        return -1;
    }
    if (neg && *truth != UNKNOWN)
        *truth = !*truth;
    return 0;
}

/* A chain of `op`: "||" over "&&" chains, "&&" over terms. haproxy parses
 * every term (a refused one refuses the line, evaluated or not), then
 * evaluates left to right, stopping early: Kleene's logic gives the same
 * for every value an UNKNOWN term may have. */
static int chain(cond *c, int depth, char op, int *truth)
{
    if (!*c->p)
        return fail(c, "unparsable conditional %sexpression '%s'", op == '&' ? "sub-" : "", c->p);
    int absorbing = op == '|'; /* 1 decides ||, 0 decides && */
    *truth = !absorbing;
    for (;;) {
        int t = 0;
        if (op == '&' ? term(c, depth - 1, &t) : chain(c, depth - 1, '&', &t))
            return -1;
        *truth = *truth == absorbing || t == absorbing ? absorbing
                 : *truth == UNKNOWN || t == UNKNOWN ? UNKNOWN : !absorbing;
        blanks(c);
        if (c->p[0] != op || c->p[1] != op)
            return 0;
        c->p += 2;
        blanks(c);
    }
}

static int expr(cond *c, int depth, int *truth)
{
    return chain(c, depth, '|', truth);
}

int hap_cond_eval(const char *text, const hap_env *env, int *truth, char *why, size_t why_len)
{
    cond c = {text, env, why, why_len, 0};
    *truth = 0;
    if (!*text) /* haproxy: empty is false */
        return 0;
    if (expr(&c, MAX_RECURSION, truth))
        return -1;
    blanks(&c);
    if (*c.p)
        return fail(&c, "unexpected text at the end of a conditional expression: '%s' (haproxy "
                        "refuses it)", c.p);
    return *truth == UNKNOWN ? -1 : 0;
}
