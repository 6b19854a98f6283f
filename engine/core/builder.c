/*
 * builder.c -- a mutable membership description: nodes (id, zone,
 * datacenter, weight), explicit tokens and the replication settings.
 * Every change is validated before anything is touched, so a failed call
 * leaves the builder exactly as it was.
 *
 * Duplicate ids are found through a small open-addressing index keyed by
 * placer_hash64 of the id, so adding N nodes costs O(N), not O(N^2).
 */
#include <math.h>
#include <string.h>

#include "alloc.h"
#include "builder_internal.h"
#include "key_hashes.h"
#include "strategy_ops.h"
#include "validate.h"

static char *dup_string(const char *s, size_t len)
{
    char *d = plc_malloc(len + 1);
    if (d) {
        memcpy(d, s, len);
        d[len] = '\0';
    }
    return d;
}

placer_builder *placer_builder_new(void)
{
    placer_builder *b = plc_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->seed = PLACER_DEFAULT_SEED;
    b->vnodes = PLACER_DEFAULT_VNODES;
    b->tokens = PLACER_TOKENS_RANDOM;
    b->strategy = PLACER_RING;
    b->ops = plc_strategy_get(PLACER_RING);
    return b; /* key_hash 0: resolved at build */
}

void placer_builder_free(placer_builder *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        plc_free(b->nodes[i].id);
        plc_free(b->nodes[i].zone);
        plc_free(b->nodes[i].addr);
        plc_free(b->nodes[i].dc);
    }
    for (uint32_t i = 0; i < b->dc_map_n; i++)
        plc_free(b->dc_map[i]);
    plc_free(b->dc_map);
    plc_free(b->dc_map_rf);
    plc_free(b->nodes);
    plc_free(b->explicit_tokens);
    plc_free(b->id_index);
    plc_free(b->map);
    plc_free(b->fwd);
    plc_free(b);
}

int placer_builder_set_strategy(placer_builder *b, int strategy)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    const plc_strategy_ops *ops = plc_strategy_get(strategy);
    if (!ops)
        return plc_builder_refuse(b, "strategy %d: no such strategy (placer_strategy_next lists them)",
                                  strategy);
    if (ops->traits & PLACER_TRAIT_IMPLIED)
        return plc_builder_refuse(b, "strategy %s: placer_builder_set_compat chooses it", ops->name);
    b->strategy = strategy;
    b->ops = ops;
    b->strategy_set = 1;
    return 0;
}

/* A build past PLACER_MAX_TOKENS: name the node that asks for the most
 * (weight x vnodes for a ring, its weight in buckets for the others, or
 * its explicit tokens) and the total asked. */
static void refuse_too_many(placer_builder *b, const plc_strategy_ops *ops)
{
    double unit = ops->options & PLACER_OPTION_VNODES ? (double)b->vnodes : 1.0, total = 0, most = -1;
    uint32_t big = 0;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        const plc_bnode *x = &b->nodes[n];
        double asks = x->explicit_tokens ? (double)x->explicit_tokens : fmax(1, round(x->weight * unit));
        total += asks;
        if (asks > most)
            most = asks, big = n;
    }
    if (total > (double)PLACER_MAX_TOKENS) {
        plc_builder_refuse_code(b, PLACER_ETOOMANY,
                                "%s: %.0f tokens or buckets in all, past PLACER_MAX_TOKENS (%u); node "
                                "%s (weight %g) asks for %.0f",
                                ops->name, total, PLACER_MAX_TOKENS, b->nodes[big].id,
                                b->nodes[big].weight, most);
        return;
    }
    for (uint32_t i = 0; i < b->nexplicit; i++) {
        const plc_btoken *t = &b->explicit_tokens[i];
        if (t->token >= PLACER_MAX_TOKENS && (ops->traits & PLACER_TRAIT_BUCKETS)) {
            plc_builder_refuse_code(b, PLACER_ETOOMANY,
                                    "%s: node %s names bucket %llu, past PLACER_MAX_TOKENS (%u)",
                                    ops->name, b->nodes[t->node].id, (unsigned long long)t->token,
                                    PLACER_MAX_TOKENS);
            return;
        }
    }
    plc_builder_refuse_code(b, PLACER_ETOOMANY,
                            "%s: %.0f tokens asked, with those a transition hands over past "
                            "PLACER_MAX_TOKENS (%u)",
                            ops->name, total, PLACER_MAX_TOKENS);
}

int placer_builder_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    PLC_VALIDATE_OR_RET(b && out, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(b->nnodes > 0, PLACER_ENONODES);
    b->why = NULL;
    b->rebased = 0;
    b->rebased_moved = 0;
    if (b->compat) /* the mode's own ring, table or slot map */
        return plc_compat_build(b, epoch, out);
    const plc_strategy_ops *ops = plc_strategy_get(b->strategy);
    int rc = plc_builder_resolve_hash(b);
    if (rc)
        return rc; /* with its reason */
    if (!(ops->key_hashes >> b->eff_hash & 1))
        return plc_builder_refuse(b, "the %s key hash with %s: the strategy does not take it",
                                  placer_key_hash_name(b->eff_hash), ops->name);
    if (b->tokens == PLACER_TOKENS_BALANCED && !(ops->options & PLACER_OPTION_ALLOCATION))
        return plc_builder_refuse(b, "balanced tokens with %s: only a strategy with token "
                                     "allocation (ring) takes them", ops->name);
    if (b->table_size && !(ops->options & PLACER_OPTION_PARTITIONS))
        return plc_builder_refuse(b, "%u partitions with %s: it has no partitions or table size",
                                  b->table_size, ops->name);
    if (b->rep_rule && !ops->fused_stree)
        return plc_builder_refuse(b, "Cassandra's replication with %s: only the ring (its tokens) "
                                     "takes it", ops->name);
    if ((rc = plc_replication_resolve(b)))
        return rc; /* with its reason */
    rc = ops->build(b, epoch, out);
    if (rc == PLACER_ETOOMANY && !b->why) /* a module's cap, without its own words */
        refuse_too_many(b, ops);
    else if (rc == PLACER_EINVAL && !b->why)
        plc_builder_refuse(b, "%s refused %u nodes: their explicit tokens, states or previous "
                              "snapshot conflict",
                           ops->name, b->nnodes);
    return rc;
}

int placer_builder_set_secret(placer_builder *b, const unsigned char secret[16])
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (!secret) {
        b->has_secret = 0;
        b->secret_k0 = b->secret_k1 = 0;
        if (b->key_hash == PLACER_HASH_SIPHASH13)
            b->key_hash = 0;
        return 0;
    }
    if (b->compat)
        return plc_builder_refuse(b, "a secret with %s: its placement is public",
                                  placer_compat_name(b->compat));
    if (b->key_hash && !(plc_key_hash_get(b->key_hash)->flags & PLC_KH_OWN))
        return plc_builder_refuse(b, "a secret with the %s key hash: only SipHash-1-3 is keyed",
                                  placer_key_hash_name(b->key_hash));
    uint64_t k0 = 0, k1 = 0;
    for (int i = 7; i >= 0; i--) {
        k0 = k0 << 8 | secret[i];
        k1 = k1 << 8 | secret[8 + i];
    }
    b->has_secret = 1;
    b->secret_k0 = k0;
    b->secret_k1 = k1;
    b->key_hash = PLACER_HASH_SIPHASH13;
    return 0;
}

int placer_builder_set_partitions(placer_builder *b, uint32_t count)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (count > PLACER_MAX_MAGLEV_SIZE)
        return plc_builder_refuse(b, "%u partitions: above PLACER_MAX_MAGLEV_SIZE (%u)", count,
                                  PLACER_MAX_MAGLEV_SIZE);
    b->table_size = count;
    return 0;
}

int placer_builder_set_key_hash(placer_builder *b, int hash)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    const plc_key_hash *row = plc_key_hash_get(hash);
    if (!row || !(row->flags & PLC_KH_SETTABLE))
        return plc_builder_refuse(b, "key hash %d: placer-v1, placer-v2, siphash13, couchbase or "
                                     "cassandra-murmur3 (placer_builder_set_compat sets a "
                                     "program's)", hash);
    b->key_hash = hash;
    return 0;
}

int placer_builder_set_token_allocation(placer_builder *b, int mode)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (mode != PLACER_TOKENS_RANDOM && mode != PLACER_TOKENS_BALANCED)
        return plc_builder_refuse(b, "token allocation %d: PLACER_TOKENS_RANDOM (%d) or "
                                     "PLACER_TOKENS_BALANCED (%d)", mode, PLACER_TOKENS_RANDOM,
                                  PLACER_TOKENS_BALANCED);
    b->tokens = mode;
    return 0;
}

int placer_builder_set_capacity(placer_builder *b, uint32_t buckets)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (buckets > PLACER_MAX_TOKENS)
        return plc_builder_refuse(b, "a capacity of %u buckets: above PLACER_MAX_TOKENS (%u)", buckets,
                                  PLACER_MAX_TOKENS);
    b->capacity = buckets;
    return 0;
}

int placer_builder_set_previous(placer_builder *b, const placer_snapshot *previous)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->previous = previous;
    return 0;
}

int placer_builder_set_partition_map(placer_builder *b, uint32_t parts, uint32_t copies,
                                     const uint32_t *map, const uint32_t *next_map)
{
    PLC_VALIDATE_OR_RET(b && map, PLACER_ENULL);
    if (parts < 1 || parts > PLACER_MAX_PARTITIONS)
        return plc_builder_refuse(b, "a partition map of %u rows: 1 .. PLACER_MAX_PARTITIONS (%u)",
                                  parts, PLACER_MAX_PARTITIONS);
    if (copies < 1 || copies > PLACER_MAX_REPLICAS)
        return plc_builder_refuse(b, "a partition map of %u copies: 1 .. PLACER_MAX_REPLICAS (%u)",
                                  copies, PLACER_MAX_REPLICAS);
    for (size_t i = 0; i < (size_t)parts * copies; i++) {
        uint32_t bad = map[i] != PLC_NO_NODE && map[i] >= b->nnodes               ? map[i]
                       : next_map && next_map[i] != PLC_NO_NODE && next_map[i] >= b->nnodes ? next_map[i]
                                                                                             : 0;
        if (bad)
            return plc_builder_refuse(b, "partition %zu, copy %zu: node %u of %u nodes", i / copies,
                                      i % copies, bad, b->nnodes);
    }
    size_t bytes = (size_t)parts * copies * sizeof *map;
    uint32_t *m = plc_malloc(bytes), *f = next_map ? plc_malloc(bytes) : NULL;
    if (!m || (next_map && !f)) {
        plc_free(m);
        plc_free(f);
        return PLACER_ENOMEM;
    }
    memcpy(m, map, bytes);
    if (f)
        memcpy(f, next_map, bytes);
    plc_free(b->map);
    plc_free(b->fwd);
    b->map = m;
    b->fwd = f;
    b->map_parts = parts;
    b->map_copies = copies;
    return 0;
}

uint64_t placer_builder_seed(const placer_builder *b)
{
    return b ? b->seed : 0;
}

uint32_t placer_builder_node_count(const placer_builder *b)
{
    return b ? b->nnodes : 0;
}

const char *placer_builder_node_id(const placer_builder *b, uint32_t node)
{
    return b && node < b->nnodes ? b->nodes[node].id : NULL;
}

const char *placer_builder_node_zone(const placer_builder *b, uint32_t node)
{
    return b && node < b->nnodes ? b->nodes[node].zone : NULL;
}

const char *placer_builder_node_datacenter(const placer_builder *b, uint32_t node)
{
    return b && node < b->nnodes ? (b->nodes[node].dc ? b->nodes[node].dc : "") : NULL;
}

double placer_builder_node_weight(const placer_builder *b, uint32_t node)
{
    return b && node < b->nnodes ? b->nodes[node].weight : 0.0;
}

int placer_builder_set_seed(placer_builder *b, uint64_t seed)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->seed = seed;
    return 0;
}

int placer_builder_set_vnodes(placer_builder *b, uint32_t v)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (v < 1 || v > PLACER_MAX_TOKENS)
        return plc_builder_refuse(b, "%u vnodes: 1 .. PLACER_MAX_TOKENS (%u)", v, PLACER_MAX_TOKENS);
    b->vnodes = v;
    return 0;
}

int placer_builder_set_state(placer_builder *b, uint32_t node, int state)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    if (state < PLACER_NODE_ACTIVE || state > PLACER_NODE_DOWN)
        return plc_builder_refuse(b, "node %s: state %d is not a PLACER_NODE_* state", b->nodes[node].id,
                                  state);
    b->nodes[node].state = state;
    return 0;
}

int placer_builder_set_replication(placer_builder *b, int rule, uint32_t rf)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (rule < PLACER_REPLICATION_PLACER || rule > PLACER_REPLICATION_NETWORK_TOPOLOGY)
        return plc_builder_refuse(b, "replication rule %d: PLACER_REPLICATION_PLACER, _SIMPLE or "
                                     "_NETWORK_TOPOLOGY", rule);
    if (rf > PLACER_MAX_REPLICAS || (rule && !rf))
        return plc_builder_refuse(b, "replication factor %u: 1 to PLACER_MAX_REPLICAS (%u)", rf,
                                  PLACER_MAX_REPLICAS);
    b->rep_rule = rule;
    b->rep_all = rule == PLACER_REPLICATION_NETWORK_TOPOLOGY ? rf : 0;
    b->replicas = rf;
    return 0;
}

int placer_builder_set_datacenter_replication(placer_builder *b, const char *datacenter, uint32_t rf)
{
    PLC_VALIDATE_OR_RET(b && datacenter, PLACER_ENULL);
    size_t len = strnlen(datacenter, PLACER_MAX_ID_LEN + 1);
    PLC_VALIDATE_OR_RET(len <= PLACER_MAX_ID_LEN, PLACER_EIDLONG);
    if (rf > PLACER_MAX_REPLICAS)
        return plc_builder_refuse(b, "replication factor %u in datacenter %s: 0 to "
                                     "PLACER_MAX_REPLICAS (%u)", rf, datacenter, PLACER_MAX_REPLICAS);
    uint32_t i = 0;
    while (i < b->dc_map_n && strcmp(b->dc_map[i], datacenter))
        i++;
    if (i == b->dc_map_n) {
        if (b->dc_map_n >= PLACER_MAX_NODES)
            return plc_builder_refuse_code(b, PLACER_ETOOMANY, "more datacenters than nodes can be");
        if (b->dc_map_n == b->dc_map_cap) {
            uint32_t cap = b->dc_map_cap ? 2 * b->dc_map_cap : 4;
            char **names = plc_realloc(b->dc_map, (size_t)cap * sizeof *names);
            if (!names)
                return PLACER_ENOMEM;
            b->dc_map = names;
            uint32_t *f = plc_realloc(b->dc_map_rf, (size_t)cap * sizeof *f);
            if (!f)
                return PLACER_ENOMEM;
            b->dc_map_rf = f;
            b->dc_map_cap = cap;
        }
        if (!(b->dc_map[i] = dup_string(datacenter, len)))
            return PLACER_ENOMEM;
        b->dc_map_n++;
    }
    b->dc_map_rf[i] = rf;
    if (b->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY) {
        b->rep_rule = PLACER_REPLICATION_NETWORK_TOPOLOGY;
        b->rep_all = 0;
    }
    return 0;
}

int placer_builder_set_replicas(placer_builder *b, uint32_t replicas)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    if (replicas > PLACER_MAX_REPLICAS)
        return plc_builder_refuse(b, "%u replicas: at most PLACER_MAX_REPLICAS (%u)", replicas,
                                  PLACER_MAX_REPLICAS);
    b->replicas = replicas;
    return 0;
}

/* Make room for one more id in the index (load factor <= 1/2). */
static int grow_id_index(placer_builder *b)
{
    if ((uint64_t)(b->nnodes + 1) * 2 < b->id_index_cap)
        return 0;
    uint32_t cap = b->id_index_cap ? b->id_index_cap * 2 : 16;
    uint32_t *index = plc_calloc(cap, sizeof *index);
    if (!index)
        return PLACER_ENOMEM;
    for (uint32_t n = 0; n < b->nnodes; n++) {
        const plc_bnode *node = &b->nodes[n];
        index[plc_builder_id_slot(index, cap, b, node->id, node->id_len)] = n + 1;
    }
    plc_free(b->id_index);
    b->id_index = index;
    b->id_index_cap = cap;
    return 0;
}

int placer_builder_add_node(placer_builder *b, const char *id, const char *zone, double weight)
{
    PLC_VALIDATE_OR_RET(b && id, PLACER_ENULL);
    size_t id_len = strnlen(id, PLACER_MAX_ID_LEN + 1);
    size_t zone_len = zone ? strnlen(zone, PLACER_MAX_ID_LEN + 1) : 0;
    PLC_VALIDATE_OR_RET(id_len > 0, PLACER_EIDEMPTY);
    PLC_VALIDATE_OR_RET(id_len <= PLACER_MAX_ID_LEN && zone_len <= PLACER_MAX_ID_LEN,
                        PLACER_EIDLONG);
    PLC_VALIDATE_OR_RET(weight >= PLACER_MIN_WEIGHT && weight <= PLACER_MAX_WEIGHT, PLACER_EWEIGHT); /* NaN fails */
    if (b->nnodes >= PLACER_MAX_NODES)
        return plc_builder_refuse_code(b, PLACER_ETOOMANY, "node %.*s: past PLACER_MAX_NODES (%u) nodes",
                                       (int)(id_len > 64 ? 64 : id_len), id, PLACER_MAX_NODES);
    if (b->id_index_cap && b->id_index[plc_builder_id_slot(b->id_index, b->id_index_cap, b, id, id_len)])
        return PLACER_EIDDUP;

    if (b->nnodes == b->cap_nodes) {
        uint32_t cap = b->cap_nodes ? b->cap_nodes * 2 : 8;
        plc_bnode *nodes = plc_realloc(b->nodes, (size_t)cap * sizeof *nodes);
        if (!nodes)
            return PLACER_ENOMEM;
        b->nodes = nodes;
        b->cap_nodes = cap;
    }
    if (grow_id_index(b))
        return PLACER_ENOMEM;
    char *id_copy = dup_string(id, id_len);
    char *zone_copy = dup_string(zone ? zone : "", zone_len);
    if (!id_copy || !zone_copy) {
        plc_free(id_copy);
        plc_free(zone_copy);
        return PLACER_ENOMEM;
    }
    uint32_t index = b->nnodes;
    b->nodes[index] = (plc_bnode){.id = id_copy, .zone = zone_copy, .id_len = (uint32_t)id_len,
                                  .zone_len = (uint32_t)zone_len, .weight = weight,
                                  .state = PLACER_NODE_ACTIVE};
    b->nnodes++;
    b->id_index[plc_builder_id_slot(b->id_index, b->id_index_cap, b, id, id_len)] = index + 1;
    return (int)index;
}

/* A node's optional text (address, datacenter) into *field and *field_len:
 * NULL or "" for none. The builder is unchanged on error. */
static int set_node_text(const char *text, char **field, uint32_t *field_len)
{
    size_t len = text ? strnlen(text, PLACER_MAX_ID_LEN + 1) : 0;
    PLC_VALIDATE_OR_RET(len <= PLACER_MAX_ID_LEN, PLACER_EIDLONG);
    char *copy = NULL;
    if (len && !(copy = dup_string(text, len)))
        return PLACER_ENOMEM;
    plc_free(*field);
    *field = copy;
    *field_len = (uint32_t)len;
    return 0;
}

int placer_builder_set_address(placer_builder *b, uint32_t node, const char *address)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    return set_node_text(address, &b->nodes[node].addr, &b->nodes[node].addr_len);
}

int placer_builder_set_datacenter(placer_builder *b, uint32_t node, const char *datacenter)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    return set_node_text(datacenter, &b->nodes[node].dc, &b->nodes[node].dc_len);
}

int placer_builder_add_token(placer_builder *b, uint32_t node, uint64_t token)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    if (b->nexplicit >= PLACER_MAX_TOKENS)
        return plc_builder_refuse_code(b, PLACER_ETOOMANY,
                                       "a token of node %s: past PLACER_MAX_TOKENS (%u) explicit tokens",
                                       b->nodes[node].id, PLACER_MAX_TOKENS);
    if (b->nexplicit == b->cap_explicit) {
        uint32_t cap = b->cap_explicit ? b->cap_explicit * 2 : 16;
        plc_btoken *t = plc_realloc(b->explicit_tokens, (size_t)cap * sizeof *t);
        if (!t)
            return PLACER_ENOMEM;
        b->explicit_tokens = t;
        b->cap_explicit = cap;
    }
    b->explicit_tokens[b->nexplicit++] = (plc_btoken){token, node};
    b->nodes[node].explicit_tokens++;
    return 0;
}
