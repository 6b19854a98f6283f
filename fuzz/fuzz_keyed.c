/*
 * fuzz_keyed.c -- differential: the keyed and default placement hashes.
 * Every SipHash-1-3 batch kernel this CPU runs (scalar, SSE, AVX2, AVX-512)
 * and the scalar function against reference.c's transcription of the
 * paper, on batches cut from the input (equal lengths take the kernels'
 * vector finish, unequal ones their scalar finish); placer-v2, single and
 * batched on both CRC paths, against reference.c's ref_hash64_v2; and a
 * keyed snapshot of a strategy and node count from the input: every lookup
 * form of the cut keys against the reference owner (tests/reference.c) of
 * their SipHash-1-3 positions.
 *
 * Input: secret (16 bytes), seed (8), key count (1), cut mode (1), then the
 * bytes the keys are cut from.
 */
#include "cpu.h"
#include "placer.h"
#include "fuzz.h"
#include "kernels.h"
#include "reference.h"
#include "siphash.h"

enum { MAX_KEYS = 19 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    unsigned char secret[16];
    for (int i = 0; i < 16; i++)
        secret[i] = fuzz_u8(&p);
    uint64_t seed = fuzz_u64(&p);
    size_t nkeys = fuzz_u8(&p) % (MAX_KEYS + 1);
    uint8_t mode = fuzz_u8(&p);
    const uint8_t *buf = p.data;
    size_t n = p.size;

    /* Keys: all of one length (mode even) or the input cut at points
     * derived from it (mode odd); keys may overlap. */
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS];
    for (size_t i = 0; i < nkeys; i++) {
        size_t len = mode & 1 ? (n ? (size_t)(buf[i % n] * (i + 1)) % (n + 1) : 0)
                              : (n ? (size_t)(mode >> 1) % (n + 1) : 0);
        size_t start = n - len ? (i * 7) % (n - len + 1) : 0;
        keys[i] = buf + start;
        lens[i] = len;
    }

    plc_hash_key k = {seed, 0, 0};
    for (int b = 7; b >= 0; b--) {
        k.k0 = k.k0 << 8 | secret[b];
        k.k1 = k.k1 << 8 | secret[8 + b];
    }
    uint64_t want[MAX_KEYS], out[MAX_KEYS + 1];
    for (size_t i = 0; i < nkeys; i++) {
        want[i] = ref_siphash(1, 3, secret, keys[i], lens[i]);
        FUZZ_ASSERT(plc_siphash13(&k, keys[i], lens[i]) == want[i]);
    }
    size_t count;
    const plc_siphash_kernel *sk = plc_siphash_kernels(&count);
    for (size_t j = 0; j < count; j++) {
        if ((plc_cpu_detected() & sk[j].needs) != sk[j].needs)
            continue;
        out[nkeys] = 0x5a5a;
        sk[j].sip13(&k, keys, lens, nkeys, out);
        for (size_t i = 0; i < nkeys; i++)
            FUZZ_ASSERT(out[i] == want[i]);
        FUZZ_ASSERT(out[nkeys] == 0x5a5a);
    }

    const plc_kernels *cur = plc_kernels_get(), *sw = plc_kernels_sw();
    for (size_t i = 0; i < nkeys; i++) {
        want[i] = ref_hash64_v2(seed, keys[i], lens[i]);
        FUZZ_ASSERT(cur->hash64_v2(seed, keys[i], lens[i]) == want[i]);
        FUZZ_ASSERT(sw->hash64_v2(seed, keys[i], lens[i]) == want[i]);
    }
    cur->hash_v2_batch(&k, keys, lens, nkeys, out);
    for (size_t i = 0; i < nkeys; i++)
        FUZZ_ASSERT(out[i] == want[i]);
    sw->hash64_v2_batch(seed, keys, lens, nkeys, out);
    for (size_t i = 0; i < nkeys; i++)
        FUZZ_ASSERT(out[i] == want[i]);

    /* A keyed snapshot: strategy and size from the seed's bytes. */
    static const int strategies[] = {PLACER_RING, PLACER_PARTITIONS, PLACER_JUMP, PLACER_RENDEZVOUS,
                                     PLACER_MAGLEV};
    placer_builder *b = placer_builder_new();
    if (!b)
        return 0;
    placer_builder_set_strategy(b, strategies[seed % 5]);
    placer_builder_set_vnodes(b, 1 + (uint32_t)(seed >> 8) % 8);
    /* a partition count on a strategy without partitions is refused at build */
    if (strategies[seed % 5] == PLACER_PARTITIONS)
        placer_builder_set_partitions(b, 1 + (uint32_t)(seed >> 16) % 64);
    unsigned nodes = 1 + (unsigned)(seed >> 24) % 6;
    for (unsigned i = 0; i < nodes; i++) {
        char id[8];
        snprintf(id, sizeof id, "n%u", i);
        placer_builder_add_node(b, id, NULL, 1.0 + (double)((seed >> (32 + i)) & 1));
    }
    FUZZ_ASSERT(placer_builder_set_secret(b, secret) == 0);
    if (strategies[seed % 5] == PLACER_MAGLEV)
        placer_builder_set_partitions(b, 13);
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, 1, &s);
    FUZZ_ASSERT(err == 0 || err == PLACER_ENOMEM);
    if (s) {
        FUZZ_ASSERT(placer_snapshot_key_hash(s) == PLACER_HASH_SIPHASH13);
        uint32_t owners[MAX_KEYS];
        FUZZ_ASSERT(placer_lookup_batch(s, keys, lens, nkeys, owners) == 0);
        for (size_t i = 0; i < nkeys; i++) {
            uint64_t h = ref_siphash(1, 3, secret, keys[i], lens[i]);
            FUZZ_ASSERT(placer_snapshot_hash(s, keys[i], lens[i]) == h);
            uint32_t ref = ref_owner(s, h);
            int one = placer_lookup(s, keys[i], lens[i]);
            FUZZ_ASSERT(ref == PLACER_NO_NODE ? one == PLACER_ENOLIVE : one == (int)ref);
            FUZZ_ASSERT(owners[i] == ref);
        }
    }
    placer_snapshot_free(s);
    placer_builder_free(b);
    return 0;
}
