/*
 * compat_setters.c -- the builder's public calls for the compatibility
 * modes: choosing a mode and its options, a haproxy server id (names
 * checked at once), and the check of the nodes' fields against the mode
 * (for the mode's build, compat_mode_build.c, and the decoder,
 * compat_codec.c). What the program has no room for is PLACER_EINVAL with
 * the reason in placer_builder_error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compat_layout_kit.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

int placer_compat_has_distribution(int program, const char *name)
{
    if (!name)
        return 0;
    int d = plc_compat_distribution_id(name);
    /* (a program with nothing to choose, such as Redis' slots, has none) */
    return d && plc_compat_program_distribution(plc_compat_program_get(program), d) != NULL;
}

int placer_compat_has_key_hash(int program, const char *name)
{
    return name && plc_compat_hash_id(program, name) != 0;
}

int placer_builder_set_compat(placer_builder *b, int program, const placer_compat_options *opt)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->why = NULL;
    if (program == PLACER_COMPAT_NONE) {
        b->compat = b->compat_dist = b->compat_hash = b->compat_avalanche = 0;
        b->compat_tag[0] = b->compat_tag[1] = '\0';
        memset(b->compat_params, 0, sizeof b->compat_params);
        memset(&b->key_rule, 0, sizeof b->key_rule);
        return 0;
    }
    const plc_compat_program *p = plc_compat_program_get(program);
    if (!p)
        return plc_builder_refuse(b, "unknown compatibility program %d", program);
    const char *name = p->name;
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
    if (opt->avalanche > 0 && !(p->fields & PLC_CF_AVALANCHE))
        return plc_builder_refuse(b, "avalanche is %s's; %s has none",
                                  plc_compat_program_with(PLC_CF_AVALANCHE)->name, name);
    if (opt->hash_tag && !(p->fields & PLC_CF_HASH_TAG))
        return plc_builder_refuse(b, "hash_tag is %s's; %s has none",
                                  plc_compat_program_with(PLC_CF_HASH_TAG)->name, name);
    if (opt->hash_tag && (strlen(opt->hash_tag) != 2))
        return plc_builder_refuse(b, "hash_tag \"%s\": exactly two characters, such as \"{}\"",
                                  opt->hash_tag);
    if (program != b->compat)
        memset(b->compat_params, 0, sizeof b->compat_params);
    b->compat = program;
    b->compat_dist = opt->distribution ? plc_compat_distribution_id(opt->distribution) : 0;
    b->compat_hash = opt->key_hash ? plc_compat_hash_id(program, opt->key_hash) : 0;
    /* As haproxy 2.6's cfgparse.c: "hash-type consistent" with no function
     * named is sdbm with avalanche; map-based, or any function named
     * without the word, has none. (A program with avalanche: on with its
     * default distribution and key hash, when that is a ring.) */
    int as_program = (p->fields & PLC_CF_AVALANCHE) && !opt->key_hash &&
                     plc_compat_program_distribution(p, b->compat_dist)->kind == PLC_CL_RING;
    b->compat_avalanche = opt->avalanche == PLACER_COMPAT_AS_PROGRAM ? as_program
                                                                     : opt->avalanche > 0;
    b->compat_tag[0] = opt->hash_tag ? opt->hash_tag[0] : '\0';
    b->compat_tag[1] = opt->hash_tag ? opt->hash_tag[1] : '\0';
    if (!(p->fields & PLC_CF_KEY_RULE)) /* only haproxy's balance has a key rule */
        memset(&b->key_rule, 0, sizeof b->key_rule);
    return 0;
}

_Static_assert(sizeof(((placer_builder *)0)->compat_params) ==
                   PLC_COMPAT_MAX_PARAMS * sizeof(uint32_t), "the builder holds every setting");

int placer_compat_param_range(int program, const char *name, uint32_t *min, uint32_t *max,
                              uint32_t *dflt)
{
    const plc_compat_program *p = plc_compat_program_get(program);
    int i = plc_compat_program_param(p, name);
    if (i < 0)
        return PLACER_EINVAL;
    if (min)
        *min = p->params[i].min;
    if (max)
        *max = p->params[i].max;
    if (dflt)
        *dflt = p->params[i].dflt;
    return 0;
}

const char *placer_compat_param_name(int program, uint32_t i)
{
    const plc_compat_program *p = plc_compat_program_get(program);
    return p && i < p->nparams ? p->params[i].name : NULL;
}

int placer_compat_describe(int program, placer_compat_info *out)
{
    PLC_VALIDATE_OR_RET(out, PLACER_ENULL);
    const plc_compat_program *p = plc_compat_program_get(program);
    if (!p || out->size < sizeof *out)
        return PLACER_EINVAL;
    *out = (placer_compat_info){sizeof *out, p->name, p->title, p->fields, p->max_weight,
                                p->max_hash_id, p->max_name_len, p->tag};
    return 0;
}

int placer_builder_set_compat_param(placer_builder *b, const char *name, uint32_t value)
{
    PLC_VALIDATE_OR_RET(b && name, PLACER_ENULL);
    b->why = NULL;
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    if (!p)
        return plc_builder_refuse(b, "\"%s\" without a compatibility mode", name);
    int i = plc_compat_program_param(p, name);
    if (i < 0)
        return plc_builder_refuse(b, "%s has no setting \"%s\"", p->name, name);
    const plc_compat_param *q = &p->params[i];
    if (value < q->min || value > q->max)
        return plc_builder_refuse(b, "%s %u: %s's are %u .. %u", name, value, p->name, q->min,
                                  q->max);
    b->compat_params[i] = value;
    return 0;
}

int placer_builder_set_hash_id(placer_builder *b, uint32_t node, uint32_t hash_id)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    const plc_compat_program *p = plc_compat_program_with(PLC_CF_HASH_ID);
    if (hash_id > p->max_hash_id)
        return plc_builder_refuse(b, "hash id %u: %s's ids are 1 .. %u", hash_id, p->name,
                                  p->max_hash_id);
    b->nodes[node].hash_id = hash_id;
    return 0;
}

int placer_builder_set_node_vnodes(placer_builder *b, uint32_t node, uint32_t vnodes)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(node < b->nnodes, PLACER_ERANGE);
    const plc_compat_program *p = plc_compat_program_with(PLC_CF_NODE_VNODES);
    const plc_compat_param *q = &p->params[plc_compat_program_param(p, "vnodes")];
    if (vnodes > q->max)
        return plc_builder_refuse(b, "node %s: vnodes %u: %s's are 1 .. %u", b->nodes[node].id,
                                  vnodes, p->name, q->max);
    b->nodes[node].vnodes = vnodes;
    return 0;
}

/* Two nodes' addresses in byte order (qsort over pointers to nodes). */
static int by_address(const void *pa, const void *pb)
{
    const plc_bnode *a = *(const plc_bnode *const *)pa, *b = *(const plc_bnode *const *)pb;
    size_t m = a->addr_len < b->addr_len ? a->addr_len : b->addr_len;
    int r = m ? memcmp(a->addr, b->addr, m) : 0;
    return r ? r : (a->addr_len > b->addr_len) - (a->addr_len < b->addr_len);
}

/* PLC_CF_ADDRESS_ONCE: every address UTF-8 text, none twice (sorted:
 * O(n log n) for any input). */
static int addresses_once(placer_builder *b, const plc_compat_program *p)
{
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        const unsigned char *a = (const unsigned char *)n->addr;
        for (size_t j = 0, len; j < n->addr_len; j += len)
            if (!(len = plc_compat_utf8_seq(a + j, n->addr_len - j)))
                return plc_builder_refuse(b, "node %s: its address is not UTF-8 (byte %zu): %s's "
                                             "server names are text", n->id, j, p->title);
    }
    const plc_bnode **v = plc_malloc(sizeof *v * (b->nnodes ? b->nnodes : 1));
    if (!v)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < b->nnodes; i++)
        v[i] = &b->nodes[i];
    qsort(v, b->nnodes, sizeof *v, by_address);
    int rc = 0;
    for (uint32_t i = 1; i < b->nnodes && !rc; i++)
        if (!by_address(&v[i - 1], &v[i]))
            rc = plc_builder_refuse(b, "nodes %s and %s have one address, \"%.*s\": %s keeps "
                                       "one server per name", v[i - 1]->id, v[i]->id,
                                    (int)(v[i]->addr_len < 200 ? v[i]->addr_len : 200),
                                    v[i]->addr, p->title);
    plc_free(v);
    return rc;
}

/* The nodes' fields the mode reads, and those it has no use for. */
int plc_compat_check_nodes(placer_builder *b)
{
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    const char *name = p->name;
    for (uint32_t i = 0; i < b->nnodes; i++) {
        const plc_bnode *n = &b->nodes[i];
        double w = n->weight;
        if (!p->max_weight && w != 1.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: %s takes no weights", n->id,
                                      w, p->title);
        if (w != floor(w) || w < 1.0 || w > 4294967295.0)
            return plc_builder_refuse(b, "node %s: a weight of %g: %s's weights are integers",
                                      n->id, w, name);
        if (n->hash_id && !(p->fields & PLC_CF_HASH_ID))
            return plc_builder_refuse(b, "node %s: a hash id: only %s numbers its servers",
                                      n->id, plc_compat_program_with(PLC_CF_HASH_ID)->name);
        if (n->vnodes && !(p->fields & PLC_CF_NODE_VNODES))
            return plc_builder_refuse(b, "node %s: its own vnodes: only %s takes them", n->id,
                                      plc_compat_program_with(PLC_CF_NODE_VNODES)->name);
        int moving = n->state == PLACER_NODE_JOINING || n->state == PLACER_NODE_DRAINING;
        if (moving && !((p->fields & PLC_CF_MOVES) && b->map))
            return plc_builder_refuse(b, "node %s joins or drains: %s has no such state", n->id,
                                      name);
        if (!n->addr_len && (p->fields & PLC_CF_ADDRESS))
            return plc_builder_refuse(b, "node %s has no address: %s hashes \"host:port\"", n->id,
                                      name);
    }
    return p->fields & PLC_CF_ADDRESS_ONCE ? addresses_once(b, p) : 0;
}
