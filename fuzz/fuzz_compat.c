/*
 * fuzz_compat.c -- differential: every compatibility mode's layout and
 * lookup (engine/compat_*.c: sorted points, midpoints for haproxy's nearest
 * point, nginx's dropped duplicates, tables) against the plain references
 * of tests/compat_reference.c, on fuzzer-chosen programs, distributions,
 * hashes, node names, addresses, weights, haproxy ids, slot maps and keys.
 * A configuration the build refuses must be refused with a documented code.
 * Each accepted configuration is also built through the public API
 * (placer_builder_set_compat ...) under a fuzzer-chosen CPU mask and sent
 * through the codec: placer_lookup, the batch (engine/compat_index.c: the
 * SIMD and carry-less multiplication key hashes, the directory, built under
 * that mask), placer_snapshot_hash + placer_lookup_hash of the decoded
 * snapshot must each give the reference's owner, for the keys as they
 * come, then for keys of one length (the SIMD kernels' runs).
 */
#define PLACER_STATIC_LINKING_ONLY
#include "compat_reference.h"
#include "fuzz.h"
#include "placer.h"

#define MAX_NODES 8
#define MAX_KEYS 24

/* The configuration through the public API, then through the codec. */
static placer_snapshot *public_snapshot(const plc_compat_config *c, const plc_compat_layout *l)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    for (uint32_t i = 0; i < c->nnodes; i++) {
        const plc_compat_node *n = &c->nodes[i];
        double w = c->program == PLC_COMPAT_REDIS ? 1 : n->weight; /* Redis takes none */
        FUZZ_ASSERT(placer_builder_add_node(b, n->id, NULL, w) == (int)i);
        FUZZ_ASSERT(placer_builder_set_address(b, i, n->address) == 0);
        if (c->program == PLC_COMPAT_HAPROXY) /* a field only haproxy reads */
            FUZZ_ASSERT(placer_builder_set_hash_id(b, i, n->hash_id) == 0);
    }
    char tag[3] = {c->hash_tag[0], c->hash_tag[1], 0};
    placer_compat_options o = {c->distribution ? plc_compat_distribution_name(c->distribution) : NULL,
                               c->key_hash ? plc_compat_hash_name(c->program, c->key_hash) : NULL,
                               c->avalanche, tag[0] ? tag : NULL};
    FUZZ_ASSERT(placer_builder_set_compat(b, c->program, &o) == 0);
    if (c->slot_owner)
        FUZZ_ASSERT(placer_builder_set_partition_map(b, PLC_REDIS_SLOTS, 1, c->slot_owner, NULL) == 0);
    placer_snapshot *s = NULL, *d = NULL;
    int rc = placer_builder_build(b, 1, &s);
    if (rc)
        fprintf(stderr, "program %d: the layout builds, the public API says %s: %s\n", l->program,
                placer_strerror(rc), placer_builder_error(b));
    FUZZ_ASSERT(rc == 0);
    placer_builder_free(b);
    void *buf;
    size_t len;
    FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
    FUZZ_ASSERT(placer_snapshot_decode(buf, len, &d) == 0);
    placer_buffer_free(buf);
    placer_snapshot_free(s);
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
    c.avalanche = c.program == PLC_COMPAT_HAPROXY && (fuzz_u8(&p) & 1);
    uint8_t tagsel = fuzz_u8(&p);
    if (c.program == PLC_COMPAT_TWEMPROXY && (tagsel & 1)) {
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
        nodes[i] = (plc_compat_node){ids[i], (size_t)idn, addrs[i], (size_t)an, w, hid};
    }
    c.nodes = nodes;
    if (c.program == PLC_COMPAT_REDIS && (fuzz_u8(&p) & 1)) {
        for (uint32_t s = 0; s < PLC_REDIS_SLOTS; s++)
            slots[s] = (s * 7 + fuzz_u8(&p)) % c.nnodes;
        c.slot_owner = slots;
    }
    plc_compat_layout l;
    int rc = plc_compat_layout_build(&c, &l);
    if (rc) {
        FUZZ_ASSERT(rc == PLACER_EINVAL || rc == PLACER_ETOOMANY);
        return 0;
    }
    FUZZ_ASSERT(l.n > 0);
    for (uint32_t j = 0; j < l.n; j++)
        FUZZ_ASSERT(l.owners[j] < c.nnodes);
    for (uint32_t j = 1; l.kind == PLC_CL_RING && j < l.n; j++)
        FUZZ_ASSERT(l.points[j - 1] <= l.points[j]);
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS], nk = 0;
    uint32_t wants[MAX_KEYS] = {0};
    static const unsigned masks[] = {~0u, PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    unsigned mask = masks[fuzz_u8(&p) % 3];
    ref_compat *ref = ref_compat_new(&c, &l);
    for (int k = 0; k < MAX_KEYS && p.size; k++) {
        size_t len;
        const uint8_t *key = fuzz_bytes(&p, fuzz_u8(&p) % 40, &len);
        uint32_t want = ref_compat_owner(ref, key, len);
        keys[nk] = key;
        lens[nk] = len;
        wants[nk++] = want;
        uint32_t got = plc_compat_lookup(&l, key, len);
        if (got != want) {
            fprintf(stderr, "program %d dist %d hash %d: placer %u, reference %u\n", l.program,
                    l.distribution, l.key_hash, got, want);
            FUZZ_ASSERT(got == want);
        }
    }
    placer_set_cpu_mask(mask);
    placer_snapshot *s = public_snapshot(&c, &l);
    placer_set_cpu_mask(~0u);
    check_public(s, &l, keys, lens, nk, wants);
    /* One length for every key (16 or more: the SIMD kernels take runs of
     * such keys), cut from the rest of the input. */
    size_t one = 16 + fuzz_u8(&p) % 48, n1 = 0;
    while (n1 < MAX_KEYS && p.size >= one) {
        size_t len;
        keys[n1] = fuzz_bytes(&p, one, &len);
        lens[n1] = len;
        wants[n1] = ref_compat_owner(ref, keys[n1], len);
        n1++;
    }
    check_public(s, &l, keys, lens, n1, wants);
    placer_snapshot_free(s);
    ref_compat_free(ref);
    plc_compat_layout_free(&l);
    return 0;
}
