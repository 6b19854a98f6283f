/*
 * cassandra_import.c -- the text of `nodetool ring` (Apache Cassandra 4.x,
 * tools/nodetool/Ring.java) and a keyspace's replication map as DESCRIBE
 * KEYSPACE prints it, into a ring membership document whose keys and
 * replica sets are Cassandra's.
 *
 * nodetool ring prints, per datacenter: "Datacenter: NAME", a rule of '=',
 * the header (Address Rack Status State Load Owns Token), a line holding the
 * datacenter's last token alone (a blank line when it has one token), then
 * one line per token in ascending order: address, rack, Up/Down/?,
 * Normal/Joining/Leaving/Moving, load ("?" or "1.5 MiB"), owns ("?" or
 * "33.33%"), token; a blank line ends it. The rack column is 12 wide: a
 * longer rack runs into the status, which is split off again. Warnings and
 * notes close the text. A node is its address (with the port when -pp
 * printed it), its zone its rack, its state Joining -> "joining",
 * Leaving -> "draining", else "active" when Up and "down" otherwise; every
 * token is given mapped as the cassandra-murmur3 key hash maps keys
 * ((uint64_t)token ^ 1 << 63), so the ring is Cassandra's.
 *
 * The replication map: {'class': 'SimpleStrategy', 'replication_factor':
 * 'N'} or {'class': 'NetworkTopologyStrategy', 'DC': 'N', ...}, with the
 * short or the full org.apache.cassandra.locator. class name. A transient
 * factor ('3/1') is refused. Every datacenter is kept, each node with its
 * "datacenter"; NetworkTopologyStrategy's factors go to
 * "datacenter_replicas" ('replication_factor' to "replicas", the factor of
 * the datacenters the map does not name), and their sum over the ring's
 * datacenters is at most PLACER_MAX_REPLICAS. Factors that place nothing
 * (a datacenter with no node in the ring) are left out.
 *
 * Every error names its line (or the map's byte) and why; each line is read
 * once, and a node is found by a hash lookup, so the work is linear.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "placer_control.h"

#define MAX_DCS 64u
#define MAX_FIELDS 16u
#define NAME_MAX_LEN 256u

typedef struct repl {
    int rule;     /* PLACER_REPLICATION_SIMPLE or _NETWORK_TOPOLOGY */
    long rf_all;  /* 'replication_factor', -1 when absent */
    size_t ndc;
    char dc[MAX_DCS][NAME_MAX_LEN + 1];
    long rf[MAX_DCS];
} repl;

typedef struct field {
    const char *s;
    size_t n;
} field;

typedef struct cr {
    json_t *nodes;  /* one object per node: id, zone, state, tokens */
    json_t *index;  /* address -> position in nodes */
    json_t *dcs;    /* datacenter name of each node */
    json_t *tokens; /* every token seen (its text) -> line, for duplicates */
    char dc[NAME_MAX_LEN + 1];
    int ndcs;
    char *why;
    size_t why_len;
} cr;

static int fail(char *why, size_t why_len, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t why_len, size_t line, const char *fmt, ...)
{
    if (why && why_len) {
        char raw[512]; /* quotes the text's fields: escaped (placer_escape) */
        int n = line ? snprintf(raw, sizeof raw, "line %zu: ", line) : 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
        va_end(ap);
        placer_escape(why, why_len, raw, strlen(raw));
    }
    return PLACER_EFORMAT;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* A signed decimal 64-bit integer, exactly (Long.toString's form). */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    int neg = n && s[0] == '-';
    uint64_t v = 0, limit = neg ? (uint64_t)1 << 63 : ((uint64_t)1 << 63) - 1;
    if (n == (size_t)neg || n - (size_t)neg > 19 || (s[neg] == '0' && n - (size_t)neg > 1))
        return -1;
    for (size_t i = (size_t)neg; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (limit - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Printable ASCII only (spaces too when `space`): addresses, racks and
 * datacenter names are. */
static int printable(const char *s, size_t n, int space)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x21 - space || s[i] > 0x7e)
            return 0;
    return 1;
}

static int is_word(field f, const char *w)
{
    return f.n == strlen(w) && !memcmp(f.s, w, f.n);
}

/* ---- the replication map ---- */

/* A quoted CQL string at s[*at] ('...' with '' for a quote; or "..."):
 * its text into out (cap bytes with the NUL). 0, or -1. */
static int quoted(const char *s, size_t n, size_t *at, char *out, size_t cap)
{
    size_t i = *at, k = 0;
    if (i >= n || (s[i] != '\'' && s[i] != '"'))
        return -1;
    char q = s[i++];
    for (;; i++) {
        if (i >= n)
            return -1;
        if (s[i] == q) {
            if (i + 1 < n && s[i + 1] == q) {
                i++;
            } else {
                break;
            }
        }
        if (!s[i] || k + 1 >= cap)
            return -1;
        out[k++] = s[i];
    }
    out[k] = '\0';
    *at = i + 1;
    return 0;
}

static void skip_space(const char *s, size_t n, size_t *at)
{
    while (*at < n && (is_space(s[*at]) || s[*at] == '\n'))
        (*at)++;
}

/* A replication factor's text: 'N'; 'N/M' (transient) refused. */
static int factor(const char *v, const char *key, long *rf, char *why, size_t why_len)
{
    if (strchr(v, '/'))
        return fail(why, why_len, 0, "replication map: '%s': '%s' is a transient replication "
                                     "factor, which placer does not compute (full replicas only)",
                    key, v);
    uint64_t x;
    if (placer_parse_u64(v, strlen(v), 0, 1000000, &x))
        return fail(why, why_len, 0, "replication map: '%s': '%s' is not a replication factor "
                                     "(a whole number as a string, such as '3')", key, v);
    *rf = (long)x;
    return 0;
}

static int parse_replication(const char *s, size_t n, repl *r, char *why, size_t why_len)
{
    static const char prefix[] = "org.apache.cassandra.locator.";
    char key[NAME_MAX_LEN + 1], val[NAME_MAX_LEN + 1], cls[NAME_MAX_LEN + 1] = "";
    size_t at = 0;
    memset(r, 0, sizeof *r);
    r->rf_all = -1;
    skip_space(s, n, &at);
    if (at >= n || s[at] != '{')
        return fail(why, why_len, 0, "replication map: expected '{' at byte %zu (as DESCRIBE "
                                     "KEYSPACE prints it: {'class': 'SimpleStrategy', "
                                     "'replication_factor': '3'})", at + 1);
    at++;
    for (int first = 1;; first = 0) {
        skip_space(s, n, &at);
        if (at < n && s[at] == '}' && first)
            break;
        if (quoted(s, n, &at, key, sizeof key))
            return fail(why, why_len, 0, "replication map: expected a quoted name of at most %u "
                                         "bytes at byte %zu", NAME_MAX_LEN, at + 1);
        skip_space(s, n, &at);
        if (at >= n || s[at] != ':')
            return fail(why, why_len, 0, "replication map: expected ':' at byte %zu", at + 1);
        at++;
        skip_space(s, n, &at);
        if (quoted(s, n, &at, val, sizeof val))
            return fail(why, why_len, 0, "replication map: expected a quoted value of at most %u "
                                         "bytes at byte %zu", NAME_MAX_LEN, at + 1);
        if (!strcmp(key, "class")) {
            if (*cls)
                return fail(why, why_len, 0, "replication map: 'class' given twice");
            memcpy(cls, val, sizeof cls);
        } else if (!strcmp(key, "replication_factor")) {
            if (r->rf_all >= 0)
                return fail(why, why_len, 0, "replication map: 'replication_factor' given twice");
            if (factor(val, key, &r->rf_all, why, why_len))
                return PLACER_EFORMAT;
        } else {
            for (size_t d = 0; d < r->ndc; d++)
                if (!strcmp(r->dc[d], key))
                    return fail(why, why_len, 0, "replication map: datacenter '%s' given twice", key);
            if (r->ndc == MAX_DCS)
                return fail(why, why_len, 0, "replication map: more than %u datacenters", MAX_DCS);
            if (factor(val, key, &r->rf[r->ndc], why, why_len))
                return PLACER_EFORMAT;
            memcpy(r->dc[r->ndc++], key, sizeof key);
        }
        skip_space(s, n, &at);
        if (at < n && s[at] == ',') {
            at++;
            continue;
        }
        if (at < n && s[at] == '}')
            break;
        return fail(why, why_len, 0, "replication map: expected ',' or '}' at byte %zu", at + 1);
    }
    at++;
    skip_space(s, n, &at);
    if (at < n)
        return fail(why, why_len, 0, "replication map: text after its '}' at byte %zu", at + 1);
    const char *c = strncmp(cls, prefix, sizeof prefix - 1) ? cls : cls + sizeof prefix - 1;
    if (!strcmp(c, "SimpleStrategy")) {
        r->rule = PLACER_REPLICATION_SIMPLE;
        if (r->rf_all < 0 || r->ndc)
            return fail(why, why_len, 0, "replication map: SimpleStrategy takes "
                                         "'replication_factor' only");
    } else if (!strcmp(c, "NetworkTopologyStrategy")) {
        r->rule = PLACER_REPLICATION_NETWORK_TOPOLOGY;
    } else {
        return fail(why, why_len, 0, "replication map: class '%s': SimpleStrategy or "
                                     "NetworkTopologyStrategy (LocalStrategy and "
                                     "EverywhereStrategy are not keyspaces' placements)", cls);
    }
    return 0;
}

/* ---- nodetool ring ---- */

/* Split a line into fields at spaces; how many (MAX_FIELDS + 1: too many). */
static size_t split(const char *s, size_t n, field *f)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && is_space(s[i]))
            i++;
        if (i >= n)
            break;
        if (k == MAX_FIELDS)
            return MAX_FIELDS + 1;
        f[k].s = s + i;
        while (i < n && !is_space(s[i]))
            i++;
        f[k].n = (size_t)(s + i - f[k].s);
        k++;
    }
    return k;
}

static int is_status(field f)
{
    return is_word(f, "Up") || is_word(f, "Down") || is_word(f, "?");
}

/* A host line's fields (k of them) into the node's record. */
static int host_line(cr *c, size_t line, field *f, size_t k, int64_t *token)
{
    field rack, status;
    size_t s = 2; /* the status field */
    if (k >= 7 && is_status(f[2])) {
        rack = f[1];
        status = f[2];
    } else if (k >= 6 && f[1].n > 12) { /* a rack of 12+ bytes runs into the status */
        rack = f[1];
        status = (field){NULL, 0};
        static const char *const st[] = {"Down", "Up", "?"};
        for (int i = 0; i < 3 && !status.s; i++) {
            size_t w = strlen(st[i]);
            if (rack.n >= 12 + w && !memcmp(rack.s + rack.n - w, st[i], w)) {
                status = (field){rack.s + rack.n - w, w};
                rack.n -= w;
            }
        }
        if (!status.s)
            return fail(c->why, c->why_len, line, "expected Up, Down or ? after the rack");
        s = 1;
    } else {
        return fail(c->why, c->why_len, line, "expected address, rack, status, state, load, "
                                              "owns and token (nodetool ring's columns)");
    }
    field state = f[s + 1];
    if (!is_word(state, "Normal") && !is_word(state, "Joining") && !is_word(state, "Leaving") &&
        !is_word(state, "Moving"))
        return fail(c->why, c->why_len, line, "state \"%.*s\": Normal, Joining, Leaving or Moving",
                    (int)(state.n > 40 ? 40 : state.n), state.s);
    size_t rest = k - (s + 2); /* load (1 or 2 fields), owns, token */
    field owns = f[k - 2];
    if (rest < 3 || rest > 4 || !(is_word(owns, "?") || owns.s[owns.n - 1] == '%'))
        return fail(c->why, c->why_len, line, "expected load, owns (\"?\" or a percentage) and "
                                              "the token after the state");
    if (parse_i64(f[k - 1].s, f[k - 1].n, token))
        return fail(c->why, c->why_len, line, "token \"%.*s\": not a Murmur3Partitioner token "
                                              "(a signed 64-bit decimal)",
                    (int)(f[k - 1].n > 40 ? 40 : f[k - 1].n), f[k - 1].s);
    if (f[0].n > PLACER_MAX_ID_LEN || rack.n > PLACER_MAX_ID_LEN)
        return fail(c->why, c->why_len, line, "an address or rack longer than %u bytes",
                    PLACER_MAX_ID_LEN);
    if (!printable(f[0].s, f[0].n, 0) || !printable(rack.s, rack.n, 0))
        return fail(c->why, c->why_len, line, "a byte that is not printable ASCII in the address "
                                              "or rack");
    const char *st = is_word(state, "Joining")   ? "joining"
                     : is_word(state, "Leaving") ? "draining"
                     : is_word(status, "Up")     ? "active"
                                                 : "down";
    char tok[24];
    snprintf(tok, sizeof tok, "%lld", (long long)*token);
    if (json_object_get(c->tokens, tok))
        return fail(c->why, c->why_len, line, "token %s listed twice (first on line %lld)", tok,
                    (long long)json_integer_value(json_object_get(c->tokens, tok)));
    if (json_object_size(c->tokens) >= PLACER_MAX_TOKENS)
        return fail(c->why, c->why_len, line, "more than %u tokens (PLACER_MAX_TOKENS)",
                    PLACER_MAX_TOKENS);
    if (json_object_set_new(c->tokens, tok, json_integer((json_int_t)line)))
        return PLACER_ENOMEM;
    char addr[PLACER_MAX_ID_LEN + 1];
    memcpy(addr, f[0].s, f[0].n);
    addr[f[0].n] = '\0';
    json_t *at = json_object_get(c->index, addr), *node;
    if (!at) {
        node = json_pack("{s:s, s:s%, s:s, s:[]}", "id", addr, "zone", rack.s, rack.n, "state", st,
                         "tokens");
        if (!node || json_object_set_new(c->index, addr, json_integer((json_int_t)json_array_size(c->nodes))) ||
            json_array_append_new(c->nodes, node) || json_array_append_new(c->dcs, json_string(c->dc)))
            return PLACER_ENOMEM;
    } else {
        size_t i = (size_t)json_integer_value(at);
        node = json_array_get(c->nodes, i);
        const char *z = json_string_value(json_object_get(node, "zone"));
        if (strcmp(json_string_value(json_array_get(c->dcs, i)), c->dc))
            return fail(c->why, c->why_len, line, "node %s in two datacenters", addr);
        if (strlen(z) != rack.n || memcmp(z, rack.s, rack.n) ||
            strcmp(json_string_value(json_object_get(node, "state")), st))
            return fail(c->why, c->why_len, line, "node %s with another rack, status or state than "
                                                  "on its first line", addr);
    }
    uint64_t mapped = (uint64_t)*token ^ (UINT64_C(1) << 63);
    char m[24];
    snprintf(m, sizeof m, "%llu", (unsigned long long)mapped);
    if (json_array_append_new(json_object_get(node, "tokens"), json_string(m)))
        return PLACER_ENOMEM;
    return 0;
}

enum { WANT_DC, WANT_RULE, WANT_HEADER, WANT_LAST, IN_HOSTS, TAIL };

static int parse_ring(cr *c, const char *text, size_t len)
{
    static const char *const header[] = {"Address", "Rack", "Status", "State", "Load", "Owns",
                                         "Token"};
    int st = WANT_DC, has_last = 0;
    int64_t last = 0, prev = 0, token = 0;
    size_t hosts = 0, line = 0;
    field f[MAX_FIELDS + 1];
    for (size_t at = 0; at <= len;) {
        const char *nl = at < len ? memchr(text + at, '\n', len - at) : NULL;
        size_t end = nl ? (size_t)(nl - text) : len;
        const char *s = text + at;
        size_t n = end - at;
        line++;
        int eof = at >= len;
        at = end + 1;
        if (!eof && memchr(s, '\0', n))
            return fail(c->why, c->why_len, line, "a NUL byte");
        size_t k = eof ? 0 : split(s, n, f);
        if (k > MAX_FIELDS)
            return fail(c->why, c->why_len, line, "more than %u columns", MAX_FIELDS);
        if (k && is_word(f[0], "Error:"))
            return fail(c->why, c->why_len, line, "nodetool printed an error: %.*s",
                        (int)(n > 200 ? 200 : n), s);
        if (st == IN_HOSTS && k == 0) { /* a blank line ends the datacenter */
            if (!hosts)
                return fail(c->why, c->why_len, line, "datacenter %s has no token lines", c->dc);
            if (has_last && last != prev)
                return fail(c->why, c->why_len, line, "datacenter %s: the last token line gives "
                                                      "%lld, the header's %lld",
                            c->dc, (long long)prev, (long long)last);
            st = TAIL;
            continue;
        }
        if (eof)
            break;
        if (k == 0 && st != WANT_LAST)
            continue;
        if ((st == WANT_DC || st == TAIL) && k >= 1 && is_word(f[0], "Datacenter:")) {
            size_t off = (size_t)(f[0].s + f[0].n - s);
            while (off < n && is_space(s[off]))
                off++;
            size_t e = n;
            while (e > off && is_space(s[e - 1]))
                e--;
            if (e == off || e - off > NAME_MAX_LEN || !printable(s + off, e - off, 1))
                return fail(c->why, c->why_len, line, "a datacenter name of 1 to %u printable "
                                                      "ASCII bytes", NAME_MAX_LEN);
            memcpy(c->dc, s + off, e - off);
            c->dc[e - off] = '\0';
            for (size_t i = 0; i < json_array_size(c->dcs); i++)
                if (!strcmp(json_string_value(json_array_get(c->dcs, i)), c->dc))
                    return fail(c->why, c->why_len, line, "datacenter %s listed twice", c->dc);
            c->ndcs++;
            st = WANT_RULE;
            continue;
        }
        if (st == WANT_RULE) {
            size_t eq = 0; /* the text holds no NUL: no str* call on it */
            while (k == 1 && eq < f[0].n && f[0].s[eq] == '=')
                eq++;
            if (k != 1 || eq != f[0].n)
                return fail(c->why, c->why_len, line, "expected the rule of '=' under "
                                                      "\"Datacenter: %s\"", c->dc);
            st = WANT_HEADER;
            continue;
        }
        if (st == WANT_HEADER) {
            int ok = k == 7;
            for (size_t i = 0; ok && i < 7; i++)
                ok = is_word(f[i], header[i]);
            if (!ok)
                return fail(c->why, c->why_len, line, "expected the header \"Address Rack Status "
                                                      "State Load Owns Token\"");
            st = WANT_LAST;
            continue;
        }
        if (st == WANT_LAST) { /* the last token alone, or blank before a single token */
            hosts = 0;
            has_last = k == 1;
            if (k == 1 && parse_i64(f[0].s, f[0].n, &last))
                return fail(c->why, c->why_len, line, "expected the datacenter's last token alone");
            st = IN_HOSTS;
            if (k <= 1)
                continue;
            return fail(c->why, c->why_len, line, "expected the datacenter's last token alone "
                                                  "above its token lines");
        }
        if (st == IN_HOSTS) {
            int err = host_line(c, line, f, k, &token);
            if (err)
                return err;
            if (hosts && token <= prev)
                return fail(c->why, c->why_len, line, "token %lld is not above the line before's "
                                                      "(nodetool ring lists them ascending)",
                            (long long)token);
            if (!has_last && hosts)
                return fail(c->why, c->why_len, line, "a second token line where the header said "
                                                      "one (no last token line)");
            prev = token;
            hosts++;
            continue;
        }
        /* after the datacenters: nodetool's closing words only */
        if (st == TAIL && (is_word(f[0], "Warning:") || is_word(f[0], "Note:") ||
                           (k >= 2 && is_word(f[0], "To") && is_word(f[1], "view"))))
            continue;
        return fail(c->why, c->why_len, line, st == WANT_DC ? "expected \"Datacenter: NAME\" "
                                                              "(the text of nodetool ring)"
                                                            : "expected \"Datacenter: NAME\" or "
                                                              "nodetool's closing notes");
    }
    if (st == IN_HOSTS && hosts && has_last && last != prev)
        return fail(c->why, c->why_len, line, "datacenter %s: the last token line gives %lld, "
                                              "the header's %lld",
                    c->dc, (long long)prev, (long long)last);
    if (st != TAIL && !(st == IN_HOSTS && hosts))
        return fail(c->why, c->why_len, line, "the text ends before a datacenter's token lines");
    return 0;
}

/* The position of datacenter dc in the map, r->ndc when it names none. */
static size_t dc_named(const repl *r, const char *dc)
{
    size_t d = 0;
    while (d < r->ndc && strcmp(r->dc[d], dc))
        d++;
    return d;
}

/* The factor the map gives datacenter dc: its own, else
 * 'replication_factor' (Cassandra's expansion), else 0. */
static long dc_factor(const repl *r, const char *dc)
{
    size_t d = dc_named(r, dc);
    if (d < r->ndc)
        return r->rf[d];
    return r->rf_all > 0 ? r->rf_all : 0;
}

/* The factors checked against the ring's datacenters: each at most
 * PLACER_MAX_REPLICAS, summing (NTS: over the ring's datacenters) to 1 ..
 * PLACER_MAX_REPLICAS, and some node of a replicated datacenter owning
 * now and after the transition. */
static int check_factors(cr *c, const repl *r)
{
    int simple = r->rule == PLACER_REPLICATION_SIMPLE;
    if (simple && (r->rf_all < 1 || r->rf_all > (long)PLACER_MAX_REPLICAS))
        return fail(c->why, c->why_len, 0, "replication factor %ld: placer precomputes 1 to "
                    "%u replicas (PLACER_MAX_REPLICAS)", r->rf_all, PLACER_MAX_REPLICAS);
    long sum = 0;
    const char *one = NULL; /* the replicated datacenter, while there is one */
    size_t replicated = 0, now = 0, after = 0, moving = 0;
    for (size_t i = 0; i < json_array_size(c->nodes); i++) {
        const char *dc = json_string_value(json_array_get(c->dcs, i));
        long f = simple ? 1 : dc_factor(r, dc); /* SimpleStrategy: every node, no sum */
        if (f > (long)PLACER_MAX_REPLICAS)
            return fail(c->why, c->why_len, 0, "replication factor %ld in datacenter %s: placer "
                        "precomputes 1 to %u replicas (PLACER_MAX_REPLICAS)", f, dc,
                        PLACER_MAX_REPLICAS);
        if (!f)
            continue;
        /* a datacenter's nodes are one run (its section): the first adds its factor */
        if (!i || strcmp(json_string_value(json_array_get(c->dcs, i - 1)), dc)) {
            sum += f;
            one = replicated++ ? NULL : dc;
        }
        const char *st = json_string_value(json_object_get(json_array_get(c->nodes, i), "state"));
        now += strcmp(st, "joining") != 0;
        after += strcmp(st, "draining") != 0;
        moving += !strcmp(st, "joining") || !strcmp(st, "draining");
    }
    if (!simple && !replicated)
        return fail(c->why, c->why_len, 0, "NetworkTopologyStrategy: no datacenter of the ring is "
                                           "replicated to (the map names none of them with a "
                                           "factor above 0)");
    if (!simple && sum > (long)PLACER_MAX_REPLICAS)
        return fail(c->why, c->why_len, 0, "NetworkTopologyStrategy's factors over the ring's "
                    "datacenters sum to %ld: placer precomputes at most %u replicas "
                    "(PLACER_MAX_REPLICAS)", sum, PLACER_MAX_REPLICAS);
    if (!now || (moving && !after))
        return fail(c->why, c->why_len, 0, "no node would own the keyspace's data: every node of "
                    "%s is %s", one ? one : "the datacenters replicated to",
                    !now ? "Joining" : "Leaving");
    return 0;
}

/* Whether some node of the ring is in datacenter dc. */
static int ring_has_dc(const cr *c, const char *dc)
{
    for (size_t i = 0; i < json_array_size(c->dcs); i++)
        if (!strcmp(json_string_value(json_array_get(c->dcs, i)), dc))
            return 1;
    return 0;
}

/* Whether NetworkTopologyStrategy's 'replication_factor' gives some
 * datacenter of the ring its factor (one the map does not name). */
static int rf_all_used(const cr *c, const repl *r)
{
    for (size_t i = 0; i < json_array_size(c->dcs); i++)
        if (dc_named(r, json_string_value(json_array_get(c->dcs, i))) == r->ndc)
            return 1;
    return 0;
}

/* The membership document. The factors that place nothing are left out,
 * unchecked (Cassandra takes any; a membership's are 0 .. 8): those of the
 * map's datacenters with no node in the ring, and NetworkTopologyStrategy's
 * 'replication_factor' when the map names every datacenter of the ring. */
static int document(cr *c, const repl *r, json_t *doc)
{
    int err = check_factors(c, r);
    if (err)
        return err;
    int nts = r->rule == PLACER_REPLICATION_NETWORK_TOPOLOGY;
    json_t *nodes = json_array(), *factors = nts ? json_object() : NULL;
    size_t kept = 0;
    for (size_t i = 0; nodes && i < json_array_size(c->nodes); i++) {
        json_t *node = json_array_get(c->nodes, i);
        const char *dc = json_string_value(json_array_get(c->dcs, i));
        if (json_object_set_new(node, "datacenter", json_string(dc)))
            break;
        if (!strcmp(json_string_value(json_object_get(node, "state")), "active"))
            json_object_del(node, "state");
        if (json_array_append(nodes, node))
            break;
        kept++;
    }
    size_t named = 0; /* the map's datacenters that have nodes in the ring */
    for (size_t d = 0; factors && d < r->ndc; d++)
        if (ring_has_dc(c, r->dc[d])) {
            named++;
            if (json_object_set_new(factors, r->dc[d], json_integer(r->rf[d])))
                break;
        }
    int rf_all = !nts || (r->rf_all > 0 && rf_all_used(c, r));
    if (!nodes || (nts && (!factors || json_object_size(factors) != named)) ||
        kept != json_array_size(c->nodes) ||
        json_object_set_new(doc, "strategy", json_string("ring")) ||
        json_object_set_new(doc, "key_hash", json_string("cassandra-murmur3")) ||
        json_object_set_new(doc, "epoch", json_integer(0)) ||
        (rf_all && json_object_set_new(doc, "replicas", json_integer(r->rf_all))) ||
        json_object_set_new(doc, "replication", json_string(nts ? "network_topology" : "simple")) ||
        (nts && named && json_object_set(doc, "datacenter_replicas", factors)) ||
        json_object_set(doc, "nodes", nodes)) {
        json_decref(nodes);
        json_decref(factors);
        return PLACER_ENOMEM;
    }
    json_decref(nodes);
    json_decref(factors);
    return 0;
}

int placer_cassandra_membership(const char *ring, size_t len, const char *replication,
                                char **json, size_t *json_len, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!ring || !replication || !json || !json_len)
        return PLACER_ENULL;
    repl *r = placer_mem_calloc(1, sizeof *r);
    cr *c = placer_mem_calloc(1, sizeof *c);
    if (!r || !c) {
        placer_mem_free(r);
        placer_mem_free(c);
        return PLACER_ENOMEM;
    }
    int err = parse_replication(replication, strlen(replication), r, why, why_len);
    c->why = why;
    c->why_len = why_len;
    c->nodes = json_array();
    c->index = json_object();
    c->dcs = json_array();
    c->tokens = json_object();
    json_t *doc = json_object();
    if (!err && (!c->nodes || !c->index || !c->dcs || !c->tokens || !doc))
        err = PLACER_ENOMEM;
    if (!err)
        err = parse_ring(c, ring, len);
    if (!err)
        err = document(c, r, doc);
    if (!err)
        err = plc_ctl_dump_membership(doc, json, json_len);
    json_decref(doc);
    json_decref(c->nodes);
    json_decref(c->index);
    json_decref(c->dcs);
    json_decref(c->tokens);
    placer_mem_free(c);
    placer_mem_free(r);
    return err;
}

int placer_cassandra_import(const char *ring, size_t len, const char *replication,
                            placer_snapshot **out, char *why, size_t why_len)
{
    if (!out)
        return PLACER_ENULL;
    char *doc = NULL;
    size_t doc_len = 0;
    int err = placer_cassandra_membership(ring, len, replication, &doc, &doc_len, why, why_len);
    return plc_ctl_import_doc(err, doc, doc_len, "the ring's membership", 0, 0, out, why, why_len);
}
