/*
 * membership_compat.c -- the fields of a membership file in a
 * compatibility mode ("compat": NAME, any program of the registry; Kafka's
 * own fields are membership_kafka.c's; docs/COMPAT.md): the program's
 * distribution, key hash, numeric settings, and the fields its ops say it
 * takes (placer_compat_describe: avalanche, server ids, hash tag, slot
 * ranges, key rule, addresses), each with the limits stated there. Like
 * membership.c, everything the builder would refuse (placer_builder_set_
 * compat's rules, id and weight ranges, point names past the program's
 * buffer, a slot without a master) is refused here with its place, so a
 * document that parses builds. No program id is compared here
 * (tests/test_compat_ids.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "membership_ctx.h"
#include "placer_control.h"

/* slot maps (PLACER_COMPAT_FIELD_SLOTS) have Redis Cluster's 16,384 slots */
#define REDIS_SLOTS PLACER_REDIS_SLOTS

/* Every name a program may call a distribution or key hash; each program
 * takes some (placer_compat_has_*), and messages list those. */
static const char *const distributions[] = {"ketama_weighted", "ketama", "modula", "consistent",
                                            "hash", "map-based", "rendezvous", NULL};
/* (haproxy's four between crc16 and crc32a: each program's own listed in
 * its order) */
static const char *const key_hashes[] = {
    "default", "one_at_a_time", "md5",     "crc",      "crc16", "sdbm",   "djb2",
    "wt6",     "crc32",         "source",  "crc32a",   "fnv1_64", "fnv1a_64", "fnv1_32",
    "fnv1a_32", "hsieh",        "murmur",  "jenkins",  "murmur3", NULL};

/* The program's description (its ops'); a program membership.c accepted
 * has one. */
static placer_compat_info info_of(int program)
{
    placer_compat_info i = {.size = sizeof i};
    if (placer_compat_describe(program, &i))
        i = (placer_compat_info){.size = sizeof i, .name = "?", .title = "?"};
    return i;
}

/* The first program that takes a field, by name, for messages ("?"). */
static const char *taker(unsigned field)
{
    placer_compat_info i = {.size = sizeof i};
    for (int p = 1; placer_compat_describe(p, &i) == 0; p++)
        if (i.fields & field)
            return i.name;
    return "?";
}

static const char *program_name(int program)
{
    const char *n = placer_compat_name(program);
    return n ? n : "?";
}

/* `"x" is not a KIND of PROGRAM (its own: "a", "b")`. */
static int not_the_programs(plc_mctx *c, const char *what, const char *kind, int program,
                            const char *const *names, int (*has)(int, const char *))
{
    char list[256] = "";
    size_t at = 0;
    for (size_t i = 0; names[i] && at < sizeof list; i++)
        if (has(program, names[i]))
            at += (size_t)snprintf(list + at, sizeof list - at, "%s\"%s\"", at ? ", " : "",
                                   names[i]);
    if (!*list)
        return plc_m_fail(c, "%s has no %s to choose", program_name(program), kind);
    return plc_m_fail(c, "\"%s\" is not a %s of %s (its own: %s)", what, kind, program_name(program),
                      list);
}

int plc_m_compat_only_top_field(plc_mctx *c, const char *key)
{
    static const char *const only[] = {"distribution", "avalanche", "hash_tag", "slots",
                                       "key_rule", "hash_balance_factor", "partitioner", NULL};
    for (size_t i = 0; only[i]; i++)
        if (!strcmp(key, only[i]))
            return plc_m_fail(c, "applies only with \"compat\" (a compatibility mode)");
    return 0;
}

int plc_m_compat_only_node_field(plc_mctx *c, const char *key)
{
    if (!strcmp(key, "hash_id"))
        return plc_m_fail(c, "applies only with \"compat\": \"haproxy\" (its server id)");
    if (!strcmp(key, "vnodes"))
        return plc_m_fail(c, "applies only with \"compat\": \"%s\" (a node's own vnodes; "
                             "placer's are the top-level \"vnodes\")",
                          taker(PLACER_COMPAT_FIELD_NODE_VNODES));
    return 0;
}

/* A field the program takes only with that bit of its ops (why: what it
 * is in the program taking it). */
static int only_for(plc_mctx *c, int program, unsigned field, const char *why)
{
    placer_compat_info i = info_of(program);
    if (i.fields & field)
        return 0;
    if (field == PLACER_COMPAT_FIELD_HASH_TAG && i.tag) /* a tag of its own */
        return plc_m_fail(c, "does not apply to \"%s\" (only to \"%s\"; %s always hashes the "
                             "%c%s%c)", i.name, taker(field), i.title, i.tag[0], "tag", i.tag[1]);
    return plc_m_fail(c, "does not apply to \"%s\" (only to \"%s\"%s)", i.name, taker(field), why);
}

int plc_m_compat_top(plc_mctx *c, const json_t *root, placer_builder *b, int program)
{
    /* no "avalanche": as haproxy would with the given key_hash and distribution */
    placer_compat_options o = {.size = sizeof o, .avalanche = PLACER_COMPAT_AS_PROGRAM};
    const char *key, *rule = NULL;
    const char *pname[8];
    uint32_t pval[8], npar = 0, pmin, pmax;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        c->depth = 0;
        plc_m_push(c, key, 0);
        /* Kafka's fields (membership_kafka.c): 1 when not one */
        int err = plc_m_kafka_field(c, program, key, v, &o.key_hash);
        if (err <= 0) {
            if (err)
                return err;
            continue;
        }
        err = 0;
        if (!strcmp(key, "epoch") || !strcmp(key, "nodes") || !strcmp(key, "compat")) {
            continue; /* membership.c's */
        } else if (!placer_compat_param_range(program, key, &pmin, &pmax, NULL)) {
            /* the program's own numeric settings, from the registry */
            if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)pmin ||
                json_integer_value(v) > (json_int_t)pmax || npar == 8)
                err = plc_m_fail(c, "expected an integer from %u to %u (%s's \"%s\")", pmin, pmax,
                                 program_name(program), key);
            else {
                pname[npar] = key;
                pval[npar++] = (uint32_t)json_integer_value(v);
            }
        } else if (!strcmp(key, "distribution")) {
            if (!json_is_string(v))
                err = plc_m_fail(c, "expected a string");
            else if (!placer_compat_has_distribution(program, json_string_value(v)))
                err = not_the_programs(c, json_string_value(v), "distribution", program,
                                       distributions, placer_compat_has_distribution);
            o.distribution = json_string_value(v);
        } else if (!strcmp(key, "key_hash")) {
            if (!json_is_string(v))
                err = plc_m_fail(c, "expected a string");
            else if (!placer_compat_has_key_hash(program, json_string_value(v)))
                err = not_the_programs(c, json_string_value(v), "key hash", program, key_hashes,
                                       placer_compat_has_key_hash);
            o.key_hash = json_string_value(v);
        } else if (!strcmp(key, "avalanche")) {
            err = only_for(c, program, PLACER_COMPAT_FIELD_AVALANCHE, ": hash-type ... avalanche");
            if (!err && !json_is_boolean(v))
                err = plc_m_fail(c, "expected true or false");
            o.avalanche = json_is_true(v) ? 1 : 0;
        } else if (!strcmp(key, "hash_tag")) {
            err = only_for(c, program, PLACER_COMPAT_FIELD_HASH_TAG, "");
            if (!err && (!json_is_string(v) || json_string_length(v) != 2 ||
                         memchr(json_string_value(v), '\0', 2)))
                err = plc_m_fail(c, "expected two characters, such as \"{}\" (nutcracker's rule)");
            o.hash_tag = json_string_value(v);
        } else if (!strcmp(key, "key_rule")) {
            err = only_for(c, program, PLACER_COMPAT_FIELD_KEY_RULE, ": its balance line's rule");
            if (!err && (!json_is_string(v) || memchr(json_string_value(v), '\0',
                                                      json_string_length(v))))
                err = plc_m_fail(c, "expected a string such as \"uri depth 2\" or "
                                    "\"hdr(Host) use_domain_only\"");
            rule = json_string_value(v);
        } else if (!strcmp(key, "slots")) {
            err = only_for(c, program, PLACER_COMPAT_FIELD_SLOTS, "");
        } else if (!strcmp(key, "hash_balance_factor")) {
            /* recorded, not built: at zero load haproxy's bounded loads place as
             * its ring does; loads are placer_lookup_bounded's, per lookup */
            err = only_for(c, program, PLACER_COMPAT_FIELD_BALANCE_FACTOR, ": hash-balance-factor");
            if (!err && (!json_is_integer(v) || json_integer_value(v) < 0 ||
                         json_integer_value(v) > 2147483647 ||
                         (json_integer_value(v) && json_integer_value(v) < 100)))
                err = plc_m_fail(c, "expected 0 or an integer from 100 (haproxy's rule)");
        } else if (!strcmp(key, "strategy")) {
            err = plc_m_fail(c, "does not apply with \"compat\": %s's own ring or table places the "
                                "keys (omit it)", program_name(program));
        } else if (!strcmp(key, "seed") || !strcmp(key, "vnodes") || !strcmp(key, "partitions") ||
                   !strcmp(key, "replicas") || !strcmp(key, "tokens")) {
            err = plc_m_fail(c, "does not apply with \"compat\" (%s builds its own %s)",
                             program_name(program),
                             info_of(program).fields & PLACER_COMPAT_FIELD_SLOTS ? "slot map"
                                                                                 : "placement");
        } else {
            char own[128] = "";
            const char *pn;
            for (uint32_t i = 0, at = 0; (pn = placer_compat_param_name(program, i)) != NULL &&
                                         at < sizeof own; i++)
                at += (uint32_t)snprintf(own + at, sizeof own - at, ", %s", pn);
            err = plc_m_fail(c, "unknown field (known with \"compat\": epoch, compat, "
                                "distribution, key_hash, avalanche, hash_tag, key_rule, slots, "
                                "hash_balance_factor, partitioner, partitions%s, nodes)", own);
        }
        if (err)
            return err;
    }
    c->depth = 0;
    plc_m_push(c, "compat", 0);
    int err = placer_builder_set_compat(b, program, &o);
    for (uint32_t i = 0; !err && i < npar; i++) {
        c->depth = 0;
        plc_m_push(c, pname[i], 0);
        err = placer_builder_set_compat_param(b, pname[i], pval[i]);
    }
    if (!err && rule) {
        c->depth = 0;
        plc_m_push(c, "key_rule", 0);
        err = placer_builder_set_key_rule(b, rule);
    }
    return err ? plc_m_builder_error(c, err) : 0;
}

int plc_m_compat_weight(plc_mctx *c, const json_t *weight, int program, double *w)
{
    *w = 1.0;
    if (!weight)
        return 0;
    int err = plc_m_kafka_weight(c, program);
    if (err <= 0)
        return err;
    placer_compat_info i = info_of(program);
    if (!i.max_weight)
        return plc_m_fail(c, "%s has no weights%s: remove it", i.title,
                          i.fields & PLACER_COMPAT_FIELD_SLOTS ? " (slots place the keys)" : "");
    uint32_t max = i.max_weight;
    if (!json_is_integer(weight) || json_integer_value(weight) < 1 ||
        json_integer_value(weight) > (json_int_t)max)
        return plc_m_fail(c, "expected an integer from 1 to %u (%s's weights are integers)", max,
                          program_name(program));
    *w = (double)json_integer_value(weight);
    return 0;
}

/* libmemcached's "host:port": a host, a ':' and a port of digits. */
static int host_port(const char *a)
{
    const char *colon = strrchr(a, ':');
    if (!colon || colon == a || !colon[1] || strlen(colon + 1) > 5)
        return 0;
    for (const char *p = colon + 1; *p; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return atoi(colon + 1) <= 65535;
}

int plc_m_compat_node(plc_mctx *c, placer_builder *b, const json_t *node, uint32_t idx,
                      int program)
{
    size_t base = c->depth;
    const json_t *tokens = json_object_get(node, "tokens"), *hid = json_object_get(node, "hash_id");
    const json_t *addr = json_object_get(node, "address"), *state = json_object_get(node, "state");
    if (state && (!strcmp(json_string_value(state), "joining") ||
                  !strcmp(json_string_value(state), "draining"))) {
        plc_m_push(c, "state", 0);
        return plc_m_fail(c, "\"%s\" does not apply with \"compat\": %s has no such state (a move "
                             "is two snapshots; placer diff compares them)",
                          json_string_value(state), program_name(program));
    }
    if (tokens) {
        plc_m_push(c, "tokens", 0);
        return plc_m_fail(c, "does not apply with \"compat\" (%s makes its own points)",
                          program_name(program));
    }
    placer_compat_info i = info_of(program);
    if (hid) {
        plc_m_push(c, "hash_id", 0);
        int err = only_for(c, program, PLACER_COMPAT_FIELD_HASH_ID, ": its server \"id\"");
        if (err)
            return err;
        if (!json_is_integer(hid) || json_integer_value(hid) < 1 ||
            json_integer_value(hid) > (json_int_t)i.max_hash_id)
            return plc_m_fail(c, "expected an integer from 1 to %u (%s's server ids)",
                              i.max_hash_id, i.name);
        err = placer_builder_set_hash_id(b, idx, (uint32_t)json_integer_value(hid));
        if (err)
            return plc_m_builder_error(c, err);
        c->depth = base;
    }
    const json_t *own = json_object_get(node, "vnodes");
    if (own) {
        plc_m_push(c, "vnodes", 0);
        int err = only_for(c, program, PLACER_COMPAT_FIELD_NODE_VNODES, ": a node's own vnodes");
        if (err)
            return err;
        uint32_t vmax = 0;
        placer_compat_param_range(program, "vnodes", NULL, &vmax, NULL);
        if (!json_is_integer(own) || json_integer_value(own) < 1 ||
            json_integer_value(own) > (json_int_t)vmax)
            return plc_m_fail(c, "expected an integer from 1 to %u (%s's vnodes)", vmax, i.name);
        err = placer_builder_set_node_vnodes(b, idx, (uint32_t)json_integer_value(own));
        if (err)
            return plc_m_builder_error(c, err);
        c->depth = base;
    }
    if (i.fields & PLACER_COMPAT_FIELD_ADDRESS) {
        plc_m_push(c, "address", 0);
        if (!addr)
            return plc_m_fail(c, "missing: %s hashes the server's address (\"host:port\")",
                              i.name);
        if (!*json_string_value(addr))
            return plc_m_fail(c, "empty: %s hashes the server's address", i.name);
        if ((i.fields & PLACER_COMPAT_FIELD_HOST_PORT) && !host_port(json_string_value(addr)))
            return plc_m_fail(c, "expected \"host:port\" (a port of digits up to 65535): "
                                 "%s hashes host and port", i.name);
        c->depth = base;
    }
    return 0;
}

/* ---- what needs every node ---- */

/* haproxy: explicit ids unique, and the automatic ones (cfgparse.c: the
 * first free id from a counter that advances past every server) in range. */
static int haproxy_ids(plc_mctx *c, const json_t *nodes, uint32_t max_id)
{
    size_t n = json_array_size(nodes);
    unsigned char *taken = placer_mem_calloc(max_id / 8 + 1, 1);
    if (!taken)
        return PLACER_ENOMEM;
    int err = 0;
    for (size_t i = 0; i < n && !err; i++) {
        const json_t *hid = json_object_get(json_array_get(nodes, i), "hash_id");
        if (!hid)
            continue;
        uint32_t id = (uint32_t)json_integer_value(hid);
        if (taken[id / 8] & (1u << (id % 8))) {
            c->depth = 0;
            plc_m_push(c, "nodes", 0);
            plc_m_push(c, NULL, i);
            plc_m_push(c, "hash_id", 0);
            err = plc_m_fail(c, "id %u is another server's (haproxy refuses it too)", id);
        }
        taken[id / 8] |= (unsigned char)(1u << (id % 8));
    }
    uint32_t next = 1;
    for (size_t i = 0; i < n && !err; i++, next++) {
        if (json_object_get(json_array_get(nodes, i), "hash_id"))
            continue;
        while (next <= max_id && (taken[next / 8] & (1u << (next % 8))))
            next++;
        if (next > max_id) {
            c->depth = 0;
            plc_m_push(c, "nodes", 0);
            plc_m_push(c, NULL, i);
            err = plc_m_fail(c, "no server id left for it (haproxy's ids end at %u)", max_id);
        }
    }
    placer_mem_free(taken);
    return err;
}

/* twemproxy ketama: point names "NAME-j" are formatted into 86 bytes; each
 * server's largest j follows from its share, computed as nc_ketama.c does. */
static int twemproxy_names(plc_mctx *c, const json_t *root, const json_t *nodes, uint32_t hostlen)
{
    const json_t *d = json_object_get(root, "distribution");
    if (d && strcmp(json_string_value(d), "ketama") != 0)
        return 0; /* modula hashes no names */
    size_t n = json_array_size(nodes);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *w = json_object_get(json_array_get(nodes, i), "weight");
        total += w ? (uint64_t)json_integer_value(w) : 1;
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *node = json_array_get(nodes, i), *w = json_object_get(node, "weight");
        /* one float operation per assignment: engine/compat's ketama_share
         * says why (s390x evaluates float expressions in double) */
        float pct = (float)(w ? (uint64_t)json_integer_value(w) : 1) / (float)total;
        float x = pct * 160;
        x = x / 4;
        x = x * (float)n;
        x = (float)((double)x + 0.0000000001);
        uint32_t pps = (uint32_t)(floorf(x) * 4);
        if (pps < 4)
            continue;
        char tail[16];
        int tl = snprintf(tail, sizeof tail, "-%u", pps / 4 - 1);
        size_t len = json_string_length(json_object_get(node, "id")) + (size_t)tl;
        if (len >= hostlen) {
            c->depth = 0;
            plc_m_push(c, "nodes", 0);
            plc_m_push(c, NULL, i);
            plc_m_push(c, "id", 0);
            return plc_m_fail(c, "too long for twemproxy's ketama: its point names (\"ID%s\", %zu "
                                 "bytes) must fit nutcracker's %u-byte buffer",
                              tail, len, hostlen);
        }
    }
    return 0;
}

/* Redis: "slots": [[first, last, "master", "replica"...], ...] into a
 * 16,384-row partition map; every slot exactly once. */
static int redis_slot_row(plc_mctx *c, const json_t *row, const json_t *index, uint32_t *first,
                          uint32_t *last, uint32_t *ids, size_t *nids)
{
    if (!json_is_array(row) || json_array_size(row) < 3 ||
        json_array_size(row) > 2 + PLACER_MAX_REPLICAS)
        return plc_m_fail(c, "expected [first, last, \"master id\"] and at most %u replica ids",
                          PLACER_MAX_REPLICAS - 1);
    const json_t *f = json_array_get(row, 0), *l = json_array_get(row, 1);
    plc_m_push(c, NULL, 0);
    if (!json_is_integer(f) || json_integer_value(f) < 0 || json_integer_value(f) >= REDIS_SLOTS)
        return plc_m_fail(c, "expected a slot from 0 to %u", REDIS_SLOTS - 1);
    *first = (uint32_t)json_integer_value(f);
    c->depth--;
    plc_m_push(c, NULL, 1);
    if (!json_is_integer(l) || json_integer_value(l) < *first || json_integer_value(l) >= REDIS_SLOTS)
        return plc_m_fail(c, "expected a slot from %u (the first) to %u", *first, REDIS_SLOTS - 1);
    *last = (uint32_t)json_integer_value(l);
    c->depth--;
    *nids = json_array_size(row) - 2;
    for (size_t k = 0; k < *nids; k++) {
        const json_t *id = json_array_get(row, k + 2);
        plc_m_push(c, NULL, k + 2);
        const json_t *at = json_is_string(id) ? json_object_get(index, json_string_value(id)) : NULL;
        if (!json_is_string(id))
            return plc_m_fail(c, "expected a node id (a string)");
        if (!at || strlen(json_string_value(id)) != json_string_length(id))
            return plc_m_fail(c, "no node has the id \"%s\"", json_string_value(id));
        ids[k] = (uint32_t)json_integer_value(at);
        for (size_t j = 0; j < k; j++)
            if (ids[j] == ids[k])
                return plc_m_fail(c, "\"%s\" is already in this range (master and replicas are "
                                     "distinct nodes)", json_string_value(id));
        c->depth--;
    }
    return 0;
}

static int redis_slots(plc_mctx *c, placer_builder *b, const json_t *slots, const json_t *nodes)
{
    c->depth = 0;
    plc_m_push(c, "slots", 0);
    if (!json_is_array(slots) || !json_array_size(slots))
        return plc_m_fail(c, "expected a non-empty array of [first, last, \"node id\"] ranges");
    size_t copies = 1;
    for (size_t i = 0; i < json_array_size(slots); i++) {
        size_t k = json_array_size(json_array_get(slots, i));
        copies = k > copies + 2 && k <= 2 + PLACER_MAX_REPLICAS ? k - 2 : copies;
    }
    json_t *index = json_object();
    uint32_t *map = placer_mem_alloc(sizeof *map * REDIS_SLOTS * copies);
    uint32_t *range = placer_mem_calloc(REDIS_SLOTS, sizeof *range); /* range + 1 per slot */
    int err = index && map && range ? 0 : PLACER_ENOMEM;
    for (size_t i = 0; !err && i < json_array_size(nodes); i++)
        if (json_object_set_new(index, json_string_value(json_object_get(json_array_get(nodes, i), "id")),
                                json_integer((json_int_t)i)))
            err = PLACER_ENOMEM;
    for (size_t i = 0; !err && i < (size_t)REDIS_SLOTS * copies; i++)
        map[i] = PLACER_NO_NODE;
    for (size_t i = 0; !err && i < json_array_size(slots); i++) {
        uint32_t first = 0, last = 0, ids[PLACER_MAX_REPLICAS];
        size_t nids = 0;
        c->depth = 1;
        plc_m_push(c, NULL, i);
        err = redis_slot_row(c, json_array_get(slots, i), index, &first, &last, ids, &nids);
        for (uint32_t s = first; !err && s <= last; s++) {
            if (range[s]) {
                const json_t *other = json_array_get(slots, range[s] - 1);
                err = plc_m_fail(c, "slot %u is already in range %u ([%lld, %lld, ...])", s,
                                 range[s] - 1, (long long)json_integer_value(json_array_get(other, 0)),
                                 (long long)json_integer_value(json_array_get(other, 1)));
                break;
            }
            range[s] = (uint32_t)i + 1;
            for (size_t k = 0; k < nids; k++)
                map[(size_t)s * copies + k] = ids[k];
        }
    }
    for (uint32_t s = 0; !err && s < REDIS_SLOTS; s++) {
        if (range[s])
            continue;
        uint32_t e = s;
        while (e + 1 < REDIS_SLOTS && !range[e + 1])
            e++;
        c->depth = 0;
        plc_m_push(c, "slots", 0);
        err = s == e ? plc_m_fail(c, "slot %u has no master (every slot needs one)", s)
                     : plc_m_fail(c, "slots %u to %u have no master (every slot needs one)", s, e);
    }
    if (!err) {
        c->depth = 0;
        plc_m_push(c, "slots", 0);
        err = placer_builder_set_partition_map(b, REDIS_SLOTS, (uint32_t)copies, map, NULL);
        if (err)
            err = plc_m_builder_error(c, err);
    }
    json_decref(index);
    placer_mem_free(map);
    placer_mem_free(range);
    return err;
}

int plc_m_compat_nodes(plc_mctx *c, placer_builder *b, const json_t *root, int program)
{
    const json_t *nodes = json_object_get(root, "nodes");
    placer_compat_info i = info_of(program);
    if (i.fields & PLACER_COMPAT_FIELD_HASH_ID)
        return haproxy_ids(c, nodes, i.max_hash_id);
    if (i.max_name_len)
        return twemproxy_names(c, root, nodes, i.max_name_len);
    if (i.fields & PLACER_COMPAT_FIELD_SLOTS) {
        const json_t *slots = json_object_get(root, "slots");
        return slots ? redis_slots(c, b, slots, nodes) : 0;
    }
    return plc_m_kafka_partitions(c, b, root, nodes, program);
}
