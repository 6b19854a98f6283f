/*
 * fuzz_compat.c -- differential: every compatibility mode's layout and
 * lookup (engine/compat_*.c: sorted points, midpoints for haproxy's nearest
 * point, nginx's dropped duplicates, tables) against the plain references
 * of tests/compat_reference.c, on fuzzer-chosen programs, distributions,
 * hashes, node names, addresses, weights, haproxy ids, slot maps and keys.
 * Each configuration is built through the public API
 * (placer_builder_set_compat ...) under a fuzzer-chosen CPU mask; one the
 * build refuses must be refused by plc_compat_layout_build too, with a
 * documented code. The layout under test is the snapshot's own (Redis:
 * plc_compat_layout_build's slot table, the snapshot being partitions):
 * its plain search (plc_compat_lookup), placer_lookup, the batch
 * (engine/compat_index.c: the SIMD and carry-less multiplication key
 * hashes, the directory, built under that mask) and placer_snapshot_hash +
 * placer_lookup_hash must each give the reference's owner, for the keys as
 * they come, then for keys of one length (the SIMD kernels' runs). On one
 * input in eight the snapshot also goes through the codec, and the decoded
 * copy -- rebuilt and checked against the file by the decoder -- must give
 * the same owners (Redis: the public snapshot on one input in four, the
 * codec on one in sixteen; see the choice below). The configuration is
 * resolved by plc_compat_layout_resolve too, and the layout must say what
 * it says; the reference takes only that (and numbers haproxy's servers
 * itself), so the builder's conversions are checked against it.
 */
#define PLACER_STATIC_LINKING_ONLY
#include "compat_index.h"
#include "compat_reference.h"
#include "fuzz.h"
#include "placer.h"
#include "snapshot_internal.h"

#define MAX_NODES 8
#define MAX_KEYS 24

/* The configuration through the public API: 0 and *out, or the build's
 * error. */
static int public_snapshot(const plc_compat_config *c, placer_snapshot **out)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const plc_compat_node *n = &c->nodes[i];
        double w = c->program == PLACER_COMPAT_REDIS ? 1 : n->weight; /* Redis takes none */
        FUZZ_ASSERT(placer_builder_add_node(b, n->id, NULL, w) == (int)i);
        FUZZ_ASSERT(placer_builder_set_address(b, i, n->address) == 0);
        if (c->program == PLACER_COMPAT_HAPROXY) /* a field only haproxy reads */
            FUZZ_ASSERT(placer_builder_set_hash_id(b, i, n->hash_id) == 0);
    }
    char tag[3] = {c->hash_tag[0], c->hash_tag[1], 0};
    placer_compat_options o = {
        .size = sizeof o,
        .distribution = c->distribution ? plc_compat_distribution_name(c->distribution) : NULL,
        .key_hash = c->key_hash ? plc_compat_hash_name(c->program, c->key_hash) : NULL,
        .avalanche = c->avalanche,
        .hash_tag = tag[0] ? tag : NULL};
    FUZZ_ASSERT(placer_builder_set_compat(b, c->program, &o) == 0);
    if (c->slot_owner)
        FUZZ_ASSERT(placer_builder_set_partition_map(b, PLC_REDIS_SLOTS, 1, c->slot_owner, NULL) == 0);
    *out = NULL;
    int rc = placer_builder_build(b, 1, out);
    if (rc && rc != PLACER_EINVAL && rc != PLACER_ETOOMANY)
        fprintf(stderr, "program %d: the public API says %s: %s\n", c->program, placer_strerror(rc),
                placer_builder_error(b));
    FUZZ_ASSERT(rc == 0 || rc == PLACER_EINVAL || rc == PLACER_ETOOMANY);
    placer_builder_free(b);
    return rc;
}

/* The snapshot through the codec: the decoded copy. */
static placer_snapshot *round_trip(const placer_snapshot *s)
{
    void *buf;
    size_t len;
    placer_snapshot *d = NULL;
    FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
    FUZZ_ASSERT(placer_snapshot_decode(buf, len, &d) == 0);
    placer_buffer_free(buf);
    return d;
}

/* The public snapshot's answers for keys[0..n) against want[]. */
static void check_public(const placer_snapshot *s, const plc_compat_layout *l,
                         const void *const *keys, const size_t *lens, size_t n, const uint32_t *want)
{
    uint32_t batch[MAX_KEYS];
    FUZZ_ASSERT(placer_lookup_batch(s, keys, lens, n, batch) == 0);
    for (size_t i = 0; i < n; i++) {
        int one = placer_lookup(s, keys[i], lens[i]);
        int by_hash = placer_lookup_hash(s, placer_snapshot_hash(s, keys[i], lens[i]));
        if (one != (int)want[i] || batch[i] != want[i] || by_hash != (int)want[i])
            fprintf(stderr, "program %d hash %d key %zu: lookup %d, batch %u, by hash %d, reference %u\n",
                    l->program, l->key_hash, i, one, batch[i], by_hash, want[i]);
        FUZZ_ASSERT(one == (int)want[i] && batch[i] == want[i] && by_hash == (int)want[i]);
    }
}

/* Loops of up to 16,384 steps whose bounds the fuzzer already chose, or
 * checks with no branch worth steering by: no coverage (clang). */
#if defined(__clang__)
#define NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))
#else
#define NO_COVERAGE __attribute__((noinline))
#endif

/* slot[at..end) = (stride * slot + owner) % n: one owner, or owners
 * changing slot by slot. */
NO_COVERAGE static void fill_slots(uint32_t *slot, uint32_t at, uint32_t end, uint32_t stride,
                                   uint32_t owner, uint32_t n)
{
    for (uint32_t i = at; i < end; i++)
        slot[i] = (stride * i + owner) % n;
}

/* Every owner a node, a ring's points ascending. */
NO_COVERAGE static int layout_in_order(const plc_compat_layout *l)
{
    for (uint32_t j = 0; j < l->n; j++)
        if (l->owners[j] >= l->nnodes)
            return 0;
    for (uint32_t j = 1; l->kind == PLC_CL_RING && j < l->n; j++)
        if (l->points[j - 1] > l->points[j])
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    static char ids[MAX_NODES][24], addrs[MAX_NODES][40];
    static uint32_t slots[PLC_REDIS_SLOTS];
    plc_compat_node nodes[MAX_NODES];
    plc_compat_config c = {0};
    c.program = 1 + fuzz_u8(&p) % 5;
    c.distribution = fuzz_u8(&p) % 8;           /* 7 is no distribution */
    c.key_hash = fuzz_u8(&p) % (PLC_CH_COUNT_ + 1);
    c.avalanche = c.program == PLACER_COMPAT_HAPROXY && (fuzz_u8(&p) & 1);
    uint8_t tagsel = fuzz_u8(&p);
    if (c.program == PLACER_COMPAT_TWEMPROXY && (tagsel & 1)) {
        c.hash_tag[0] = (char)(tagsel & 2 ? '{' : 'a' + tagsel % 7);
        c.hash_tag[1] = (char)(tagsel & 4 ? '}' : 'a' + tagsel % 5);
    }
    c.nnodes = 1 + fuzz_u8(&p) % MAX_NODES;
    for (uint32_t i = 0; i < c.nnodes; i++) {
        uint8_t f = fuzz_u8(&p);
        /* Short names from a small alphabet: equal lengths, near-equal names. */
        int idn = snprintf(ids[i], sizeof ids[i], "%c%c%u", 'a' + f % 3, 'x' + (f >> 2) % 2, i % 4 ? i : 10 * i);
        unsigned port = f & 0x10 ? 11211u : 1000u + fuzz_u8(&p);
        int an = f & 0x20 ? snprintf(addrs[i], sizeof addrs[i], "unix:/tmp/s%u", i)
                          : snprintf(addrs[i], sizeof addrs[i], "10.0.%u.%u:%u", f % 4, i, port);
        uint32_t w = 1 + fuzz_u8(&p) % 3;
        uint32_t hid = f & 0x40 ? fuzz_u8(&p) % 12 : 0;
        nodes[i] = (plc_compat_node){ids[i], (size_t)idn, addrs[i], (size_t)an, w, hid, 0};
    }
    c.nodes = nodes;
    if (c.program == PLACER_COMPAT_REDIS && (fuzz_u8(&p) & 1)) {
        /* A slot map in CLUSTER NODES' shape: up to 16 runs of slots, each
         * a master's range, or a stride (owners changing slot by slot, as
         * after single slots were moved); the last run to the end. */
        uint32_t runs = 1 + fuzz_u8(&p) % 16, at = 0;
        for (uint32_t r = 0; at < PLC_REDIS_SLOTS; r++) {
            uint8_t f = fuzz_u8(&p);
            uint32_t len = r + 1 < runs ? 1 + fuzz_u16(&p) % PLC_REDIS_SLOTS : PLC_REDIS_SLOTS;
            uint32_t end = len < PLC_REDIS_SLOTS - at ? at + len : PLC_REDIS_SLOTS;
            fill_slots(slots, at, end, f & 0x80 ? 7 : 0, f & 0x7f, c.nnodes);
            at = end;
        }
        c.slot_owner = slots;
    }
    static const unsigned masks[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                     PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    unsigned mask = masks[fuzz_u8(&p) % 4];
    /* The costly checks on a share of the inputs, chosen by a checksum of
     * the whole input: the codec round trip on one in eight; for Redis
     * (16,384 slots through the partitions table, its checks and codec:
     * fifty times a haproxy input) the public snapshot on one in four,
     * the codec on one in sixteen. A checksum, not an input byte: the
     * fuzzer keeps a byte as it mutates the other bytes and favours the
     * inputs with the decoder's rarer features, so a byte meant for one
     * in eight chose the codec for four in ten executions (seven in ten
     * for Redis); a checksum keeps the share whatever it favours. The
     * same input always takes the same path. */
    uint32_t pick = placer_crc32(0, data, size);
    int redis = c.program == PLACER_COMPAT_REDIS;
    int codec = pick % (redis ? 16 : 8) == 0;
    int pub = !redis || pick % 4 == 0;
    /* The defaults, resolved from the configuration itself: the
     * reference's, and what the layout must say. A configuration refused
     * there (a distribution or key hash not the program's) has no names
     * the public API would take. */
    plc_compat_layout res, own = {0};
    int vrc = plc_compat_layout_resolve(&c, &res);
    if (vrc) {
        FUZZ_ASSERT(vrc == PLACER_EINVAL);
        FUZZ_ASSERT(plc_compat_layout_build(&c, &own) == vrc);
        return 0;
    }
    placer_snapshot *s = NULL;
    int prc = 0;
    if (pub) {
        placer_set_cpu_mask(mask);
        prc = public_snapshot(&c, &s);
        placer_set_cpu_mask(~0u);
    }
    /* The layout: the snapshot's own; Redis' slot table (the snapshot is
     * partitions), or a refusal, from plc_compat_layout_build. */
    const plc_compat_layout *l = &own;
    if (prc || redis) {
        int rc = plc_compat_layout_build(&c, &own);
        if (!pub)
            prc = rc; /* Redis without its snapshot: the layout alone */
        if ((rc == 0) != (prc == 0))
            fprintf(stderr, "program %d: the layout build says %d, the public API %s\n", c.program,
                    rc, placer_strerror(prc));
        FUZZ_ASSERT((rc == 0) == (prc == 0));
        if (rc) {
            FUZZ_ASSERT(rc == PLACER_EINVAL || rc == PLACER_ETOOMANY);
            return 0;
        }
    } else {
        FUZZ_ASSERT(s->compat);
        l = &s->compat->layout;
    }
    FUZZ_ASSERT(l->program == res.program && l->distribution == res.distribution &&
                l->key_hash == res.key_hash && l->avalanche == res.avalanche &&
                l->hash_tag[0] == res.hash_tag[0] && l->hash_tag[1] == res.hash_tag[1] &&
                l->nnodes == c.nnodes);
    int ring = res.distribution == PLC_CD_KETAMA_WEIGHTED || res.distribution == PLC_CD_KETAMA ||
               res.distribution == PLC_CD_CONSISTENT;
    FUZZ_ASSERT(l->kind == (ring ? PLC_CL_RING : PLC_CL_TABLE));
    FUZZ_ASSERT(l->n > 0);
    FUZZ_ASSERT(layout_in_order(l));
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], nk = 0;
    uint32_t wants[MAX_KEYS] = {0};
    ref_compat *ref = ref_compat_new(&c, &res);
    for (int k = 0; k < MAX_KEYS && p.size; k++) {
        size_t len;
        const uint8_t *key = fuzz_bytes(&p, fuzz_u8(&p) % 40, &len);
        uint32_t want = ref_compat_owner(ref, key, len);
        keys[nk] = key;
        lens[nk] = len;
        wants[nk++] = want;
        uint32_t got = plc_compat_lookup(l, key, len);
        if (got != want) {
            fprintf(stderr, "program %d dist %d hash %d: placer %u, reference %u\n", l->program,
                    l->distribution, l->key_hash, got, want);
            FUZZ_ASSERT(got == want);
        }
    }
    placer_snapshot *d = s && codec ? round_trip(s) : NULL;
    if (s)
        check_public(s, l, keys, lens, nk, wants);
    if (d)
        check_public(d, l, keys, lens, nk, wants);
    /* One length for every key (16 or more: the SIMD kernels take runs of
     * such keys), cut from the rest of the input. */
    size_t one = 16 + fuzz_u8(&p) % 48, n1 = 0;
    while (s && n1 < MAX_KEYS && p.size >= one) {
        size_t len;
        keys[n1] = fuzz_bytes(&p, one, &len);
        lens[n1] = len;
        wants[n1] = ref_compat_owner(ref, keys[n1], len);
        n1++;
    }
    if (s)
        check_public(s, l, keys, lens, n1, wants);
    if (d)
        check_public(d, l, keys, lens, n1, wants);
    placer_snapshot_free(d);
    placer_snapshot_free(s);
    ref_compat_free(ref);
    plc_compat_layout_free(&own);
    return 0;
}
