/*
 * twemproxy_import.c -- one pool of a nutcracker (twemproxy) configuration
 * into a membership document ("compat": "twemproxy"), then a snapshot.
 *
 * The YAML is read with libyaml's event parser, the way nutcracker 0.5.0
 * reads it (src/nc_conf.c): a mapping of pool names, each a mapping of
 * directives whose values are scalars, and one sequence, "servers". Each
 * server is "host:port:weight [name]" or "/unix/path:weight [name]", cut
 * from the end as conf_add_server() cuts it; an unnamed server's name (what
 * the ring hashes) is "host:port", "host" alone for port 11211, and for a
 * socket its path followed by the ':' before the weight (nutcracker's
 * arithmetic). Every pool is checked, not only the one imported, since
 * nutcracker refuses the whole file for one bad pool; every directive
 * nutcracker 0.5.0 has is accepted with the values it accepts
 * (twemproxy_values.c), and those that do not change placement are
 * ignored. Refused with the line and column, as nutcracker refuses them:
 * what its token and structure checks refuse (document markers, tags,
 * anchors, aliases, flow collections, empty scalars), unknown or repeated
 * directives, a bad value, a pool without listen or servers, two pools of
 * one name or listen address. Refused on purpose: "distribution: random"
 * (no placement can follow it) and what placer's ids cannot hold
 * (docs/COMPAT.md lists both).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "compat_import.h"
#include "control_alloc.h"
#include "import_set.h"
#include "placer_control.h"
#include "twemproxy_values.h"

#define MAX_KEY 32 /* directive names are shorter; a longer one is unknown */

/* nc_conf.c's conf_commands of nutcracker 0.5.0, in its order. */
static const char *const directives[] = {
    "listen", "hash", "hash_tag", "distribution", "timeout", "backlog", "client_connections",
    "redis", "tcpkeepalive", "redis_auth", "redis_db", "preconnect", "auto_eject_hosts",
    "server_connections", "server_retry_timeout", "server_failure_limit", "servers", NULL};
/* nc_hashkit.h's HASH_CODEC and DIST_CODEC, nutcracker's own spellings. */
static const char *const hashes[] = {"one_at_a_time", "md5", "crc16", "crc32", "crc32a",
                                     "fnv1_64", "fnv1a_64", "fnv1_32", "fnv1a_32", "hsieh",
                                     "murmur", "jenkins", NULL};

typedef struct tw {
    yaml_parser_t parser;
    yaml_event_t ev;
    int have;
    char *why;
    size_t why_len;
    const char *want;   /* the pool asked for; NULL: the only one */
    char pool[128];     /* the pool being read, for messages */
    json_t *doc;        /* the chosen pool's membership */
    json_t *nodes;      /* the pool being read's nodes (the chosen pool's: doc's) */
    plc_set names;      /* the pool being read's server names -> index, for duplicates */
    uint64_t *work;     /* its probes, when counted */
    json_t *pools;      /* every pool name: duplicates, and the list in messages */
    json_t *listens;    /* every pool's listen, for duplicates */
    size_t servers;
} tw;

static int fail_at(tw *t, yaml_mark_t m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(tw *t, yaml_mark_t m, const char *fmt, ...)
{
    if (t->why && t->why_len) {
        char raw[512]; /* quotes the file's scalars: escaped (placer_escape) */
        int n = snprintf(raw, sizeof raw, "line %zu, column %zu: ", m.line + 1, m.column + 1);
        if (*t->pool && n >= 0 && (size_t)n < sizeof raw)
            n += snprintf(raw + n, sizeof raw - (size_t)n, "pool \"%s\": ", t->pool);
        va_list ap;
        va_start(ap, fmt);
        if (n >= 0 && (size_t)n < sizeof raw)
            vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
        va_end(ap);
        placer_escape(t->why, t->why_len, raw, strlen(raw));
    }
    return PLACER_EFORMAT;
}

/* What nutcracker's conf_validate_tokens and conf_push_scalar refuse. */
static int refused_token(tw *t)
{
    const yaml_event_t *e = &t->ev;
    yaml_mark_t m = e->start_mark;
    const char *anchor = NULL, *tag = NULL;
    switch (e->type) {
    case YAML_ALIAS_EVENT:
        return fail_at(t, m, "YAML aliases are not supported (nutcracker takes none)");
    case YAML_DOCUMENT_START_EVENT:
        if (e->data.document_start.version_directive ||
            e->data.document_start.tag_directives.start != e->data.document_start.tag_directives.end)
            return fail_at(t, m, "a %%YAML or %%TAG directive: nutcracker refuses it");
        if (!e->data.document_start.implicit)
            return fail_at(t, m, "a document start (---): nutcracker refuses it");
        return 0;
    case YAML_DOCUMENT_END_EVENT:
        if (!e->data.document_end.implicit)
            return fail_at(t, m, "a document end (...): nutcracker refuses it");
        return 0;
    case YAML_SCALAR_EVENT:
        anchor = (const char *)e->data.scalar.anchor;
        tag = (const char *)e->data.scalar.tag;
        if (!anchor && !tag && !e->data.scalar.length)
            return fail_at(t, m, "an empty value (nutcracker refuses empty scalars)");
        break;
    case YAML_SEQUENCE_START_EVENT:
        anchor = (const char *)e->data.sequence_start.anchor;
        tag = (const char *)e->data.sequence_start.tag;
        if (e->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE)
            return fail_at(t, m, "a flow sequence ([...]): nutcracker takes block sequences "
                                 "(\"- item\" lines) only");
        break;
    case YAML_MAPPING_START_EVENT:
        anchor = (const char *)e->data.mapping_start.anchor;
        tag = (const char *)e->data.mapping_start.tag;
        if (e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE)
            return fail_at(t, m, "a flow mapping ({...}): nutcracker takes block mappings only");
        break;
    default:
        return 0;
    }
    if (anchor)
        return fail_at(t, m, "a YAML anchor (&name): nutcracker refuses anchors");
    if (tag)
        return fail_at(t, m, "a YAML tag (!tag): nutcracker refuses tags");
    return 0;
}

static int next(tw *t)
{
    if (t->have)
        yaml_event_delete(&t->ev);
    t->have = 0;
    if (!yaml_parser_parse(&t->parser, &t->ev)) {
        if (t->parser.error == YAML_MEMORY_ERROR)
            return PLACER_ENOMEM;
        *t->pool = '\0';
        return fail_at(t, t->parser.problem_mark, "YAML: %s%s%s",
                       t->parser.problem ? t->parser.problem : "malformed",
                       t->parser.context ? " " : "", t->parser.context ? t->parser.context : "");
    }
    t->have = 1;
    return refused_token(t);
}

static const char *scalar(const tw *t)
{
    return (const char *)t->ev.data.scalar.value;
}

/* The current scalar as text without NUL bytes, else an error. */
static int text_scalar(tw *t, const char *what)
{
    /* libyaml ends every scalar with a NUL: an earlier one is the value's */
    if (strlen(scalar(t)) != t->ev.data.scalar.length)
        return fail_at(t, t->ev.start_mark, "%s holds a NUL byte", what);
    return 0;
}

static int expect(tw *t, yaml_event_type_t type, const char *what)
{
    int err = next(t);
    if (!err && t->ev.type != type)
        err = fail_at(t, t->ev.start_mark, "expected %s", what);
    return err;
}

static int one_of(const char *s, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return 1;
    return 0;
}

/* 0 .. max from digits only (nutcracker's nc_atoi), else -1. */
static long long digits(const char *s, size_t n, long long max)
{
    long long v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > max)
            return -1;
    }
    return v;
}

/* Last index of c in s[0..end], or -1. */
static long rfind(const char *s, long end, char c)
{
    for (long i = end; i >= 0; i--)
        if (s[i] == c)
            return i;
    return -1;
}

/* One "servers" entry, cut from the end as conf_add_server() does. */
static int add_server(tw *t)
{
    const char *s = scalar(t);
    long n = (long)t->ev.data.scalar.length, p = n - 1;
    yaml_mark_t m = t->ev.start_mark;
    size_t index = t->servers++;
    if (index >= PLC_IMP_MAX_SERVERS)
        return fail_at(t, m, "more than %u servers in a pool (placer's import limit)",
                       PLC_IMP_MAX_SERVERS);
    int unix_path = n > 0 && s[0] == '/';
    const char *shape = "expected \"host:port:weight [name]\" or \"/unix/path:weight [name]\"";
    int err = text_scalar(t, "a server");
    if (err)
        return err;
    long sp = rfind(s, p, ' '), name_at = -1, name_len = 0;
    if (sp >= 0) {
        name_at = sp + 1;
        name_len = p - sp;
        p = sp - 1;
    }
    long wc = rfind(s, p, ':');
    if (wc < 0)
        return fail_at(t, m, "servers[%zu]: %s", index, shape);
    const char *weight = s + wc + 1;
    size_t weight_len = (size_t)(p - wc);
    p = wc - 1;
    long port = 0, pc = rfind(s, p, ':');
    if (unix_path && pc >= 0)
        return fail_at(t, m, "servers[%zu]: a socket path holds no ':' (%s)", index, shape);
    if (!unix_path) {
        if (pc < 0)
            return fail_at(t, m, "servers[%zu]: %s", index, shape);
        port = (long)digits(s + pc + 1, (size_t)(p - pc), 65535);
        if (port < 1)
            return fail_at(t, m, "servers[%zu]: the port must be from 1 to 65535", index);
        p = pc - 1;
    }
    long long w = digits(weight, weight_len, 2147483647);
    if (w < 1)
        return fail_at(t, m, "servers[%zu]: the weight must be an integer from 1 to 2147483647",
                       index);
    long addr_len = p + 1;
    if (addr_len <= 0)
        return fail_at(t, m, "servers[%zu]: no host", index);
    if (sp >= 0 && name_len == 0)
        return fail_at(t, m, "servers[%zu]: an empty name after the space", index);
    /* unnamed: host:port, host alone for 11211, path plus its ':' */
    long id_len = name_at >= 0 ? name_len : port == 11211 ? addr_len : wc + unix_path;
    const char *id = name_at >= 0 ? s + name_at : s;
    if (id_len > (long)PLACER_MAX_ID_LEN || wc > (long)PLACER_MAX_ID_LEN)
        return fail_at(t, m, "servers[%zu]: longer than placer's %u-byte ids", index,
                       PLACER_MAX_ID_LEN);
    json_t *idv = json_stringn(id, (size_t)id_len);
    json_t *node = json_object();
    const size_t *dup = plc_set_find(&t->names, id, (size_t)id_len);
    if (dup) {
        err = fail_at(t, m, "servers[%zu]: the name \"%s\" is servers[%zu]'s too (nutcracker "
                            "refuses two servers of one name)",
                      index, json_string_value(idv), *dup);
    } else if (!idv || !node || plc_set_add(&t->names, id, (size_t)id_len, index)) {
        err = PLACER_ENOMEM;
    } else {
        json_object_set(node, "id", idv);
        json_object_set_new(node, "address", json_stringn(s, (size_t)(unix_path ? addr_len : wc)));
        json_object_set_new(node, "weight", json_integer(w));
        if (json_object_size(node) != 3 ||
            json_array_append(t->nodes, node))
            err = PLACER_ENOMEM;
    }
    json_decref(idv);
    json_decref(node);
    return err;
}

/* A pool-level directive of the chosen pool. */
static int directive(tw *t, const char *key, int chosen, tw_pool *pool)
{
    const char *v = scalar(t);
    int err = text_scalar(t, key);
    if (err)
        return err;
    char why[160];
    if (tw_value_refused(key, v, t->ev.data.scalar.length, pool, why, sizeof why))
        return fail_at(t, t->ev.start_mark, "%s: %s", key, why);
    if (!strcmp(key, "listen")) {
        if (json_object_get(t->listens, v))
            return fail_at(t, t->ev.start_mark, "listen: %s is pool \"%s\"'s too (nutcracker "
                                                "refuses two pools on one address)",
                           v, json_string_value(json_object_get(t->listens, v)));
        if (json_object_set_new(t->listens, v, json_string(t->pool)))
            return PLACER_ENOMEM;
    } else if (!strcmp(key, "hash")) {
        if (!one_of(v, hashes))
            return fail_at(t, t->ev.start_mark, "hash: \"%s\" is not one of nutcracker's hashes "
                                                "(one_at_a_time, md5, crc16, crc32, crc32a, fnv1_64, "
                                                "fnv1a_64, fnv1_32, fnv1a_32, hsieh, murmur, jenkins)",
                           v);
        if (chosen)
            json_object_set_new(t->doc, "key_hash", json_string(v));
    } else if (!strcmp(key, "distribution")) {
        if (!strcmp(v, "random"))
            return fail_at(t, t->ev.start_mark, "distribution: random sends each request to a "
                                                "random server: no placement can follow it");
        if (strcmp(v, "ketama") && strcmp(v, "modula"))
            return fail_at(t, t->ev.start_mark, "distribution: \"%s\" is not one of ketama, "
                                                "modula, random", v);
        if (chosen)
            json_object_set_new(t->doc, "distribution", json_string(v));
    } else if (!strcmp(key, "hash_tag")) {
        if (t->ev.data.scalar.length != 2)
            return fail_at(t, t->ev.start_mark, "hash_tag: expected two characters, such as "
                                                "\"{}\"");
        if (chosen)
            json_object_set_new(t->doc, "hash_tag", json_string(v));
    }
    return 0;
}

static int read_pool(tw *t, int chosen)
{
    yaml_mark_t at = t->ev.start_mark;
    int err = expect(t, YAML_MAPPING_START_EVENT, "a mapping of directives (listen, hash, servers...)");
    unsigned seen = 0;
    tw_pool pool = {0, 0};
    /* every pool's servers are checked; only the chosen one's are kept */
    plc_set_free(&t->names);
    int set_err = plc_set_init(&t->names, t->work);
    t->nodes = chosen ? json_object_get(t->doc, "nodes") : json_array();
    t->servers = 0;
    if (set_err || !t->nodes)
        err = PLACER_ENOMEM;
    while (!err) {
        if ((err = next(t)) != 0 || t->ev.type == YAML_MAPPING_END_EVENT)
            break;
        if (t->ev.type != YAML_SCALAR_EVENT) {
            err = fail_at(t, t->ev.start_mark, "expected a directive name");
            break;
        }
        char key[MAX_KEY + 1];
        size_t kn = t->ev.data.scalar.length;
        snprintf(key, sizeof key, "%.*s", (int)(kn > MAX_KEY ? MAX_KEY : kn), scalar(t));
        size_t d = 0;
        while (directives[d] && (kn > MAX_KEY || strcmp(key, directives[d])))
            d++;
        if (!directives[d]) {
            err = fail_at(t, t->ev.start_mark, "unknown directive \"%s%s\" (nutcracker refuses "
                                               "it too)", key, kn > MAX_KEY ? "..." : "");
            break;
        }
        if (seen & (1u << d)) {
            err = fail_at(t, t->ev.start_mark, "%s: a duplicate (nutcracker refuses it)", key);
            break;
        }
        seen |= 1u << d;
        if (!strcmp(key, "servers")) {
            err = expect(t, YAML_SEQUENCE_START_EVENT,
                         "servers: a list of \"host:port:weight [name]\"");
            while (!err && !(err = next(t)) && t->ev.type != YAML_SEQUENCE_END_EVENT) {
                if (t->ev.type != YAML_SCALAR_EVENT)
                    err = fail_at(t, t->ev.start_mark, "servers: expected \"host:port:weight "
                                                       "[name]\" strings");
                else
                    err = add_server(t);
            }
        } else if (!(err = expect(t, YAML_SCALAR_EVENT, "a value (a scalar)"))) {
            err = directive(t, key, chosen, &pool);
        }
    }
    if (!chosen)
        json_decref(t->nodes);
    t->nodes = NULL;
    /* conf_validate_pool's order: listen, then redis_auth, then servers */
    if (!err && !(seen & 1u))
        err = fail_at(t, at, "no listen (nutcracker refuses such a pool)");
    if (!err && pool.redis_auth && !pool.redis)
        err = fail_at(t, at, "redis_auth without \"redis: true\" (nutcracker refuses it)");
    if (!err && !t->servers)
        err = fail_at(t, at, "no servers (nutcracker refuses such a pool)");
    return err;
}

/* Pool names for a message: "a", "b", ... */
static void pool_list(const tw *t, char *out, size_t n)
{
    const char *name;
    json_t *v;
    size_t at = 0;
    *out = '\0';
    json_object_foreach(t->pools, name, v) {
        /* each name only when it fits whole, with room left for ", ..." */
        if (at + strlen(name) + 4 + 6 >= n) {
            snprintf(out + at, n - at, ", ...");
            break;
        }
        at += (size_t)snprintf(out + at, n - at, "%s\"%s\"", at ? ", " : "", name);
    }
}

static int read_config(tw *t)
{
    int err = expect(t, YAML_STREAM_START_EVENT, "a YAML stream");
    if (!err)
        err = next(t);
    if (!err && t->ev.type != YAML_DOCUMENT_START_EVENT)
        return fail_at(t, t->ev.start_mark, "no pools (an empty document)");
    if (!err)
        err = expect(t, YAML_MAPPING_START_EVENT, "a mapping of pool names to pools");
    int found = 0;
    while (!err) {
        if ((err = next(t)) != 0 || t->ev.type == YAML_MAPPING_END_EVENT)
            break;
        if (t->ev.type != YAML_SCALAR_EVENT)
            return fail_at(t, t->ev.start_mark, "expected a pool name");
        if ((err = text_scalar(t, "a pool name")) != 0)
            return err;
        if (json_object_get(t->pools, scalar(t)))
            return fail_at(t, t->ev.start_mark, "pool \"%s\" is named twice (nutcracker refuses "
                                                "that)", scalar(t));
        if (json_object_set_new(t->pools, scalar(t), json_true()))
            return PLACER_ENOMEM;
        int chosen = t->want ? !strcmp(scalar(t), t->want) : !found;
        found |= chosen;
        snprintf(t->pool, sizeof t->pool, "%s", scalar(t));
        err = read_pool(t, chosen);
        *t->pool = '\0';
    }
    if (!err)
        err = expect(t, YAML_DOCUMENT_END_EVENT, "the end of the document");
    if (!err && !(err = next(t)) && t->ev.type != YAML_STREAM_END_EVENT)
        return fail_at(t, t->ev.start_mark, "one YAML document only (nutcracker reads one)");
    char list[200];
    pool_list(t, list, sizeof list);
    yaml_mark_t top = {0, 0, 0};
    if (!err && !json_object_size(t->pools))
        err = fail_at(t, top, "no pools");
    else if (!err && !found)
        err = fail_at(t, top, "no pool \"%s\" (the file has %s)", t->want, list);
    else if (!err && !t->want && json_object_size(t->pools) > 1)
        err = fail_at(t, top, "several pools: say which (%s)", list);
    return err;
}

int placer_twemproxy_membership(const char *yaml, size_t len, const char *pool, char **json,
                                size_t *json_len, char *why, size_t why_len)
{
    return plc_twemproxy_membership_counted(yaml, len, pool, json, json_len, why, why_len, NULL);
}

int plc_twemproxy_membership_counted(const char *yaml, size_t len, const char *pool, char **json,
                                     size_t *json_len, char *why, size_t why_len, uint64_t *work)
{
    if (why && why_len)
        why[0] = '\0';
    if (!yaml || !json)
        return PLACER_ENULL;
    tw t;
    memset(&t, 0, sizeof t);
    t.why = why;
    t.why_len = why_len;
    t.want = pool;
    t.work = work;
    t.doc = json_object();
    t.pools = json_object();
    t.listens = json_object();
    int err = PLACER_ENOMEM;
    if (t.doc && t.pools && t.listens && yaml_parser_initialize(&t.parser)) {
        yaml_parser_set_input_string(&t.parser, (const unsigned char *)yaml, len);
        yaml_parser_set_encoding(&t.parser, YAML_UTF8_ENCODING);
        /* nutcracker's defaults, written out (nc_conf.h): fnv1a_64, ketama */
        json_object_set_new(t.doc, "compat", json_string("twemproxy"));
        json_object_set_new(t.doc, "distribution", json_string("ketama"));
        json_object_set_new(t.doc, "key_hash", json_string("fnv1a_64"));
        json_object_set_new(t.doc, "nodes", json_array());
        err = json_object_size(t.doc) == 4 ? read_config(&t) : PLACER_ENOMEM;
        if (t.have)
            yaml_event_delete(&t.ev);
        yaml_parser_delete(&t.parser);
    }
    if (!err)
        err = plc_ctl_dump_membership(t.doc, json, json_len);
    json_decref(t.doc);
    plc_set_free(&t.names);
    json_decref(t.pools);
    json_decref(t.listens);
    return err;
}

int placer_twemproxy_import(const char *yaml, size_t len, const char *pool, uint64_t epoch,
                            placer_snapshot **out, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!out)
        return PLACER_ENULL;
    char *doc = NULL;
    size_t doc_len = 0;
    int err = placer_twemproxy_membership(yaml, len, pool, &doc, &doc_len, why, why_len);
    return plc_ctl_import_doc(err, doc, doc_len, "the pool's membership", 1, epoch, out, why,
                              why_len);
}
