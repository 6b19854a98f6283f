/*
 * compat_codec.c -- a PLACER_EMULATED snapshot as format v2 sections
 * (docs/FORMAT.md): 11 the mode (with the program's numeric settings,
 * as many as its ops list), 12 the ring's points, 13 the owners of
 * the points, table slots or scored nodes (i for node i), 14 a number
 * per node: haproxy's server ids, or uhashring's nodes' own vnodes (only
 * when a node has its own). The decoder checks
 * each field, then rebuilds the program's layout from the nodes and the
 * mode -- by the builder's own code -- and accepts the sections only if
 * they are exactly that layout: a point, an owner or an id that the
 * program would not produce is PLACER_ECORRUPT, with the first difference.
 */
#include "codec_decode.h"
#include "compat_index.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

enum { F_PROGRAM, F_DISTRIBUTION, F_AVALANCHE, F_TAG_OPEN, F_TAG_CLOSE, F_KIND };
/* Then the program's numeric settings (its ops' params, one field each:
 * none for a program without any), then the key rule's fields, when the
 * snapshot has one (a file without them has none: it decodes as before
 * they existed); offsets from the rule's first field. */
enum { F_RULE, F_RULE_FLAGS, F_RULE_LEN, F_RULE_DEPTH, F_RULE_NAME_LEN, F_RULE_NAME };

/* The first field past the settings of program `program` (0 when unknown). */
static uint32_t rule_base(uint32_t program)
{
    const plc_compat_program *p = plc_compat_program_get((int)program);
    return PLC_COMPAT_FIELDS + (p && p->nparams <= PLC_COMPAT_MAX_PARAMS ? (uint32_t)p->nparams : 0);
}

/* Section 11's field count for a rule of kind `kind` and a name of
 * name_len bytes (4 a field, zero-padded), after `base` fields. */
static uint64_t compat_fields(uint32_t base, uint32_t kind, uint64_t name_len)
{
    return kind ? base + PLC_KEY_RULE_FIELDS + (name_len + 3) / 4 : base;
}

uint32_t plc_compat_encode_sections(const placer_snapshot *s, plc_fmt_section *out)
{
    const plc_compat_layout *l = &s->compat->layout;
    uint32_t k = 0;
    const plc_key_rule *r = &s->compat->rule;
    out[k++] = (plc_fmt_section){PLC_SEC_COMPAT, 0,
                                 compat_fields(rule_base((uint32_t)l->program), r->kind, r->name_len)};
    if (l->kind == PLC_CL_RING)
        out[k++] = (plc_fmt_section){PLC_SEC_COMPAT_POINTS, 0, l->n};
    out[k++] = (plc_fmt_section){PLC_SEC_COMPAT_OWNERS, 0, l->n};
    if (l->hash_ids || l->node_vnodes)
        out[k++] = (plc_fmt_section){PLC_SEC_COMPAT_HASH_IDS, 0, l->nnodes};
    return k;
}

void plc_compat_encode_section(const placer_snapshot *s, const plc_fmt_section *sec,
                               unsigned char *p)
{
    const plc_compat_layout *l = &s->compat->layout;
    switch (sec->type) {
    case PLC_SEC_COMPAT: {
        uint32_t f[PLC_COMPAT_FIELDS] = {(uint32_t)l->program, (uint32_t)l->distribution,
                                         (uint32_t)l->avalanche, (unsigned char)l->hash_tag[0],
                                         (unsigned char)l->hash_tag[1], (uint32_t)l->kind};
        for (uint32_t i = 0; i < PLC_COMPAT_FIELDS; i++)
            plc_wr32(p + 4 * i, f[i]);
        uint32_t base = rule_base((uint32_t)l->program);
        for (uint32_t i = PLC_COMPAT_FIELDS; i < base; i++)
            plc_wr32(p + 4 * i, l->params[i - PLC_COMPAT_FIELDS]);
        const plc_key_rule *r = &s->compat->rule;
        if (!r->kind)
            break;
        p += 4 * (size_t)base;
        uint32_t g[PLC_KEY_RULE_FIELDS] = {r->kind, r->flags, r->len, r->depth, r->name_len};
        for (uint32_t i = 0; i < PLC_KEY_RULE_FIELDS; i++)
            plc_wr32(p + 4 * (F_RULE + i), g[i]);
        size_t words = (r->name_len + 3) / 4;
        memset(p + 4 * F_RULE_NAME, 0, 4 * words); /* the name's padding */
        memcpy(p + 4 * F_RULE_NAME, r->name, r->name_len);
        break;
    }
    case PLC_SEC_COMPAT_POINTS: plc_wr32_array(p, l->points, l->n); break;
    case PLC_SEC_COMPAT_OWNERS: plc_wr32_array(p, l->owners, l->n); break;
    default: /* PLC_SEC_COMPAT_HASH_IDS */
        plc_wr32_array(p, l->hash_ids ? l->hash_ids : l->node_vnodes, l->nnodes);
    }
}

void plc_compat_decode_sections(int transition, unsigned *must, unsigned *may)
{
    (void)transition; /* refused by the check: the programs have no transitions */
    *must = 1u << PLC_SEC_COMPAT | 1u << PLC_SEC_COMPAT_OWNERS;
    *may = 1u << PLC_SEC_COMPAT_POINTS | 1u << PLC_SEC_COMPAT_HASH_IDS;
}

/* The distributions a program's layout can have once defaults are
 * resolved, and the kind of each (PLC_CL_*). */
static int distribution_ok(uint32_t program, uint32_t d, int *kind)
{
    const plc_compat_distribution *e =
        d ? plc_compat_program_distribution(plc_compat_program_get((int)program), (int)d) : NULL;
    *kind = e ? e->kind : 0;
    return e != NULL;
}

static int key_hash_ok(uint32_t program, int ch)
{
    const char *name = plc_compat_hash_name((int)program, ch);
    return name && plc_compat_hash_id((int)program, name) == ch;
}

/* The key rule's fields of section 11 (none when it has only the mode's)
 * into *r, checked as hostile input: the count of fields the name needs,
 * a rule key_rule.h knows, zero padding. */
static int read_rule(plc_dec *d, plc_key_rule *r)
{
    const plc_sec *cfg = &d->s[PLC_SEC_COMPAT];
    memset(r, 0, sizeof *r);
    if (cfg->count < PLC_COMPAT_FIELDS)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %llu fields, expected at least %u",
                            (unsigned long long)cfg->count, PLC_COMPAT_FIELDS);
    uint32_t base = rule_base(plc_rd32(cfg->p + 4 * F_PROGRAM));
    if (cfg->count == base)
        return 0;
    if (cfg->count < base + PLC_KEY_RULE_FIELDS)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %llu fields, expected %u or at least %u",
                            (unsigned long long)cfg->count, base, base + PLC_KEY_RULE_FIELDS);
    const unsigned char *q = cfg->p + 4 * (size_t)base;
    r->kind = plc_rd32(q + 4 * F_RULE);
    r->flags = plc_rd32(q + 4 * F_RULE_FLAGS);
    r->len = plc_rd32(q + 4 * F_RULE_LEN);
    r->depth = plc_rd32(q + 4 * F_RULE_DEPTH);
    uint32_t name_len = plc_rd32(q + 4 * F_RULE_NAME_LEN);
    if (!r->kind || cfg->count != compat_fields(base, r->kind, name_len))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: key rule %u with a name of %u bytes in "
                            "%llu fields", r->kind, name_len, (unsigned long long)cfg->count);
    if (name_len > PLC_KEY_RULE_NAME_MAX)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: key rule name of %u bytes (at most %u)",
                            name_len, PLC_KEY_RULE_NAME_MAX);
    const unsigned char *name = q + 4 * F_RULE_NAME;
    for (size_t i = name_len; i < 4 * (((size_t)name_len + 3) / 4); i++)
        if (name[i])
            return plc_dec_fail(d, PLACER_ECORRUPT, "compat: key rule name's padding is not zero");
    r->name_len = name_len;
    memcpy(r->name, name, name_len);
    r->name[name_len] = '\0';
    char why[160];
    if (plc_key_rule_check(r, why, sizeof why))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %s", why);
    return 0;
}

/* Section 14 as the nodes' own vnodes: one per node, each 0 (the ring's)
 * up to the program's "vnodes" setting's largest, not all 0 (the encoder
 * writes the section only when a node has its own). */
static int node_vnodes_check(plc_dec *d, const plc_compat_program *p, const plc_sec *sec)
{
    if (sec->count != d->nnodes)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %llu nodes' vnodes for %u nodes",
                            (unsigned long long)sec->count, d->nnodes);
    uint32_t max = p->params[plc_compat_program_param(p, "vnodes")].max, any = 0;
    for (uint64_t i = 0; i < sec->count; i++) {
        uint32_t v = plc_rd32(sec->p + 4 * i);
        if (v > max)
            return plc_dec_fail(d, PLACER_ECORRUPT, "compat: node %llu: vnodes %u (%s's are "
                                "1 .. %u)", (unsigned long long)i, v, p->name, max);
        any |= v;
    }
    if (!any)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: nodes' vnodes, all 0 (a file without "
                                                "any has no such section)");
    return 0;
}

int plc_compat_decode_check(plc_dec *d, const placer_builder *b)
{
    const plc_sec *cfg = &d->s[PLC_SEC_COMPAT];
    plc_key_rule rule;
    int rerr = read_rule(d, &rule);
    if (rerr)
        return rerr;
    uint32_t f[PLC_COMPAT_FIELDS];
    for (uint32_t i = 0; i < PLC_COMPAT_FIELDS; i++)
        f[i] = plc_rd32(cfg->p + 4 * i);
    uint32_t program = f[F_PROGRAM];
    int kind;
    const plc_compat_program *p = plc_compat_program_get((int)program);
    if (!p || (p->fields & PLC_CF_SLOTS) || p->partitions_check)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: program %u (Redis is partitions, "
                            "and so is Kafka)", program);
    if (!distribution_ok(program, f[F_DISTRIBUTION], &kind))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %s has no distribution %u",
                            placer_compat_name((int)program), f[F_DISTRIBUTION]);
    if (!key_hash_ok(program, PLC_CH_OF_KEY_HASH((int)d->key_hash)))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %s has no key hash %u",
                            placer_compat_name((int)program), d->key_hash);
    if (f[F_AVALANCHE] > 1 || (f[F_AVALANCHE] && !(p->fields & PLC_CF_AVALANCHE)))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: avalanche %u with %s", f[F_AVALANCHE],
                            placer_compat_name((int)program));
    int tag = f[F_TAG_OPEN] || f[F_TAG_CLOSE];
    if (tag && (!(p->fields & PLC_CF_HASH_TAG) || !f[F_TAG_OPEN] || !f[F_TAG_CLOSE] ||
                f[F_TAG_OPEN] > 255 || f[F_TAG_CLOSE] > 255))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: hash tag %u %u with %s", f[F_TAG_OPEN],
                            f[F_TAG_CLOSE], placer_compat_name((int)program));
    int ring = kind == PLC_CL_RING;
    if (f[F_KIND] != (uint32_t)kind)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: layout kind %u for distribution %s",
                            f[F_KIND], plc_compat_distribution_name((int)f[F_DISTRIBUTION]));
    int source_hash = PLC_CH_OF_KEY_HASH((int)d->key_hash) == PLC_CH_HAP_SOURCE;
    if (rule.kind && (!(p->fields & PLC_CF_KEY_RULE) ||
                      (rule.kind == PLC_KR_SOURCE) != source_hash))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: key rule %u with %s, key hash %u",
                            rule.kind, placer_compat_name((int)program), d->key_hash);
    for (size_t i = 0; i < p->nparams; i++) {
        uint32_t v = plc_rd32(cfg->p + 4 * (PLC_COMPAT_FIELDS + i));
        if (v < p->params[i].min || v > p->params[i].max)
            return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %s %u (%s's are %u .. %u)",
                                p->params[i].name, v, p->name, p->params[i].min, p->params[i].max);
    }
    if (d->flags & PLC_FMT_FLAG_TRANSITION)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: a target placement (the programs have "
                                                "no transitions)");
    if (plc_rd64(d->buf + PLC_H_SEED))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: a seed (the programs have none)");
    const plc_sec *pts = &d->s[PLC_SEC_COMPAT_POINTS], *own = &d->s[PLC_SEC_COMPAT_OWNERS];
    if (d->have[PLC_SEC_COMPAT_POINTS] != ring)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: points %s a %s", ring ? "missing from" : "in",
                            ring ? "ring" : "table");
    if (!own->count || (ring && pts->count != own->count))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %llu points, %llu owners",
                            (unsigned long long)(ring ? pts->count : own->count),
                            (unsigned long long)own->count);
    uint64_t down = ring ? plc_compat_points_unsorted(pts->p, pts->count) : 0;
    if (ring && down < pts->count)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: point %llu is smaller than the one before",
                            (unsigned long long)down);
    for (uint32_t i = 0; i < b->nnodes; i++)
        if (b->nodes[i].state == PLACER_NODE_JOINING || b->nodes[i].state == PLACER_NODE_DRAINING)
            return plc_dec_fail(d, PLACER_ECORRUPT, "compat: node %u joins or drains: %s has "
                                "no such state", i, placer_compat_name((int)program));
    int err = plc_dec_check_owners(d, b, own->p, own->count, 0, 0, "compat point");
    if (err)
        return err;
    int haproxy = (p->fields & PLC_CF_HASH_ID) != 0; /* the programs that number servers */
    const plc_sec *ids = &d->s[PLC_SEC_COMPAT_HASH_IDS];
    if ((p->fields & PLC_CF_NODE_VNODES) && d->have[PLC_SEC_COMPAT_HASH_IDS])
        return node_vnodes_check(d, p, ids);
    if (d->have[PLC_SEC_COMPAT_HASH_IDS] != haproxy || (haproxy && ids->count != d->nnodes))
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: server ids %s",
                            haproxy ? "missing or not one per node" : "outside haproxy");
    for (uint64_t i = 0; haproxy && i < ids->count; i++) {
        uint32_t id = plc_rd32(ids->p + 4 * i);
        if (id < 1 || id > PLC_HAPROXY_MAX_ID)
            return plc_dec_fail(d, PLACER_ECORRUPT, "compat: node %llu: server id %u",
                                (unsigned long long)i, id);
    }
    return 0;
}

/* The sections against the layout the program builds from the nodes. */
static int same_layout(plc_dec *d, const plc_compat_layout *l)
{
    const plc_sec *pts = &d->s[PLC_SEC_COMPAT_POINTS], *own = &d->s[PLC_SEC_COMPAT_OWNERS];
    if (own->count != l->n)
        return plc_dec_fail(d, PLACER_ECORRUPT,
                            "compat: %llu points or slots; the program's layout has %u",
                            (unsigned long long)own->count, l->n);
    uint32_t i = plc_compat_layout_mismatch(l, l->points ? pts->p : NULL, own->p);
    if (i == l->n)
        return 0;
    uint32_t p = l->points ? plc_rd32(pts->p + 4 * (size_t)i) : 0;
    uint32_t o = plc_rd32(own->p + 4 * (size_t)i);
    return plc_dec_fail(d, PLACER_ECORRUPT,
                        "compat: point %u is %u of node %u; the program's is %u of node %u", i, p,
                        o, l->points ? l->points[i] : 0, l->owners[i]);
}

/* Rebuilding the layout costs what the nodes' weights ask for, but a file
 * stores only nodes, weights and the points or slots: a file of a few
 * kilobytes could ask for PLACER_MAX_COMPAT_POINTS of them. So the size
 * the weights make is computed first, in O(nodes) (plc_compat_layout_size:
 * no point made), and held to what the file lists: exactly, but for
 * nginx's ring, whose servers' CRC chains can meet (the equal points nginx
 * drops, about n^2 / 2^33 of n), which may make up to twice the listed
 * points + 4,096. The rebuild then makes at most that many points or
 * slots, each at a constant cost (an MD5, a CRC, a hash, a tree step):
 * the work is proportional to the file (docs/FORMAT.md). */
static uint64_t rebuild_bound(const plc_dec *d, const placer_builder *b, int ring)
{
    uint64_t listed = d->s[PLC_SEC_COMPAT_OWNERS].count;
    return ring && plc_compat_program_get(b->compat)->size_is_bound ? 2 * listed + 4096u : listed;
}

int plc_compat_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    const unsigned char *f = d->s[PLC_SEC_COMPAT].p;
    b->compat = (int)plc_rd32(f + 4 * F_PROGRAM);
    b->compat_dist = (int)plc_rd32(f + 4 * F_DISTRIBUTION);
    b->compat_hash = PLC_CH_OF_KEY_HASH((int)d->key_hash);
    b->compat_avalanche = (int)plc_rd32(f + 4 * F_AVALANCHE);
    b->compat_tag[0] = (char)plc_rd32(f + 4 * F_TAG_OPEN);
    b->compat_tag[1] = (char)plc_rd32(f + 4 * F_TAG_CLOSE);
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    memset(b->compat_params, 0, sizeof b->compat_params);
    for (size_t i = 0; p && i < p->nparams && i < PLC_COMPAT_MAX_PARAMS; i++)
        b->compat_params[i] = plc_rd32(f + 4 * (PLC_COMPAT_FIELDS + i)); /* checked */
    int rerr = read_rule(d, &b->key_rule); /* checked by plc_compat_decode_check */
    if (rerr)
        return rerr;
    int own_vnodes = p && (p->fields & PLC_CF_NODE_VNODES); /* section 14's meaning */
    for (uint32_t i = 0; d->have[PLC_SEC_COMPAT_HASH_IDS] && i < b->nnodes; i++) {
        uint32_t v = plc_rd32(d->s[PLC_SEC_COMPAT_HASH_IDS].p + 4 * (size_t)i); /* checked */
        if (own_vnodes)
            b->nodes[i].vnodes = v;
        else
            b->nodes[i].hash_id = v;
    }
    b->compat_max_points = rebuild_bound(d, b, plc_rd32(f + 4 * F_KIND) == PLC_CL_RING);
    int err = plc_compat_check_nodes(b);
    uint64_t size = 0;
    if (!err)
        err = plc_compat_builder_size(b, &size);
    if (!err && size > b->compat_max_points)
        return plc_dec_fail(d, PLACER_ECORRUPT,
                            "compat: the nodes' weights make %s%llu points or slots; the file "
                            "lists %llu", b->compat_max_points > d->s[PLC_SEC_COMPAT_OWNERS].count
                                              ? "up to " : "",
                            (unsigned long long)size,
                            (unsigned long long)d->s[PLC_SEC_COMPAT_OWNERS].count);
    /* The rebuild runs under the same bound: the layout builder reserves
     * and makes what plc_compat_layout_size computes (compat_build.c). */
    placer_snapshot *s = NULL;
    if (!err)
        err = plc_compat_snapshot_build(b, b->ops, epoch, &s);
    if (err == PLACER_EINVAL)
        return plc_dec_fail(d, PLACER_ECORRUPT, "compat: %s", placer_builder_error(b));
    if (err)
        return err;
    const plc_compat_layout *l = &s->compat->layout;
    err = same_layout(d, l);
    for (uint32_t i = 0; !err && l->hash_ids && i < l->nnodes; i++)
        if (l->hash_ids[i] != b->nodes[i].hash_id) /* cannot differ: explicit ids are kept */
            err = plc_dec_fail(d, PLACER_ECORRUPT, "compat: node %u: server id %u", i,
                               b->nodes[i].hash_id);
    if (err) {
        placer_snapshot_free(s);
        return err;
    }
    *out = s;
    return 0;
}
