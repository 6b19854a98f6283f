/*
 * haproxy_import.c -- one backend (or listen section) of a haproxy.cfg
 * into a membership document ("compat": "haproxy"), then a snapshot.
 *
 * Read as haproxy 2.6 reads it (cfgparse.c, cfgparse-listen.c, backend.c,
 * server.c): lines split by haproxy_lex.c; sections start with their
 * keyword; a backend inherits "balance", "hash-type", "default-server"
 * and "hash-balance-factor" from the last "defaults" section before it, or
 * from the named one of "backend NAME from DEFAULTS". Only the hashing
 * algorithms are imported (uri, url_param, hdr(), rdp-cookie: each hashes
 * one string with the hash-type function; source: the client address's
 * bytes, by key hash "source", the XOR of their 32-bit words, whatever
 * function hash-type names); the others send requests by turn, load or
 * chance and are refused with the line and why.
 * hash-type follows haproxy's parser: consistent alone is sdbm with
 * avalanche, and no hash-type at all is map-based. Servers keep their
 * declaration order and get haproxy's ids (explicit "id", or the first
 * free one from a counter that advances past every server), written out so
 * that servers left out of the hash (weight 0, "disabled", "backup": not in
 * haproxy's hash while any active server is up) do not shift the others'.
 * What was left out is said in notes, returned in why on success.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "haproxy_cond.h"
#include "haproxy_lex.h"
#include "import_messages.h"
#include "import_set.h"
#include "placer_control.h"

#define MAX_ID PLACER_HAPROXY_MAX_ID              /* placer's haproxy ids (placer.h) */
#define MAX_WEIGHT ((int)PLACER_HAPROXY_MAX_WEIGHT) /* haproxy's SRV_UWGHT_MAX (placer.h) */
#define MAX_DEFAULTS 32
#define NAME_MAX_LEN 128
#define MAX_NESTED_IF 100 /* haproxy 2.6's limit */

/* The state of one open .if block. */
enum { IF_ACTIVE = 1, IF_TAKEN = 2, IF_ELSE = 4, IF_DROPPED = 8 };

enum { LB_UNSET, LB_HASHED, LB_REFUSED };

/* What a defaults section hands a backend, and the backend's own. */
typedef struct hap_settings {
    char name[NAME_MAX_LEN]; /* a defaults section's name ("" when none) */
    int lb;                  /* LB_* */
    char lb_why[200];        /* LB_REFUSED: why */
    char key[200];           /* LB_HASHED: what the key is */
    size_t lb_line;
    int hash_type;           /* 0 unset (map-based), 1 consistent, 2 map-based */
    const char *fn;          /* NULL: none named (sdbm) */
    int avalanche;
    int source;              /* balance source: key hash "source", fn unused */
    char rule[200];          /* the membership's "key_rule" ("" for none: rdp-cookie) */
    size_t factor_line;      /* hash-balance-factor's line, 0: none */
    long long factor;        /* its value */
    int def_weight, def_backup, def_disabled;
} hap_settings;

/* One server line of the chosen backend (or one of a template's). */
typedef struct hap_server {
    char *name, *address; /* placer_mem_alloc'd, NUL-terminated */
    int weight, backup, disabled;
    long long id; /* 0: haproxy chooses it (assign_ids) */
    size_t line;
} hap_server;

typedef struct hap {
    const char *want;
    plc_imp_msgs msgs;
    size_t line;
    hap_settings defaults[MAX_DEFAULTS];
    size_t ndefaults;
    int last_defaults; /* index into defaults, -1: none yet */
    hap_settings be;   /* the chosen backend's */
    int in_chosen, found;
    hap_server *servers; /* every server of the backend, in order */
    size_t nservers, servers_cap;
    json_t *env;       /* global's setenv & co: name -> value, or null (unset) */
    int env_cleared;   /* resetenv: names not in env are unset */
    int in_global;
    unsigned char ifs[MAX_NESTED_IF]; /* the open .if blocks, IF_* */
    size_t if_line[MAX_NESTED_IF];
    size_t nifs;
    plc_set names;     /* server names -> their line */
    plc_set ids;       /* explicit ids (4 bytes) -> their server's line */
} hap;

static int fail(hap *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(hap *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int err = plc_imp_failv(&h->msgs, NULL, h->line, fmt, ap);
    va_end(ap);
    return err;
}

static void note(hap *h, size_t line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void note(hap *h, size_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    plc_imp_notev(&h->msgs, NULL, line, fmt, ap);
    va_end(ap);
}

static int section_keyword(const char *w)
{
    static const char *const kw[] = {"global", "defaults", "frontend", "backend", "listen",
                                     "peers", "resolvers", "userlist", "mailers", "program",
                                     "http-errors", "ring", "cache", "log-forward", "fcgi-app",
                                     NULL};
    for (size_t i = 0; kw[i]; i++)
        if (eq(w, kw[i]))
            return 1;
    return 0;
}

/* A variable's value as haproxy sees it while parsing: global's setenv,
 * presetenv, resetenv and unsetenv so far, over the process environment. */
static const char *env_get(void *ctx, const char *name)
{
    const hap *h = ctx;
    const json_t *v = json_object_get(h->env, name);
    if (v)
        return json_string_value(v); /* NULL for null: unset */
    return h->env_cleared ? NULL : getenv(name);
}

/* global's environment directives (cfgparse-global.c), in order. */
static int global_line(hap *h, const hap_line *l)
{
    const char *k = l->word[0];
    if (eq(k, "setenv") || eq(k, "presetenv")) {
        if (l->n != 3)
            return fail(h, "%s: expects NAME VALUE (haproxy refuses it otherwise)", k);
        if (eq(k, "presetenv") && env_get(h, l->word[1]))
            return 0;
        return json_object_set_new_nocheck(h->env, l->word[1], json_string_nocheck(l->word[2]))
                   ? PLACER_ENOMEM : 0;
    }
    if (eq(k, "unsetenv")) {
        for (size_t i = 1; i < l->n; i++)
            if (json_object_set_new_nocheck(h->env, l->word[i], json_null()))
                return PLACER_ENOMEM;
        return 0;
    }
    if (eq(k, "resetenv")) {
        json_t *kept = json_object();
        for (size_t i = 1; kept && i < l->n; i++) {
            const char *v = env_get(h, l->word[i]);
            if (v && json_object_set_new_nocheck(kept, l->word[i], json_string_nocheck(v))) {
                json_decref(kept);
                kept = NULL;
            }
        }
        if (!kept)
            return PLACER_ENOMEM;
        json_decref(h->env);
        h->env = kept;
        h->env_cleared = 1;
    }
    return 0;
}

/* The key rule s->rule as the library takes it (its own check, through a
 * builder, so the rule's limits are stated once), or a refusal with the
 * line and the library's reason: a name with a byte a rule cannot hold
 * ("=", "&", a space...) or longer than a rule's names. */
static int rule_taken(hap *h, const char *what, const char *name, const char *rule)
{
    char w[80];
    placer_builder *b = placer_builder_new();
    if (!b)
        return PLACER_ENOMEM;
    int err = placer_builder_set_compat(b, PLACER_COMPAT_HAPROXY, NULL);
    if (!err)
        err = placer_builder_set_key_rule(b, rule);
    if (err && err != PLACER_ENOMEM)
        err = fail(h, "balance %s: the name \"%s\" is not one placer's key rule takes: %s", what,
                   shown(name, w, sizeof w), placer_builder_error(b));
    placer_builder_free(b);
    return err;
}

/* "balance ..." (backend.c's backend_parse_balance) into s. */
static int parse_balance(hap *h, hap_settings *s, const hap_line *l)
{
    const char *a = l->n > 1 ? l->word[1] : "";
    char w[80];
    s->lb_line = h->line;
    s->lb = LB_HASHED;
    s->source = 0;
    s->rule[0] = '\0';
    if (eq(a, "roundrobin") || eq(a, "static-rr") || eq(a, "leastconn") || eq(a, "first") ||
        !strncmp(a, "random", 6)) {
        s->lb = LB_REFUSED;
        snprintf(s->lb_why, sizeof s->lb_why, "balance %s sends requests by %s, not by a key: no "
                 "placement can follow it (placer imports source, uri, url_param, hdr() and "
                 "rdp-cookie)",
                 a, eq(a, "leastconn") ? "load" : !strncmp(a, "random", 6) ? "chance" : "turn");
    } else if (eq(a, "source")) {
        s->source = 1;
        snprintf(s->rule, sizeof s->rule, "source");
        snprintf(s->key, sizeof s->key, "the client's address: its 4 (IPv4) or 16 (IPv6) bytes "
                 "in network order (key rule \"source\": placer lookup takes it as text)");
    } else if (eq(a, "uri")) {
        int whole = 0, path_only = 0;
        long long len = 0, depth = 0;
        for (size_t i = 2; i < l->n; i++) {
            const char *o = l->word[i];
            if (eq(o, "whole"))
                whole = 1;
            else if (eq(o, "path-only"))
                path_only = 1;
            else if ((eq(o, "len") || eq(o, "depth")) && i + 1 < l->n &&
                     plc_imp_decimal(l->word[i + 1], 2147483647) > 0)
                *(eq(o, "len") ? &len : &depth) = plc_imp_decimal(l->word[++i], 2147483647);
            else
                return fail(h, "balance uri: \"%s\": expected len N, depth N, whole or path-only "
                               "(haproxy refuses it too)", shown(o, w, sizeof w));
        }
        snprintf(s->key, sizeof s->key, "the request URI%s, %s%s", path_only ? "'s path" : "",
                 whole ? "query included" : "up to '?'", depth || len ? "," : "");
        char extra[80] = "";
        if (depth)
            snprintf(extra, sizeof extra, " up to its %lld-th '/'", depth);
        if (len)
            snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " first %lld bytes", len);
        strncat(s->key, extra, sizeof s->key - strlen(s->key) - 1);
        snprintf(s->rule, sizeof s->rule, "uri%s%s", whole ? " whole" : "",
                 path_only ? " path-only" : "");
        if (len)
            snprintf(s->rule + strlen(s->rule), sizeof s->rule - strlen(s->rule), " len %lld", len);
        if (depth)
            snprintf(s->rule + strlen(s->rule), sizeof s->rule - strlen(s->rule), " depth %lld",
                     depth);
    } else if (eq(a, "url_param")) {
        if (l->n < 3)
            return fail(h, "balance url_param: the parameter's name is missing");
        snprintf(s->key, sizeof s->key, "the value of URL parameter \"%s\", as sent",
                 shown(l->word[2], w, sizeof w));
        snprintf(s->rule, sizeof s->rule, "url_param %.*s", 180, l->word[2]);
        return rule_taken(h, "url_param", l->word[2], s->rule);
    } else if (!strncmp(a, "hdr(", 4) && strlen(a) > 5 && a[strlen(a) - 1] == ')') {
        int domain = l->n > 2 && eq(l->word[2], "use_domain_only");
        snprintf(s->key, sizeof s->key, "the value of header %.*s%s", (int)(strlen(a) - 5),
                 shown(a + 4, w, sizeof w), domain ? " (its domain part: use_domain_only)" : "");
        snprintf(s->rule, sizeof s->rule, "%.*s%s", 160, a, domain ? " use_domain_only" : "");
        return rule_taken(h, "hdr()", a, s->rule);
    } else if (!strncmp(a, "rdp-cookie", 10) && (!a[10] || (a[10] == '(' && a[strlen(a) - 1] == ')'))) {
        snprintf(s->key, sizeof s->key, "the value of RDP cookie %s",
                 a[10] ? shown(a + 10, w, sizeof w) : "(mstshash)");
    } else {
        return fail(h, "balance \"%s\": haproxy 2.6 has no such algorithm (roundrobin, static-rr, "
                       "leastconn, first, source, uri, url_param, hdr(name), rdp-cookie(name), "
                       "random)", shown(a, w, sizeof w));
    }
    return 0;
}

/* "hash-type ..." (cfgparse-listen.c). */
static int parse_hash_type(hap *h, hap_settings *s, const hap_line *l)
{
    static const char *const fns[] = {"sdbm", "djb2", "wt6", "crc32", NULL};
    const char *t = l->n > 1 ? l->word[1] : "";
    char w[80];
    if (eq(t, "consistent"))
        s->hash_type = 1;
    else if (eq(t, "map-based"))
        s->hash_type = 2;
    else
        return fail(h, "hash-type \"%s\": haproxy takes consistent or map-based", shown(t, w, sizeof w));
    s->fn = NULL;
    s->avalanche = 0;
    if (l->n < 3) {
        s->avalanche = s->hash_type == 1; /* haproxy: consistent alone adds avalanche */
        return 0;
    }
    for (size_t i = 0; fns[i]; i++)
        if (eq(l->word[2], fns[i]))
            s->fn = fns[i];
    if (!s->fn)
        return fail(h, "hash-type: \"%s\" is not a function of haproxy 2.6 (sdbm, djb2, wt6, crc32)",
                    shown(l->word[2], w, sizeof w));
    if (l->n > 3 && !eq(l->word[3], "avalanche"))
        return fail(h, "hash-type: \"%s\": the only modifier is avalanche", shown(l->word[3], w, sizeof w));
    if (l->n > 4)
        return fail(h, "hash-type: \"%s\" is one word too many", shown(l->word[4], w, sizeof w));
    s->avalanche = l->n > 3;
    return 0;
}

/* haproxy 2.6's server keywords (the srv_kw_list tables of server.c,
 * check.c, cfgparse-ssl.c and cfgparse-tcp.c at v2.6.0): how many
 * arguments each takes; "source" takes its own (below). Any other keyword
 * haproxy 2.6 refuses, and so does the importer: one from a later haproxy
 * (hash-key, 3.0) may change placement. */
static int server_keyword_args(const char *k)
{
    static const char *const flags[] = {
        "agent-check", "allow-0rtt", "backup", "check", "check-send-proxy", "check-ssl",
        "check-via-socks4", "disabled", "enabled", "force-sslv3", "force-tlsv10", "force-tlsv11",
        "force-tlsv12", "force-tlsv13", "no-agent-check", "no-backup", "no-check",
        "no-check-send-proxy", "no-check-ssl", "no-send-proxy", "no-send-proxy-v2",
        "no-send-proxy-v2-ssl", "no-send-proxy-v2-ssl-cn", "no-ssl", "no-ssl-reuse", "no-sslv3",
        "no-tfo", "no-tls-tickets", "no-tlsv10", "no-tlsv11", "no-tlsv12", "no-tlsv13",
        "non-stick", "send-proxy", "send-proxy-v2", "send-proxy-v2-ssl", "send-proxy-v2-ssl-cn",
        "ssl", "ssl-reuse", "stick", "tfo", "tls-tickets", NULL};
    static const char *const one[] = {
        "addr", "agent-addr", "agent-inter", "agent-port", "agent-send", "alpn", "ca-file",
        "check-alpn", "check-proto", "check-sni", "ciphers", "ciphersuites", "cookie", "crl-file",
        "crt", "downinter", "error-limit", "fall", "fastinter", "id", "init-addr", "inter",
        "log-proto", "max-reuse", "maxconn", "maxqueue", "minconn", "namespace", "npn", "observe",
        "on-error", "on-marked-down", "on-marked-up", "pool-low-conn", "pool-max-conn",
        "pool-purge-delay", "port", "proto", "proxy-v2-options", "redir", "resolve-net",
        "resolve-opts", "resolve-prefer", "resolvers", "rise", "slowstart", "sni", "socks4",
        "ssl-max-ver", "ssl-min-ver", "tcp-ut", "track", "verify", "verifyhost", "weight", "ws",
        NULL};
    for (size_t i = 0; flags[i]; i++)
        if (eq(k, flags[i]))
            return 0;
    for (size_t i = 0; one[i]; i++)
        if (eq(k, one[i]))
            return 1;
    return -1;
}

/* Options of "server" and "default-server" from word `from` on. */
static int server_options(hap *h, const hap_line *l, size_t from, int *weight, long long *id,
                          int *backup, int *disabled)
{
    char w[80];
    for (size_t i = from; i < l->n; i++) {
        const char *k = l->word[i];
        if (eq(k, "weight") || (id && eq(k, "id"))) {
            if (i + 1 == l->n)
                return fail(h, "%s: its value is missing", k);
            const char *v = l->word[++i];
            if (eq(k, "weight")) {
                long long n = plc_imp_decimal(v, MAX_WEIGHT);
                if (n < 0)
                    return fail(h, "weight \"%s\": haproxy's weights are 0 to %d",
                                shown(v, w, sizeof w), MAX_WEIGHT);
                *weight = (int)n;
            } else {
                long long n = plc_imp_decimal(v, 2147483647);
                if (n < 1)
                    return fail(h, "id \"%s\": haproxy's ids are integers above 0",
                                shown(v, w, sizeof w));
                if (n > MAX_ID)
                    return fail(h, "id %lld: placer's haproxy ids end at %u (id * 4096 + j "
                                   "must fit 32 bits)", n, MAX_ID);
                *id = n;
            }
        } else if (eq(k, "backup") || eq(k, "no-backup")) {
            *backup = eq(k, "backup");
        } else if (eq(k, "disabled") || eq(k, "enabled")) {
            *disabled = eq(k, "disabled");
        } else if (eq(k, "source")) {
            /* source ADDR [usesrc ADDR] [interface NAME] */
            if (i + 1 == l->n)
                return fail(h, "source: its address is missing (haproxy refuses it)");
            i++;
            while (i + 2 < l->n && (eq(l->word[i + 1], "usesrc") || eq(l->word[i + 1], "interface")))
                i += 2;
        } else {
            int args = server_keyword_args(k);
            if (args < 0)
                return fail(h, "unknown keyword '%s' (haproxy 2.6 refuses it%s)",
                            shown(k, w, sizeof w),
                            eq(k, "hash-key") ? ": hash-key came with haproxy 3.0" : "");
            if (i + (size_t)args >= l->n)
                return fail(h, "'%s' expects an argument (haproxy refuses it)", k);
            i += (size_t)args;
        }
    }
    return 0;
}

/* One server of the backend (name, its address as written, options). */
static int add_one(hap *h, const char *name, const char *addr_word, int weight, long long id,
                   int backup, int disabled)
{
    char w[80];
    for (const char *p = name; *p; p++)
        if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') && !(*p >= '0' && *p <= '9') &&
            !strchr("-_.:", *p))
            return fail(h, "server \"%s\": haproxy takes letters, digits, '-', '_', '.' and ':' "
                           "in a name", shown(name, w, sizeof w));
    /* str2sa_range expands $NAME and ${NAME} in an address, quoted or not */
    char address[PLACER_MAX_ID_LEN + 1];
    hap_env env = {env_get, h, h->line};
    if (strlen(name) > PLACER_MAX_ID_LEN ||
        hap_expand_address(addr_word, &env, address, sizeof address))
        return fail(h, "server: longer than placer's %u-byte ids", PLACER_MAX_ID_LEN);
    if (h->nservers >= PLC_IMP_MAX_SERVERS)
        return fail(h, "more than %u servers in a backend (placer's import limit)",
                    PLC_IMP_MAX_SERVERS);
    const size_t *other = plc_set_find(&h->names, name, strlen(name));
    if (other)
        return fail(h, "server \"%s\" is line %zu's too (haproxy refuses two of one name)",
                    name, *other);
    uint32_t id32 = (uint32_t)id;
    other = id ? plc_set_find(&h->ids, &id32, sizeof id32) : NULL;
    if (other)
        return fail(h, "server \"%s\": id %lld is line %zu's server's too (haproxy refuses it)",
                    name, id, *other);
    if (plc_set_add(&h->names, name, strlen(name), h->line) < 0 ||
        (id && plc_set_add(&h->ids, &id32, sizeof id32, h->line) < 0))
        return PLACER_ENOMEM;
    if (h->nservers == h->servers_cap) {
        size_t cap = h->servers_cap ? 2 * h->servers_cap : 64;
        hap_server *grown = placer_mem_alloc(cap * sizeof *grown);
        if (!grown)
            return PLACER_ENOMEM;
        if (h->nservers)
            memcpy(grown, h->servers, h->nservers * sizeof *grown);
        placer_mem_free(h->servers);
        h->servers = grown;
        h->servers_cap = cap;
    }
    size_t name_len = strlen(name) + 1, address_len = strlen(address) + 1;
    hap_server *sv = &h->servers[h->nservers];
    *sv = (hap_server){placer_mem_alloc(name_len), placer_mem_alloc(address_len), weight,
                       backup, disabled, id, h->line};
    if (!sv->name || !sv->address) {
        placer_mem_free(sv->name);
        placer_mem_free(sv->address);
        return PLACER_ENOMEM;
    }
    memcpy(sv->name, name, name_len);
    memcpy(sv->address, address, address_len);
    h->nservers++;
    return 0;
}

static int add_server(hap *h, const hap_line *l)
{
    if (l->n < 3)
        return fail(h, "server: expected \"server NAME ADDRESS [options]\"");
    int weight = h->be.def_weight, backup = h->be.def_backup, disabled = h->be.def_disabled;
    long long id = 0;
    int err = server_options(h, l, 3, &weight, &id, &backup, &disabled);
    return err ? err : add_one(h, l->word[1], l->word[2], weight, id, backup, disabled);
}

/* "server-template PREFIX N|LOW-HIGH ADDRESS [options]": the servers
 * PREFIXLOW .. PREFIXHIGH (1 .. N), each as a server line of that address
 * (server.c's _srv_parse_tmpl_init). */
static int add_template(hap *h, const hap_line *l)
{
    char w[80];
    if (l->n < 4)
        return fail(h, "server-template: expected \"server-template PREFIX N|LOW-HIGH ADDRESS "
                       "[options]\"");
    const char *r = l->word[2], *dash = strchr(r, '-');
    char low_text[16] = "1";
    if (dash && (size_t)(dash - r) < sizeof low_text) {
        memcpy(low_text, r, (size_t)(dash - r));
        low_text[dash - r] = '\0';
    }
    long long low = dash && (size_t)(dash - r) >= sizeof low_text ? -1
                                                                  : plc_imp_decimal(low_text, MAX_ID);
    long long high = plc_imp_decimal(dash ? dash + 1 : r, MAX_ID);
    if (low < 0 || high < 1 || low > high)
        return fail(h, "server-template: \"%s\" is not a number or a range LOW-HIGH (haproxy "
                       "refuses it)", shown(r, w, sizeof w));
    if (strlen(l->word[1]) + 8 > PLACER_MAX_ID_LEN)
        return fail(h, "server-template: a prefix longer than placer's ids take");
    int weight = h->be.def_weight, backup = h->be.def_backup, disabled = h->be.def_disabled;
    long long id = 0;
    int err = server_options(h, l, 4, &weight, &id, &backup, &disabled);
    if (!err && id)
        return fail(h, "server-template: id is not imported (which ids haproxy gives the "
                       "servers is not checked here): write the servers out");
    char name[PLACER_MAX_ID_LEN + 1];
    for (long long i = low; !err && i <= high; i++) {
        snprintf(name, sizeof name, "%s%lld", l->word[1], i);
        err = add_one(h, name, l->word[3], weight, 0, backup, disabled);
    }
    return err;
}

/* A line of the chosen backend. */
static int backend_line(hap *h, hap_settings *s, const hap_line *l, int is_defaults)
{
    const char *k = l->word[0];
    if (eq(k, "balance"))
        return parse_balance(h, s, l);
    if (eq(k, "hash-type"))
        return parse_hash_type(h, s, l);
    if (eq(k, "hash-balance-factor")) {
        long long f = l->n == 2 ? plc_imp_decimal(l->word[1], 2147483647) : -1;
        if (f < 0 || (f && f < 100))
            return fail(h, "'hash-balance-factor' must be 0 or greater than 100 (haproxy "
                           "refuses it)");
        s->factor_line = h->line;
        s->factor = f;
        return 0;
    }
    if (eq(k, "default-server"))
        return server_options(h, l, 1, &s->def_weight, NULL, &s->def_backup, &s->def_disabled);
    if (!is_defaults && eq(k, "server-template"))
        return add_template(h, l);
    if (!is_defaults && eq(k, "server"))
        return add_server(h, l);
    return 0; /* everything else leaves placement alone */
}

static void settings_init(hap_settings *s)
{
    memset(s, 0, sizeof *s);
    s->def_weight = 1;
}

/* A section's first line: which settings the following lines go to. */
static int section_start(hap *h, const hap_line *l, hap_settings **cur, int *is_defaults)
{
    const char *k = l->word[0];
    *cur = NULL;
    *is_defaults = 0;
    h->in_chosen = 0;
    h->in_global = eq(k, "global");
    if (eq(k, "defaults")) {
        if (h->ndefaults == MAX_DEFAULTS)
            return fail(h, "more than %d defaults sections", MAX_DEFAULTS);
        hap_settings *d = &h->defaults[h->ndefaults];
        settings_init(d);
        snprintf(d->name, sizeof d->name, "%s", l->n > 1 ? l->word[1] : "");
        h->last_defaults = (int)h->ndefaults++;
        *cur = d;
        *is_defaults = 1;
        return 0;
    }
    if ((!eq(k, "backend") && !eq(k, "listen")) || l->n < 2 || !eq(l->word[1], h->want))
        return 0;
    if (h->found)
        return fail(h, "%s \"%s\" is declared twice (haproxy refuses that)", k, h->want);
    h->found = 1;
    h->in_chosen = 1;
    int from = h->last_defaults;
    if (l->n > 3 && eq(l->word[2], "from")) {
        from = -1;
        for (size_t i = 0; i < h->ndefaults; i++)
            if (eq(h->defaults[i].name, l->word[3]))
                from = (int)i;
        if (from < 0)
            return fail(h, "%s \"%s\" from \"%s\": no defaults section of that name before it", k,
                        h->want, l->word[3]);
    }
    if (from >= 0)
        h->be = h->defaults[from];
    else
        settings_init(&h->be);
    *cur = &h->be;
    return 0;
}

/* .if's or .elif's condition: its words joined by blanks, as haproxy
 * joins them. */
static int condition(hap *h, const hap_line *l, int *truth)
{
    char expr[HAP_LINE_MAX + HAP_MAX_WORDS], why[300];
    size_t at = 0;
    for (size_t i = 1; i < l->n; i++)
        at += (size_t)snprintf(expr + at, sizeof expr - at, "%s%s", i > 1 ? " " : "", l->word[i]);
    expr[at] = '\0';
    hap_env env = {env_get, h, h->line};
    if (hap_cond_eval(expr, &env, truth, why, sizeof why))
        return fail(h, "%s: %s", l->word[0], why);
    return 0;
}

/* A line starting with '.' (cfgparse.c's readcfgfile): the conditional
 * blocks, evaluated as haproxy evaluates them, and the messages. */
static int dot_line(hap *h, const hap_line *l)
{
    const char *k = l->word[0];
    unsigned char *top = h->nifs ? &h->ifs[h->nifs - 1] : NULL;
    int active = !top || (*top & IF_ACTIVE), truth = 0, err = 0;
    if (eq(k, ".if")) {
        if (h->nifs == MAX_NESTED_IF)
            return fail(h, "too many nested '.if', max is %d (haproxy's limit)", MAX_NESTED_IF);
        if (active && (err = condition(h, l, &truth)) != 0)
            return err;
        h->if_line[h->nifs] = h->line;
        h->ifs[h->nifs++] = !active ? IF_DROPPED : truth ? IF_ACTIVE | IF_TAKEN : 0;
        return 0;
    }
    if (eq(k, ".elif") || eq(k, ".else") || eq(k, ".endif")) {
        if (!top)
            return fail(h, "'%s' with no matching '.if' (haproxy refuses it)", k);
        if (eq(k, ".endif")) {
            h->nifs--;
            return 0;
        }
        if (*top & IF_ELSE)
            return fail(h, "'%s' after '.else' is not permitted (haproxy refuses it)", k);
        if (*top & IF_DROPPED) {
            *top |= eq(k, ".else") ? IF_ELSE : 0;
            return 0;
        }
        if (eq(k, ".else"))
            truth = 1;
        else if (!(*top & IF_TAKEN) && (err = condition(h, l, &truth)) != 0)
            return err;
        *top = (unsigned char)((*top & (IF_TAKEN | IF_ELSE)) | (eq(k, ".else") ? IF_ELSE : 0));
        if (truth && !(*top & IF_TAKEN))
            *top |= IF_ACTIVE | IF_TAKEN;
        return 0;
    }
    if (eq(k, ".alert"))
        return active ? fail(h, ".alert in an active block: haproxy refuses to start") : 0;
    if (eq(k, ".diag") || eq(k, ".notice") || eq(k, ".warning"))
        return 0;
    char w[80];
    return fail(h, "unknown directive '%s' (haproxy refuses it)", shown(k, w, sizeof w));
}

static int read_config(hap *h, const char *text, size_t len)
{
    hap_settings *cur = NULL;
    int is_defaults = 0;
    hap_line *line = placer_mem_alloc(sizeof *line);
    if (!line)
        return PLACER_ENOMEM;
    size_t at = 0;
    int err = 0;
    while (!err && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        h->line++;
        char why[160];
        hap_env env = {env_get, h, h->line};
        if (hap_split(text + at, end - at, &env, line, why, sizeof why)) {
            err = fail(h, "%s", why);
            break;
        }
        at = end + 1;
        if (!line->n)
            continue;
        if (line->word[0][0] == '.') {
            err = dot_line(h, line);
            continue;
        }
        if (h->nifs && !(h->ifs[h->nifs - 1] & IF_ACTIVE))
            continue; /* a block haproxy drops */
        if (section_keyword(line->word[0]))
            err = section_start(h, line, &cur, &is_defaults);
        else if (h->in_global)
            err = global_line(h, line);
        else if (cur)
            err = backend_line(h, cur, line, is_defaults);
    }
    placer_mem_free(line);
    if (!err && h->nifs) {
        h->line = h->if_line[h->nifs - 1];
        err = fail(h, "non-terminated '.if' block (haproxy refuses it)");
    }
    return err;
}

/* haproxy's automatic ids: the first free id from a counter that starts at
 * 1 and advances past every server (cfgparse.c check_config_validity). */
static int assign_ids(hap *h)
{
    long long next = 1;
    for (size_t i = 0; i < h->nservers; i++, next++) {
        hap_server *sv = &h->servers[i];
        if (!sv->id) {
            /* next only grows: the probes are at most the servers plus the explicit ids */
            for (uint32_t n32 = (uint32_t)next;
                 next <= MAX_ID && plc_set_find(&h->ids, &n32, sizeof n32); n32 = (uint32_t)++next)
                ;
            if (next > MAX_ID) {
                h->line = sv->line;
                return fail(h, "no server id left (placer's haproxy ids end at %u)", MAX_ID);
            }
            sv->id = next;
        }
    }
    return 0;
}

static int membership(hap *h, json_t *doc)
{
    hap_settings *s = &h->be;
    if (!h->found) {
        h->line = 0;
        return fail(h, "no backend or listen section \"%s\"", h->want);
    }
    if (s->lb == LB_UNSET) {
        h->line = 0;
        return fail(h, "backend \"%s\" has no balance: haproxy's default is roundrobin, which "
                       "sends requests by turn (no placement can follow it)", h->want);
    }
    if (s->lb == LB_REFUSED) {
        h->line = s->lb_line;
        return fail(h, "%s", s->lb_why);
    }
    int err = assign_ids(h);
    if (err)
        return err;
    json_t *nodes = json_array();
    if (!nodes)
        return PLACER_ENOMEM;
    for (size_t i = 0; i < h->nservers; i++) {
        const hap_server *sv = &h->servers[i];
        size_t line = sv->line;
        const char *name = sv->name;
        if (sv->backup)
            note(h, line, "server %s is a backup: left out (haproxy hashes backups only when no "
                          "active server is up)", name);
        else if (sv->disabled)
            note(h, line, "server %s is disabled: left out (not in haproxy's hash)", name);
        else if (!sv->weight)
            note(h, line, "server %s has weight 0: left out (not in haproxy's hash)", name);
        else {
            json_t *o = json_object();
            if (!o || json_array_append_new(nodes, o) ||
                json_object_set_new(o, "id", json_string(name)) ||
                plc_imp_set_text(o, "address", sv->address, strlen(sv->address)) ||
                json_object_set_new(o, "weight", json_integer(sv->weight)) ||
                json_object_set_new(o, "hash_id", json_integer((json_int_t)sv->id))) {
                json_decref(nodes);
                return PLACER_ENOMEM;
            }
        }
    }
    if (!json_array_size(nodes)) {
        json_decref(nodes);
        h->line = 0;
        return fail(h, "backend \"%s\" has no server in its hash (none active with a weight)",
                    h->want);
    }
    if (s->source && s->fn)
        note(h, s->lb_line, "balance source hashes the address itself: hash-type's %s is not "
                            "used", s->fn);
    note(h, s->lb_line, "the key is %s", s->key);
    json_object_set_new(doc, "distribution", json_string(s->hash_type == 1 ? "consistent"
                                                                           : "map-based"));
    json_object_set_new(doc, "key_hash",
                        json_string(s->source ? "source" : s->fn ? s->fn : "sdbm"));
    json_object_set_new(doc, "avalanche", json_boolean(s->avalanche));
    size_t fields = 5;
    if (s->factor_line && s->factor) {
        note(h, s->factor_line, "hash-balance-factor %lld: recorded; with no loads known, keys "
                                "go where haproxy sends them at zero load (placer_lookup_bounded "
                                "takes loads)", s->factor);
        json_object_set_new(doc, "hash_balance_factor", json_integer((json_int_t)s->factor));
        fields++;
    }
    if (*s->rule) { /* how haproxy reads the request: placer lookup applies it */
        json_object_set_new(doc, "key_rule", json_string(s->rule));
        fields++;
    }
    json_object_set_new(doc, "nodes", nodes);
    return json_object_size(doc) == fields ? 0 : PLACER_ENOMEM;
}

/* The backend's membership document as a tree (*doc), with the notes in
 * why. */
static int haproxy_doc(const char *cfg, size_t len, const char *backend, json_t **doc_out,
                       char *why, size_t why_len, uint64_t *work)
{
    if (why && why_len)
        why[0] = '\0';
    if (!cfg || !backend)
        return PLACER_ENULL;
    hap *h = placer_mem_calloc(1, sizeof *h);
    json_t *doc = json_object();
    int err = PLACER_ENOMEM;
    if (h && doc && !json_object_set_new(doc, "compat", json_string("haproxy")) &&
        (h->env = json_object()) != NULL &&
        !plc_set_init(&h->names, work) &&
        !plc_set_init(&h->ids, work)) {
        h->want = backend;
        h->msgs.why = why;
        h->msgs.why_len = why_len;
        h->last_defaults = -1;
        err = read_config(h, cfg, len);
        if (!err)
            err = membership(h, doc);
        if (!err && why && why_len)
            snprintf(why, why_len, "%s", h->msgs.notes);
    }
    if (h) {
        for (size_t i = 0; i < h->nservers; i++) {
            placer_mem_free(h->servers[i].name);
            placer_mem_free(h->servers[i].address);
        }
        placer_mem_free(h->servers);
        json_decref(h->env);
        plc_set_free(&h->names);
        plc_set_free(&h->ids);
    }
    placer_mem_free(h);
    if (err) {
        json_decref(doc);
        return err;
    }
    *doc_out = doc;
    return 0;
}

int plc_haproxy_membership_counted(const char *cfg, size_t len, const char *backend, char **json,
                                   size_t *json_len, char *why, size_t why_len, uint64_t *work)
{
    if (!json) {
        if (why && why_len)
            why[0] = '\0';
        return PLACER_ENULL;
    }
    json_t *doc = NULL;
    int err = haproxy_doc(cfg, len, backend, &doc, why, why_len, work);
    if (!err)
        err = plc_ctl_dump_membership(doc, json, json_len);
    json_decref(doc);
    return err;
}

int placer_haproxy_membership(const char *cfg, size_t len, const char *backend, char **json,
                              size_t *json_len, char *why, size_t why_len)
{
    return plc_haproxy_membership_counted(cfg, len, backend, json, json_len, why, why_len, NULL);
}

typedef struct {
    const char *cfg, *backend;
    size_t len;
} haproxy_source;

static int haproxy_text(void *arg, char **text, size_t *len, char *why, size_t why_len)
{
    const haproxy_source *src = arg;
    return placer_haproxy_membership(src->cfg, src->len, src->backend, text, len, why, why_len);
}

int placer_haproxy_import(const char *cfg, size_t len, const char *backend, uint64_t epoch,
                          placer_snapshot **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out)
        return PLACER_ENULL;
    /* built from the document in memory: no text written and parsed again */
    json_t *doc = NULL;
    int err = haproxy_doc(cfg, len, backend, &doc, why, why_len, NULL);
    if (err)
        return err;
    haproxy_source src = {cfg, backend, len};
    return plc_ctl_import_tree(doc, "the backend's membership", epoch, out, haproxy_text, &src,
                               why, why_len);
}
