/*
 * compat_setters.c -- the builder's public calls for the compatibility
 * modes: choosing a mode and its options, a haproxy server id (names
 * checked at once), and the check of the nodes' fields against the mode
 * (for the mode's build, compat_mode_build.c, and the decoder,
 * compat_codec.c). What the program has no room for is PLACER_EINVAL with
 * the reason in placer_builder_error.
 */
#include <math.h>
#include <string.h>

#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

int placer_compat_has_distribution(int program, const char *name)
{
    if (!name)
        return 0;
    int d = plc_compat_distribution_id(name);
    switch (program) {
    case PLACER_COMPAT_LIBMEMCACHED: return d == PLC_CD_KETAMA_WEIGHTED || d == PLC_CD_KETAMA;
    case PLACER_COMPAT_TWEMPROXY: return d == PLC_CD_KETAMA || d == PLC_CD_MODULA;
    case PLACER_COMPAT_NGINX: return d == PLC_CD_CONSISTENT || d == PLC_CD_HASH;
    case PLACER_COMPAT_HAPROXY: return d == PLC_CD_CONSISTENT || d == PLC_CD_MAP_BASED;
    default: return 0; /* Redis has slots, not a distribution */
    }
}

int placer_compat_has_key_hash(int program, const char *name)
{
    return name && program >= PLACER_COMPAT_LIBMEMCACHED && program <= PLACER_COMPAT_REDIS &&
           plc_compat_hash_id(program, name) != 0;
}

int placer_builder_set_compat(placer_builder *b, int program, const placer_compat_options *opt)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->why = NULL;
    if (program == PLACER_COMPAT_NONE) {
        b->compat = b->compat_dist = b->compat_hash = b->compat_avalanche = 0;
        b->compat_tag[0] = b->compat_tag[1] = '\0';
        memset(&b->key_rule, 0, sizeof b->key_rule);
        return 0;
    }
    const char *name = placer_compat_name(program);
    if (!name)
        return plc_builder_refuse(b, "unknown compatibility program %d", program);
    placer_compat_options none = {.size = sizeof none, .avalanche = PLACER_COMPAT_AS_PROGRAM};
    if (!opt)
        opt = &none;
    /* the first version's size (fields added later are read only when the
     * caller's size covers them) */
    if (opt->size < sizeof *opt)
        return plc_builder_refuse(b, "placer_compat_options.size is %zu: set it to "
                                     "sizeof(placer_compat_options)", opt->size);
    if (opt->distribution && !placer_compat_has_distribution(program, opt->distribution))
        return plc_builder_refuse(b, "%s has no distribution \"%s\"", name, opt->distribution);
    if (opt->key_hash && !placer_compat_has_key_hash(program, opt->key_hash))
        return plc_builder_refuse(b, "%s has no key hash \"%s\"", name, opt->key_hash);
    if (opt->avalanche < PLACER_COMPAT_AS_PROGRAM)
        return plc_builder_refuse(b, "avalanche %d: 1, 0 or PLACER_COMPAT_AS_PROGRAM (-1)",
                                  opt->avalanche);
    if (opt->avalanche > 0 && program != PLACER_COMPAT_HAPROXY)
        return plc_builder_refuse(b, "avalanche is haproxy's; %s has none", name);
    if (opt->hash_tag && program != PLACER_COMPAT_TWEMPROXY)
        return plc_builder_refuse(b, "hash_tag is twemproxy's; %s has none", name);
    if (opt->hash_tag && (strlen(opt->hash_tag) != 2))
        return plc_builder_refuse(b, "hash_tag \"%s\": exactly two characters, such as \"{}\"",
                                  opt->hash_tag);
    b->compat = program;
    b->compat_dist = opt->distribution ? plc_compat_distribution_id(opt->distribution) : 0;
    b->compat_hash = opt->key_hash ? plc_compat_hash_id(program, opt->key_hash) : 0;
    /* As haproxy 2.6's cfgparse.c: "hash-type consistent" with no function
     * named is sdbm with avalanche; map-based, or any function named
     * without the word, has none. */
    int as_program = program == PLACER_COMPAT_HAPROXY && !opt->key_hash &&
                     (!opt->distribution || !strcmp(opt->distribution, "consistent"));
    b->compat_avalanche = opt->avalanche == PLACER_COMPAT_AS_PROGRAM ? as_program
                                                                     : opt->avalanche > 0;
    b->compat_tag[0] = opt->hash_tag ? opt->hash_tag[0] : '\0';
    b->compat_tag[1] = opt->hash_tag ? opt->hash_tag[1] : '\0';
    if (program != PLACER_COMPAT_HAPROXY) /* only haproxy's balance has a key rule */
        memset(&b->key_rule, 0, sizeof b->key_rule);
    return 0;
}

int placer_builder_set_hash_id(placer_builder *b, uint32_t node, uint32_t hash_id)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    if (hash_id > PLC_HAPROXY_MAX_ID)
        return plc_builder_refuse(b, "hash id %u: haproxy's ids are 1 .. %u", hash_id,
                                  PLC_HAPROXY_MAX_ID);
    b->nodes[node].hash_id = hash_id;
    return 0;
}

/* The nodes' fields the mode reads, and those it has no use for. */
int plc_compat_check_nodes(placer_builder *b)
{
    const char *name = placer_compat_name(b->compat);
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        double w = n->weight;
        if (b->compat == PLACER_COMPAT_REDIS && w != 1.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: Redis takes no weights", n->id,
                                      w);
        if (w != floor(w) || w < 1.0 || w > 4294967295.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: %s's weights are integers",
                                      n->id, w, name);
        if (n->hash_id && b->compat != PLACER_COMPAT_HAPROXY)
            return plc_builder_refuse(b, "node %s: a hash id: only haproxy numbers its servers",
                                      n->id);
        int moving = n->state == PLACER_NODE_JOINING || n->state == PLACER_NODE_DRAINING;
        if (moving && !(b->compat == PLACER_COMPAT_REDIS && b->map))
            return plc_builder_refuse(b, "node %s joins or drains: %s has no such state", n->id,
                                      name);
        if (!n->addr_len &&
            (b->compat == PLACER_COMPAT_LIBMEMCACHED || b->compat == PLACER_COMPAT_NGINX))
            return plc_builder_refuse(b, "node %s has no address: %s hashes \"host:port\"", n->id,
                                      name);
    }
    return 0;
}
