/*
 * membership.c -- a membership file (JSON, parsed with jansson) into a
 * builder: strategy and its parameters, seed, epoch, and the nodes with
 * id, zone, datacenter, weight, state, address and explicit tokens; or a
 * compatibility mode ("compat", membership_compat.c reads its fields). Unknown fields are
 * errors (a misspelt "wieght" must not silently mean 1.0), and so are
 * fields the chosen strategy does not use ("partitions" on a ring, "tokens"
 * on a Maglev node). What the builder would refuse later (partitions past
 * 65,536, a Maglev size that is not prime, nobody left to own keys, two
 * jump nodes on one bucket) is refused here, where the value's place is
 * known. Every error names the file, the line and column, and the field at
 * fault. Numbers in strings are strict (placer_parse_u64).
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "compat_import.h"
#include "membership_ctx.h"
#include "placer_control.h"

int plc_m_fail(plc_mctx *c, const char *fmt, ...)
{
    if (!c->why || !c->why_len)
        return PLACER_EFORMAT;
    int line, col;
    plc_json_locate(c->text, c->len, c->path, c->depth, &line, &col);
    char field[128] = "";
    size_t at = 0;
    for (size_t d = 0; d < c->depth && at < sizeof field; d++) {
        if (c->path[d].name)
            at += (size_t)snprintf(field + at, sizeof field - at, "%s%s", d ? "." : "",
                                   c->path[d].name);
        else
            at += (size_t)snprintf(field + at, sizeof field - at, "[%zu]", c->path[d].index);
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* field names and values come from the file: escaped (placer_escape) */
    char raw[512];
    snprintf(raw, sizeof raw, "%s:%d:%d: %s%s%s", c->name, line, col, field, *field ? ": " : "",
             msg);
    placer_escape(c->why, c->why_len, raw, strlen(raw));
    return PLACER_EFORMAT;
}

void plc_m_push(plc_mctx *c, const char *name, size_t index)
{
    c->path[c->depth++] = (plc_json_step){name, index};
}

/* A 64-bit unsigned value: a JSON integer >= 0, or a string in decimal or
 * 0x-hex (for values past 2^63). */
static int u64_value(plc_mctx *c, const json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *text = json_string_value(v);
        size_t len = json_string_length(v);
        int err = placer_parse_u64(text, len, 0, UINT64_MAX, out);
        if (!err)
            return 0;
        return plc_m_fail(c, "\"%s\": %s", text, placer_parse_u64_reason(text, len, err));
    }
    return plc_m_fail(c, "expected an integer from 0 to 2^64-1 (a string such as \"0xffffffffffffffff\" above 2^63)");
}

static int u32_value(plc_mctx *c, const json_t *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return plc_m_fail(c, "expected an integer from %u to %u", lo, hi);
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

static int pick(plc_mctx *c, const json_t *v, const char *const *names, const int *values, int *out)
{
    for (size_t i = 0; json_is_string(v) && names[i]; i++)
        if (strcmp(json_string_value(v), names[i]) == 0) {
            *out = values[i];
            return 0;
        }
    char list[256] = "";
    for (size_t i = 0; names[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "", names[i]);
    return plc_m_fail(c, "expected one of %s", list);
}

int plc_m_builder_error(plc_mctx *c, int err)
{
    if (err == PLACER_ENOMEM)
        return err;
    const char *said =
        (err == PLACER_EINVAL || err == PLACER_ETOOMANY) && c->b ? placer_builder_error(c->b) : "";
    return plc_m_fail(c, "%s%s%s", placer_strerror(err), *said ? ": " : "", said);
}

/* Which strategies use a field comes from the registry (their options,
 * placer_strategy_describe): "partitions" on a ring, say, would be
 * silently ignored by the builder; here it is an error. */
static placer_strategy_traits traits_of(int strategy)
{
    placer_strategy_traits t = {.size = sizeof t};
    placer_strategy_describe(strategy, &t);
    return t;
}

/* Can a membership file choose it ("strategy")? Not the implied ones. */
static int choosable(const placer_strategy_traits *t)
{
    return !(t->traits & PLACER_TRAIT_IMPLIED);
}

/* The choosable strategies that take `option` (a PLACER_OPTION_* bit) or,
 * with option 0, accept key hash `hash`, as "\"ring\" and \"jump\"". */
static void strategies_with(unsigned option, int hash, char *out, size_t len)
{
    size_t n = 0, k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int id = placer_strategy_next(0); id; id = placer_strategy_next(id)) {
            placer_strategy_traits t = traits_of(id);
            if (!choosable(&t) || !(option ? t.options & option : t.key_hashes >> hash & 1))
                continue;
            if (!pass) {
                n++;
                continue;
            }
            size_t at = strlen(out);
            snprintf(out + at, len - at, "%s\"%s\"", !k ? "" : k + 1 < n ? ", " : " and ", t.name);
            k++;
        }
}

static int not_for(plc_mctx *c, int strategy, const char *uses)
{
    return plc_m_fail(c, "does not apply to strategy \"%s\" (only to %s)",
                      placer_strategy_name(strategy), uses);
}

/* A field that applies to the strategies taking `option` only. */
static int option_for(plc_mctx *c, int strategy, unsigned option)
{
    if (traits_of(strategy).options & option)
        return 0;
    char uses[256] = "";
    strategies_with(option, 0, uses, sizeof uses);
    return not_for(c, strategy, uses);
}

/* "strategy": the name of a choosable strategy. */
static int pick_strategy(plc_mctx *c, const json_t *v, int *out)
{
    int id = json_is_string(v) ? placer_strategy_from_name(json_string_value(v)) : PLACER_EINVAL;
    placer_strategy_traits t = traits_of(id);
    if (id > 0 && choosable(&t)) {
        *out = id;
        return 0;
    }
    char list[256] = "";
    for (id = placer_strategy_next(0); id; id = placer_strategy_next(id)) {
        t = traits_of(id);
        if (choosable(&t))
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", *list ? ", " : "",
                     t.name);
    }
    return plc_m_fail(c, "expected one of %s", list);
}

/* A node's "id_base64" and "address_base64" (docs/JSON.md's convention,
 * written by the importers for bytes that are not UTF-8) into "id" and
 * "address" holding those bytes, so every later check sees them. */
static int decode_base64_fields(plc_mctx *c, json_t *node)
{
    static const char *const fields[] = {"id", "address", NULL};
    static const char *const encoded[] = {"id_base64", "address_base64"};
    if (!json_is_object(node))
        return 0;
    for (size_t i = 0; fields[i]; i++) {
        const char *name = encoded[i];
        const json_t *v = json_object_get(node, name);
        if (!v)
            continue;
        size_t base = c->depth;
        plc_m_push(c, fields[i], 0);
        if (json_object_get(node, fields[i]))
            return plc_m_fail(c, "given twice: as \"%s\" and \"%s\" (one of them)", fields[i],
                              name);
        c->depth = base;
        plc_m_push(c, name, 0);
        unsigned char *raw = NULL;
        size_t n = 0;
        if (!json_is_string(v) || plc_b64_decode(json_string_value(v), &raw, &n))
            return plc_m_fail(c, "expected a base64 string (RFC 4648, padded)");
        json_t *text = json_stringn_nocheck((const char *)raw, n);
        placer_mem_free(raw);
        if (!text || json_object_set_new(node, fields[i], text) || json_object_del(node, name))
            return PLACER_ENOMEM;
        c->depth = base;
    }
    return 0;
}

static int read_node(plc_mctx *c, placer_builder *b, const json_t *node, int strategy, int compat)
{
    static const char *const states[] = {"active", "joining", "draining", "down", NULL};
    static const int state_values[] = {PLACER_NODE_ACTIVE, PLACER_NODE_JOINING,
                                       PLACER_NODE_DRAINING, PLACER_NODE_DOWN};
    if (!json_is_object(node))
        return plc_m_fail(c, "expected an object with at least \"id\"");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)node, key, v) {
        if (strcmp(key, "id") && strcmp(key, "zone") && strcmp(key, "weight") &&
            strcmp(key, "state") && strcmp(key, "address") && strcmp(key, "tokens") &&
            strcmp(key, "hash_id") && strcmp(key, "datacenter") && strcmp(key, "vnodes")) {
            plc_m_push(c, key, 0);
            return plc_m_fail(c, "unknown field (known: id, zone, datacenter, weight, state, "
                                 "address, tokens, hash_id, vnodes)");
        }
        if (compat && !strcmp(key, "datacenter")) {
            plc_m_push(c, key, 0);
            return plc_m_fail(c, "a compatibility mode's nodes have no datacenter");
        }
        if (!compat) {
            plc_m_push(c, key, 0);
            int err = plc_m_compat_only_node_field(c, key);
            if (err)
                return err;
            c->depth--;
        }
    }
    const json_t *id = json_object_get(node, "id"), *zone = json_object_get(node, "zone");
    const json_t *weight = json_object_get(node, "weight"), *state = json_object_get(node, "state");
    const json_t *addr = json_object_get(node, "address"), *tokens = json_object_get(node, "tokens");
    size_t base = c->depth;
    plc_m_push(c, "id", 0);
    if (!json_is_string(id))
        return plc_m_fail(c, id ? "expected a string" : "missing");
    c->depth = base;
    plc_m_push(c, "zone", 0);
    if (zone && !json_is_string(zone))
        return plc_m_fail(c, "expected a string");
    c->depth = base;
    plc_m_push(c, "weight", 0);
    double w = 1.0;
    if (compat) {
        int err = plc_m_compat_weight(c, weight, compat, &w);
        if (err)
            return err;
    } else if (weight && !json_is_number(weight)) {
        return plc_m_fail(c, "expected a JSON number > 0 (a weight is never a string)");
    } else if (weight) {
        w = json_number_value(weight);
    }
    c->depth = base;
    plc_m_push(c, "id", 0);
    int idx = placer_builder_add_node(b, json_string_value(id), zone ? json_string_value(zone) : NULL, w);
    if (idx == PLACER_EWEIGHT || (idx == PLACER_EIDLONG && zone &&
                                  strlen(json_string_value(id)) <= PLACER_MAX_ID_LEN)) {
        c->depth = base;
        plc_m_push(c, idx == PLACER_EWEIGHT ? "weight" : "zone", 0);
    }
    if (idx < 0)
        return plc_m_builder_error(c, idx);
    if (strlen(json_string_value(id)) != json_string_length(id))
        return plc_m_fail(c, "contains a NUL character");
    c->depth = base;
    if (state) {
        plc_m_push(c, "state", 0);
        int s;
        if (pick(c, state, states, state_values, &s))
            return PLACER_EFORMAT;
        placer_builder_set_state(b, (uint32_t)idx, s);
        c->depth = base;
    }
    if (addr) {
        plc_m_push(c, "address", 0);
        if (!json_is_string(addr))
            return plc_m_fail(c, "expected a string");
        int err = placer_builder_set_address(b, (uint32_t)idx, json_string_value(addr));
        if (err)
            return plc_m_builder_error(c, err);
        c->depth = base;
    }
    const json_t *dc = json_object_get(node, "datacenter");
    if (dc) {
        plc_m_push(c, "datacenter", 0);
        if (!json_is_string(dc) || strlen(json_string_value(dc)) != json_string_length(dc))
            return plc_m_fail(c, "expected a string (no NUL character)");
        int err = placer_builder_set_datacenter(b, (uint32_t)idx, json_string_value(dc));
        if (err)
            return plc_m_builder_error(c, err);
        c->depth = base;
    }
    if (compat)
        return plc_m_compat_node(c, b, node, (uint32_t)idx, compat);
    if (tokens) {
        plc_m_push(c, "tokens", 0);
        if (option_for(c, strategy, PLACER_OPTION_TOKENS))
            return PLACER_EFORMAT;
        if (!json_is_array(tokens) || !json_array_size(tokens))
            return plc_m_fail(c, "expected a non-empty array of tokens");
        for (size_t i = 0; i < json_array_size(tokens); i++) {
            plc_m_push(c, NULL, i);
            uint64_t t;
            if (u64_value(c, json_array_get(tokens, i), &t))
                return PLACER_EFORMAT;
            int err = placer_builder_add_token(b, (uint32_t)idx, t);
            if (err)
                return plc_m_builder_error(c, err);
            c->depth--;
        }
        c->depth = base;
    }
    return 0;
}

/* Nobody left to own keys: every node joining (nothing owns keys now), or
 * nodes in transition and every one draining (nothing would own them
 * after). The builder's PLACER_ENONODES, found here with its place. */
static int check_owners(plc_mctx *c, const json_t *nodes)
{
    static const char *const states[] = {"active", "joining", "draining", "down"};
    size_t now = 0, after = 0, moving = 0, n = json_array_size(nodes);
    for (size_t i = 0; i < n; i++) {
        const json_t *st = json_object_get(json_array_get(nodes, i), "state");
        const char *name = st ? json_string_value(st) : states[0];
        now += strcmp(name, "joining") != 0;
        after += strcmp(name, "draining") != 0;
        moving += !strcmp(name, "joining") || !strcmp(name, "draining");
    }
    c->depth = 0;
    plc_m_push(c, "nodes", 0);
    if (!now)
        return plc_m_fail(c, "every node is joining: no node would own keys now");
    if (moving && !after)
        return plc_m_fail(c, "every node is draining: no node would own keys after the transition");
    return 0;
}

/* Jump: two nodes (in one placement) may not claim the same bucket. */
static int check_buckets(plc_mctx *c, const json_t *nodes)
{
    size_t n = json_array_size(nodes);
    for (int target = 0; target < 2; target++)
        for (size_t i = 0; i < n; i++) {
            const json_t *ni = json_array_get(nodes, i), *ti = json_object_get(ni, "tokens");
            const json_t *si = json_object_get(ni, "state");
            if (!ti || (si && !strcmp(json_string_value(si), target ? "draining" : "joining")))
                continue;
            for (size_t k = 0; k < json_array_size(ti); k++) {
                uint64_t a = 0, bkt = 0;
                c->depth = 0;
                plc_m_push(c, "nodes", 0);
                plc_m_push(c, NULL, i);
                plc_m_push(c, "tokens", 0);
                plc_m_push(c, NULL, k);
                u64_value(c, json_array_get(ti, k), &a); /* read before: cannot fail */
                for (size_t j = 0; j <= i; j++) {
                    const json_t *nj = json_array_get(nodes, j), *tj = json_object_get(nj, "tokens");
                    const json_t *sj = json_object_get(nj, "state");
                    if (!tj || (sj && !strcmp(json_string_value(sj), target ? "draining" : "joining")))
                        continue;
                    size_t upto = j == i ? k : json_array_size(tj);
                    for (size_t m = 0; m < upto; m++) {
                        size_t keep = c->depth;
                        u64_value(c, json_array_get(tj, m), &bkt);
                        c->depth = keep;
                        if (bkt == a)
                            return plc_m_fail(c, "bucket %llu is already node %zu's", (unsigned long long)a, j);
                    }
                }
            }
        }
    return 0;
}

static int read_top(plc_mctx *c, const json_t *root, placer_builder *b, uint64_t *epoch, int *has_epoch)
{
    /* "placer" is the current placer_hash64 (placer-v2); "siphash13" needs
     * the secret from elsewhere (placer build --secret-file): a membership
     * file never holds it. */
    static const char *const hashes[] = {"placer", "placer-v2", "placer-v1", "siphash13",
                                         "couchbase", "cassandra-murmur3", NULL};
    static const int hash_values[] = {PLACER_HASH_PLACER_V2, PLACER_HASH_PLACER_V2,
                                      PLACER_HASH_PLACER_V1, PLACER_HASH_SIPHASH13,
                                      PLACER_HASH_COUCHBASE, PLACER_HASH_CASSANDRA_MURMUR3};
    static const char *const allocations[] = {"random", "balanced", NULL};
    static const int allocation_values[] = {PLACER_TOKENS_RANDOM, PLACER_TOKENS_BALANCED};
    if (!json_is_object(root))
        return plc_m_fail(c, "expected an object with \"nodes\"");
    /* a compatibility mode first: the program's own ring or table replaces
     * the strategy and its parameters (membership_compat.c reads them) */
    int compat = PLACER_COMPAT_NONE;
    const json_t *cv = json_object_get(root, "compat");
    if (cv) {
        c->depth = 0;
        plc_m_push(c, "compat", 0);
        compat = json_is_string(cv) ? placer_compat_from_name(json_string_value(cv)) : PLACER_EINVAL;
        if (compat <= PLACER_COMPAT_NONE) {
            char list[256] = "";
            size_t at = 0; /* the registry's programs, in id order */
            for (int p = 1; placer_compat_name(p) && at < sizeof list; p++)
                at += (size_t)snprintf(list + at, sizeof list - at, "%s\"%s\"", at ? ", " : "",
                                       placer_compat_name(p));
            return plc_m_fail(c, "expected one of %s", list);
        }
        int err = plc_m_compat_top(c, root, b, compat);
        if (err)
            return err;
    }
    /* the strategy first: it decides which other fields apply */
    int strategy = PLACER_RING; /* the builder's default (placer_builder_set_strategy) */
    const json_t *sv = compat ? NULL : json_object_get(root, "strategy");
    if (sv) {
        c->depth = 0;
        plc_m_push(c, "strategy", 0);
        if (pick_strategy(c, sv, &strategy))
            return PLACER_EFORMAT;
        placer_builder_set_strategy(b, strategy);
    }
    const placer_strategy_traits st = traits_of(strategy);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)root, key, v) {
        c->depth = 0;
        plc_m_push(c, key, 0);
        int err = 0, iv = 0;
        uint32_t u = 0;
        uint64_t x = 0;
        if (!strcmp(key, "epoch")) {
            err = u64_value(c, v, epoch);
            *has_epoch = 1;
        } else if (compat) {
            /* checked by plc_m_compat_top */
        } else if (!strcmp(key, "seed")) {
            err = u64_value(c, v, &x);
            if (!err)
                placer_builder_set_seed(b, x);
        } else if (!strcmp(key, "strategy")) {
            /* read above */
        } else if (!strcmp(key, "key_hash")) {
            err = pick(c, v, hashes, hash_values, &iv);
            if (!err && !(st.key_hashes >> iv & 1)) {
                char uses[160] = "";
                strategies_with(0, iv, uses, sizeof uses);
                snprintf(uses + strlen(uses), sizeof uses - strlen(uses), " (\"%s\" hashing)",
                         json_string_value(v));
                err = not_for(c, strategy, uses);
            }
            if (!err)
                placer_builder_set_key_hash(b, iv);
        } else if (!strcmp(key, "tokens")) {
            err = option_for(c, strategy, PLACER_OPTION_ALLOCATION);
            if (!err)
                err = pick(c, v, allocations, allocation_values, &iv);
            if (!err)
                placer_builder_set_token_allocation(b, iv);
        } else if (!strcmp(key, "vnodes")) {
            err = option_for(c, strategy, PLACER_OPTION_VNODES);
            if (!err)
                err = u32_value(c, v, 1, PLACER_MAX_TOKENS, &u);
            if (!err)
                placer_builder_set_vnodes(b, u);
        } else if (!strcmp(key, "replicas")) {
            err = option_for(c, strategy, PLACER_OPTION_REPLICAS);
            if (!err)
                err = u32_value(c, v, 0, PLACER_MAX_REPLICAS, &u);
            if (!err)
                placer_builder_set_replicas(b, u);
        } else if (!strcmp(key, "replication")) {
            /* the rule of the ring's precomputed sets; "replicas" gives RF */
            static const char *const rules[] = {"placer", "simple", "network_topology", NULL};
            static const int rule_values[] = {PLACER_REPLICATION_PLACER, PLACER_REPLICATION_SIMPLE,
                                              PLACER_REPLICATION_NETWORK_TOPOLOGY};
            const json_t *rv = json_object_get(root, "replicas");
            /* the ring's token walk: the strategies with token allocation (the ring) */
            err = option_for(c, strategy, PLACER_OPTION_ALLOCATION);
            if (!err)
                err = pick(c, v, rules, rule_values, &iv);
            /* NetworkTopologyStrategy may give its factors per datacenter alone */
            int per_dc = iv == PLACER_REPLICATION_NETWORK_TOPOLOGY &&
                         json_object_get(root, "datacenter_replicas") && !rv;
            if (!err && iv && !per_dc && (!json_is_integer(rv) || json_integer_value(rv) < 1))
                err = plc_m_fail(c, "Cassandra's replication needs \"replicas\" (its "
                                    "replication factor, 1 to %u)%s", PLACER_MAX_REPLICAS,
                                 iv == PLACER_REPLICATION_NETWORK_TOPOLOGY
                                     ? " or \"datacenter_replicas\"" : "");
            if (!err && iv && !per_dc) {
                json_int_t rf = json_integer_value(rv);
                err = placer_builder_set_replication(b, iv, rf > PLACER_MAX_REPLICAS ? 0 : (uint32_t)rf);
                if (err)
                    err = plc_m_fail(c, "%s", placer_builder_error(b));
            }
        } else if (!strcmp(key, "datacenter_replicas")) {
            /* NetworkTopologyStrategy's factor of each datacenter */
            const json_t *rule = json_object_get(root, "replication");
            if (!json_is_string(rule) || strcmp(json_string_value(rule), "network_topology"))
                err = plc_m_fail(c, "only with \"replication\": \"network_topology\"");
            else if (!json_is_object(v) || !json_object_size(v))
                err = plc_m_fail(c, "expected an object of datacenter names and factors "
                                    "({\"dc1\": 3, \"dc2\": 2})");
            const char *dc;
            json_t *f;
            json_object_foreach(v, dc, f) {
                if (err)
                    break;
                plc_m_push(c, dc, 0);
                err = u32_value(c, f, 0, PLACER_MAX_REPLICAS, &u);
                int rc = err ? 0 : placer_builder_set_datacenter_replication(b, dc, u);
                if (rc == PLACER_EIDLONG)
                    err = plc_m_fail(c, "a datacenter name of at most %u bytes", PLACER_MAX_ID_LEN);
                else if (rc)
                    err = rc;
                c->depth--;
            }
        } else if (!strcmp(key, "partitions")) {
            const placer_strategy_count *range = &st.partitions;
            err = option_for(c, strategy, PLACER_OPTION_PARTITIONS);
            if (!err)
                err = u32_value(c, v, range->min, range->max, &u);
            for (uint32_t d = 2; !err && range->prime && (uint64_t)d * d <= u; d++)
                if (u % d == 0)
                    err = plc_m_fail(c, "a %s must be prime (%u = %u x %u)", range->what, u, d, u / d);
            if (!err)
                placer_builder_set_partitions(b, u);
        } else if (!strcmp(key, "capacity")) {
            err = option_for(c, strategy, PLACER_OPTION_CAPACITY);
            if (!err)
                err = u32_value(c, v, st.capacity.min, st.capacity.max, &u);
            if (!err)
                placer_builder_set_capacity(b, u);
        } else if (strcmp(key, "nodes") != 0 && !(err = plc_m_compat_only_top_field(c, key))) {
            err = plc_m_fail(c, "unknown field (known: epoch, seed, strategy, key_hash, tokens, vnodes, "
                                "replicas, replication, datacenter_replicas, partitions, capacity, "
                                "nodes, compat)");
        }
        if (err)
            return err;
    }
    c->depth = 0;
    const json_t *nodes = json_object_get(root, "nodes");
    plc_m_push(c, "nodes", 0);
    if (!json_is_array(nodes) || !json_array_size(nodes))
        return plc_m_fail(c, nodes ? "expected a non-empty array of nodes" : "missing");
    for (size_t i = 0; i < json_array_size(nodes); i++) {
        c->depth = 1;
        plc_m_push(c, NULL, i);
        int err = decode_base64_fields(c, json_array_get(nodes, i));
        if (!err)
            err = read_node(c, b, json_array_get(nodes, i), strategy, compat);
        if (err)
            return err;
    }
    int err = check_owners(c, nodes);
    if (!err && compat)
        err = plc_m_compat_nodes(c, b, root, compat);
    else if (!err && (st.traits & PLACER_TRAIT_BUCKETS))
        err = check_buckets(c, nodes);
    return err;
}

/* The document in root (changed: base64 fields decoded) into a builder:
 * the body of placer_membership_parse once the text is parsed. */
static int read_document(plc_mctx *c, json_t *root, placer_builder **out, uint64_t *epoch)
{
    placer_builder *b = placer_builder_new();
    c->b = b;
    uint64_t e = 0;
    int has_epoch = 0;
    int err = b ? read_top(c, root, b, &e, &has_epoch) : PLACER_ENOMEM;
    if (err) {
        placer_builder_free(b);
        return err;
    }
    *out = b;
    *epoch = e;
    return has_epoch;
}

int placer_membership_parse(const char *json, size_t len, const char *name, placer_builder **out,
                            uint64_t *epoch, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!json || !out || !epoch)
        return PLACER_ENULL;
    plc_mctx c = {json, name ? name : "<membership>", len, why, why_len, {{0}}, 0, NULL};
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (why && why_len) { /* jansson's text quotes the input near the fault */
            char raw[512];
            snprintf(raw, sizeof raw, "%s:%d:%d: %s", c.name, jerr.line, jerr.column, jerr.text);
            placer_escape(why, why_len, raw, strlen(raw));
        }
        return json_error_code(&jerr) == json_error_out_of_memory ? PLACER_ENOMEM : PLACER_EFORMAT;
    }
    int err = read_document(&c, root, out, epoch);
    json_decref(root);
    return err;
}

int plc_membership_read_tree(json_t *root, placer_builder **out, uint64_t *epoch)
{
    /* no text and no message: plc_m_fail only returns the code */
    plc_mctx c = {NULL, "<membership>", 0, NULL, 0, {{0}}, 0, NULL};
    return read_document(&c, root, out, epoch);
}
