/*
 * key_rule.c -- a program's key rule (key_rule.h): parsed from haproxy's
 * `balance` words, checked as hostile input, written back as text, and
 * applied to a request value as haproxy 2.6's backend.c reads a request.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "key_rule.h"
#include "placer.h"

static int refuse(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t cap, const char *fmt, ...)
{
    if (why && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, cap, fmt, ap);
        va_end(ap);
    }
    return PLACER_EINVAL;
}

/* RFC 7230's tchar: the bytes of a header's name. */
static int is_token(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A parameter's name: visible ASCII but the query's own separators. */
static int is_param_byte(unsigned char c)
{
    return c > 0x20 && c < 0x7f && c != '&' && c != '=' && c != '?' && c != '#';
}

int plc_key_rule_check(const plc_key_rule *r, char *why, size_t cap)
{
    static const uint32_t flags_of[PLC_KR_COUNT_] = {
        [PLC_KR_URI] = PLC_KR_WHOLE | PLC_KR_PATH_ONLY, [PLC_KR_HDR] = PLC_KR_DOMAIN_ONLY};
    if (r->kind >= PLC_KR_COUNT_)
        return refuse(why, cap, "key rule %u: not a rule (1 source, 2 uri, 3 url_param, 4 hdr)",
                      r->kind);
    if (r->flags & ~flags_of[r->kind])
        return refuse(why, cap, "key rule %u: options 0x%x it does not take", r->kind, r->flags);
    if (r->kind != PLC_KR_URI && (r->len || r->depth))
        return refuse(why, cap, "key rule %u: len or depth outside uri", r->kind);
    if (r->len > PLC_KEY_RULE_INT_MAX || r->depth > PLC_KEY_RULE_INT_MAX)
        return refuse(why, cap, "key rule uri: len %u, depth %u: at most %u", r->len, r->depth,
                      PLC_KEY_RULE_INT_MAX);
    int named = r->kind == PLC_KR_URL_PARAM || r->kind == PLC_KR_HDR;
    if (named != (r->name_len > 0))
        return refuse(why, cap, "key rule %u: %s", r->kind,
                      named ? "its name is missing" : "a name it does not take");
    if (r->name_len > PLC_KEY_RULE_NAME_MAX)
        return refuse(why, cap, "key rule: a name of %u bytes (at most %u)", r->name_len,
                      PLC_KEY_RULE_NAME_MAX);
    for (uint32_t i = 0; i < r->name_len; i++) {
        unsigned char c = (unsigned char)r->name[i];
        if (r->kind == PLC_KR_HDR ? !is_token(c) : !is_param_byte(c))
            return refuse(why, cap, "key rule: byte 0x%02x at %u of the name is not a %s's", c, i,
                          r->kind == PLC_KR_HDR ? "header name" : "parameter name");
    }
    if (r->name[r->name_len])
        return refuse(why, cap, "key rule: the name is not terminated");
    return 0;
}

/* The next word of text at *at (spaces and tabs between), into w; its length. */
static size_t next_word(const char *text, size_t *at, const char **w)
{
    size_t i = *at;
    while (text[i] == ' ' || text[i] == '\t')
        i++;
    *w = text + i;
    size_t n = 0;
    while (text[i + n] && text[i + n] != ' ' && text[i + n] != '\t')
        n++;
    *at = i + n;
    return n;
}

static int word_is(const char *w, size_t n, const char *s)
{
    return n == strlen(s) && !memcmp(w, s, n);
}

/* A positive decimal as haproxy's atoi() > 0 takes it, here without signs
 * or trailing bytes; 0 when it is not one. */
static uint32_t positive(const char *w, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] < '0' || w[i] > '9' || (v = v * 10 + (uint64_t)(w[i] - '0')) > PLC_KEY_RULE_INT_MAX)
            return 0;
    }
    return (uint32_t)v;
}

static int set_name(plc_key_rule *r, const char *w, size_t n, char *why, size_t cap)
{
    if (!n || n > PLC_KEY_RULE_NAME_MAX)
        return refuse(why, cap, "%s: a name of %zu bytes (1 to %u)",
                      r->kind == PLC_KR_HDR ? "hdr()" : "url_param", n, PLC_KEY_RULE_NAME_MAX);
    memcpy(r->name, w, n);
    r->name[n] = '\0';
    r->name_len = (uint32_t)n;
    return plc_key_rule_check(r, why, cap);
}

int plc_key_rule_parse(const char *text, plc_key_rule *out, char *why, size_t cap)
{
    plc_key_rule r;
    memset(&r, 0, sizeof r);
    size_t at = 0;
    const char *w;
    size_t n = text ? next_word(text, &at, &w) : 0;
    if (!n || word_is(w, n, "none")) {
        if (n && next_word(text, &at, &w))
            return refuse(why, cap, "key rule \"none\" takes no options");
        *out = r;
        return 0;
    }
    if (word_is(w, n, "source")) {
        r.kind = PLC_KR_SOURCE;
    } else if (word_is(w, n, "uri")) {
        r.kind = PLC_KR_URI;
        while ((n = next_word(text, &at, &w)) != 0) {
            if (word_is(w, n, "whole")) {
                r.flags |= PLC_KR_WHOLE;
            } else if (word_is(w, n, "path-only")) {
                r.flags |= PLC_KR_PATH_ONLY;
            } else if (word_is(w, n, "len") || word_is(w, n, "depth")) {
                uint32_t *v = word_is(w, n, "len") ? &r.len : &r.depth;
                const char *opt = w;
                size_t m = next_word(text, &at, &w);
                if (!(*v = positive(w, m)))
                    return refuse(why, cap, "uri %.*s: expected a positive integer up to %u, not "
                                            "\"%.*s\"", (int)n, opt, PLC_KEY_RULE_INT_MAX,
                                  (int)(m > 40 ? 40 : m), w);
            } else {
                return refuse(why, cap, "uri: \"%.*s\": expected whole, path-only, len N or "
                                        "depth N", (int)(n > 40 ? 40 : n), w);
            }
        }
    } else if (word_is(w, n, "url_param")) {
        r.kind = PLC_KR_URL_PARAM;
        n = next_word(text, &at, &w);
        int err = set_name(&r, w, n, why, cap);
        if (err)
            return err;
    } else if (n > 5 && !memcmp(w, "hdr(", 4) && w[n - 1] == ')') {
        r.kind = PLC_KR_HDR;
        int err = set_name(&r, w + 4, n - 5, why, cap);
        if (err)
            return err;
        n = next_word(text, &at, &w);
        if (word_is(w, n, "use_domain_only"))
            r.flags |= PLC_KR_DOMAIN_ONLY;
        else if (n)
            return refuse(why, cap, "hdr(): \"%.*s\": expected use_domain_only or nothing",
                          (int)(n > 40 ? 40 : n), w);
    } else {
        return refuse(why, cap, "\"%.*s\" is not a key rule (source, uri [whole] [path-only] "
                                "[len N] [depth N], url_param NAME, hdr(NAME) [use_domain_only], "
                                "none)", (int)(n > 40 ? 40 : n), w);
    }
    if (r.kind != PLC_KR_URI && r.kind != PLC_KR_HDR && next_word(text, &at, &w))
        return refuse(why, cap, "%s: \"%s\" takes no further options",
                      r.kind == PLC_KR_SOURCE ? "source" : "url_param", w);
    *out = r;
    return 0;
}

void plc_key_rule_format(const plc_key_rule *r, char *out, size_t cap)
{
    switch (r->kind) {
    case PLC_KR_SOURCE: snprintf(out, cap, "source"); break;
    case PLC_KR_URI: {
        char len[24] = "", depth[24] = "";
        if (r->len)
            snprintf(len, sizeof len, " len %u", r->len);
        if (r->depth)
            snprintf(depth, sizeof depth, " depth %u", r->depth);
        snprintf(out, cap, "uri%s%s%s%s", r->flags & PLC_KR_WHOLE ? " whole" : "",
                 r->flags & PLC_KR_PATH_ONLY ? " path-only" : "", len, depth);
        break;
    }
    case PLC_KR_URL_PARAM: snprintf(out, cap, "url_param %s", r->name); break;
    case PLC_KR_HDR:
        snprintf(out, cap, "hdr(%s)%s", r->name,
                 r->flags & PLC_KR_DOMAIN_ONLY ? " use_domain_only" : "");
        break;
    default: snprintf(out, cap, "%s", "");
    }
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* http.c's http_get_path: the path of an origin- or absolute-form target
 * (from its first '/' after the authority), or none (*found 0). */
static void get_path(const unsigned char *p, size_t n, size_t *start, int *found)
{
    size_t i = 0;
    *found = 0;
    if (!n || p[0] == '*')
        return;
    if (is_alpha(p[0])) { /* a scheme, then "://" */
        i = 1;
        while (i < n && (is_alpha(p[i]) || (p[i] >= '0' && p[i] <= '9') || p[i] == '+' ||
                         p[i] == '-' || p[i] == '.'))
            i++;
        for (const char *s = "://"; *s; s++)
            if (i == n || p[i++] != (unsigned char)*s)
                return;
    }
    while (i < n && p[i] != '/') /* [user[:passwd]@]host[:[port]] */
        i++;
    if (i < n) {
        *start = i;
        *found = 1;
    }
}

/* backend.c's get_server_uh (after `path-only`'s http_get_path). */
static void uri_key(const plc_key_rule *r, const unsigned char *p, size_t n, size_t *start,
                    size_t *end)
{
    size_t s = 0;
    if (r->flags & PLC_KR_PATH_ONLY) {
        int found;
        get_path(p, n, &s, &found);
        if (!found)
            s = n; /* haproxy hashes "" */
    }
    n -= s;
    if (r->len && n > r->len)
        n = r->len;
    uint64_t slashes = 0;
    size_t e = 0;
    for (; e < n; e++) {
        unsigned char c = p[s + e];
        if (c == '/') {
            if (++slashes == (uint64_t)r->depth + 1 && r->depth) /* haproxy stores depth + 1 */
                break;
        } else if (c == '?' && !(r->flags & PLC_KR_WHOLE)) {
            break;
        }
    }
    *start = s;
    *end = s + e;
}

/* backend.c's get_server_ph on a request target: the value of the first
 * `name=` parameter after the '?'. 0, or -1 when there is none. */
static int param_key(const plc_key_rule *r, const unsigned char *uri, size_t n, size_t *start,
                     size_t *end)
{
    const unsigned char *q = memchr(uri, '?', n);
    if (!q)
        return -1;
    size_t at = (size_t)(q - uri) + 1, left = n - at, plen = r->name_len;
    while (left > plen) {
        if (uri[at + plen] == '=' && !memcmp(uri + at, r->name, plen)) {
            size_t v = at + plen + 1, e = v;
            while (e < n && uri[e] != '&')
                e++;
            *start = v;
            *end = e;
            return 0;
        }
        const unsigned char *amp = memchr(uri + at, '&', left);
        if (!amp)
            return -1;
        size_t next = (size_t)(amp - uri) + 1;
        left -= next - at;
        at = next;
    }
    return -1;
}

/* get_server_hh's value: http_find_header's first element (up to a comma
 * outside double quotes, http_find_hdr_value_end), spaces and tabs around
 * it trimmed; with use_domain_only the part between the last dot and the
 * dot before it. 0, or -1 for an empty value. */
static int header_key(const plc_key_rule *r, const unsigned char *v, size_t n, size_t *start,
                      size_t *end)
{
    size_t e = 0;
    for (int quoted = 0, pair = 0; e < n; e++) {
        unsigned char c = v[e];
        if (pair)
            pair = 0;
        else if (quoted)
            pair = c == '\\', quoted = c != '"';
        else if (c == '"')
            quoted = 1;
        else if (c == ',')
            break;
    }
    size_t s = 0;
    while (s < e && (v[s] == ' ' || v[s] == '\t'))
        s++;
    while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
        e--;
    if (s == e)
        return -1;
    if (r->flags & PLC_KR_DOMAIN_ONLY) {
        /* haproxy walks back from the end: the first dot found ends the
         * hashed part, the dot before it starts it (its first step reads
         * the byte after the value, never a dot of the value: skipped) */
        const unsigned char *p = v + s;
        size_t len = e - s, i = len, stop = len;
        int dohash = 0;
        while (i) {
            if (dohash) {
                if (p[i - 1] == '.')
                    break;
            } else if (i < len && p[i] == '.') {
                stop = i;
                dohash = 1;
            }
            i--;
        }
        e = s + stop;
        s += i;
    }
    *start = s;
    *end = e;
    return 0;
}

int plc_key_rule_apply(const plc_key_rule *r, const unsigned char *in, size_t len,
                       unsigned char addr[16], const unsigned char **key, size_t *key_len)
{
    size_t s = 0, e = len;
    switch (r->kind) {
    case PLC_KR_SOURCE: {
        char text[INET6_ADDRSTRLEN + 1];
        if (len >= sizeof text || memchr(in, '\0', len))
            return PLACER_EINVAL;
        memcpy(text, in, len);
        text[len] = '\0';
        int v6 = memchr(in, ':', len) != NULL;
        if (inet_pton(v6 ? AF_INET6 : AF_INET, text, addr) != 1)
            return PLACER_EINVAL;
        *key = addr;
        *key_len = v6 ? 16 : 4;
        return 0;
    }
    case PLC_KR_URI: uri_key(r, in, len, &s, &e); break;
    case PLC_KR_URL_PARAM:
        if (param_key(r, in, len, &s, &e))
            return PLACER_EINVAL;
        break;
    case PLC_KR_HDR:
        if (header_key(r, in, len, &s, &e))
            return PLACER_EINVAL;
        break;
    default: break;
    }
    *key = in + s;
    *key_len = e - s;
    return 0;
}
