/*
 * fuzz_strategies.c -- differential: every strategy against its plain
 * reference (tests/reference.c), on fuzzer-built memberships, with the
 * kernels of a CPU level chosen by a checksum of the input.
 *
 * Input: strategy, seed, a size parameter (partitions or a prime Maglev
 * size), the key hash, then up to 8 nodes: an id byte (a small pool, so
 * ids repeat and are refused), a zone byte (3 zones), a weight byte, a
 * state byte and explicit tokens (jump: buckets, some of them clashing).
 * Then keys and hashes. For each:
 *   - key, hash and batch lookups agree; the owner is not joining, the
 *     next owner not draining;
 *   - jump: table[jump(h, buckets)]; partitions and Maglev: the table entry
 *     of the slot whose range holds h; Couchbase hash: zlib's mapping from
 *     the bitwise CRC-32; rendezvous: -w / ln(u) with libm's log;
 *   - replicas: the owner first, distinct nodes, never more than asked;
 *     a ring's whole set, key by key, by position and batched, equal to
 *     ref_ring_replicas for every want up to 6 (rings of 64 tokens and
 *     more take the line table's own path, and with a vnode byte's top
 *     bit rings get 32 times the vnodes to reach it; sets of 0 to 5 are
 *     precomputed, 4 and 5 read from the wide line sets), and every key
 *     and a 32-byte copy of it batched together (the fused pass of the
 *     line sets, several blocks) for wants 1 to 5; a token byte's top
 *     two bits add a dense run of tokens: crowded lines, ranked by
 *     their tokens or (past 27) the tree; and a position at a token or
 *     beside it (ties on the line, the last line) by hash for every want
 *     up to 6;
 *   - range strategies: the owner and the next owner differ exactly where
 *     placer_diff_transition lists a range.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>

#include "fuzz.h"
#include "placer.h"
#include "reference.h"

/* Maglev sizes: small primes and two larger ones; bigger tables add work,
 * not paths (tests/test_strategies.c covers the default 65,537). */
static const uint32_t primes[] = {2, 3, 5, 7, 11, 13, 31, 61, 251, 1021};
#define MAX_KEYS 24 /* fuzzer-chosen keys per input, after the 6 fixed ones */

static placer_snapshot *membership(fuzz_producer *p)
{
    placer_builder *b = placer_builder_new();
    FUZZ_ASSERT(b);
    int strategy = PLACER_RING + fuzz_u8(p) % 5;
    FUZZ_ASSERT(placer_builder_set_strategy(b, strategy) == 0);
    placer_builder_set_seed(b, fuzz_u8(p));
    uint8_t vn = fuzz_u8(p);
    /* rings: 32 times more with the top bit, so that they reach the line
     * table (64 tokens) and its line sets */
    placer_builder_set_vnodes(b, (1 + vn % 8) * (strategy == PLACER_RING && vn & 0x80 ? 32 : 1));
    uint8_t size = fuzz_u8(p);
    if (strategy == PLACER_MAGLEV)
        placer_builder_set_partitions(b, primes[size % (sizeof primes / sizeof primes[0])]);
    else if (strategy == PLACER_PARTITIONS)
        placer_builder_set_partitions(b, 1 + size % 64);
    int couchbase = strategy == PLACER_PARTITIONS && fuzz_u8(p) % 2;
    if (couchbase)
        placer_builder_set_key_hash(b, PLACER_HASH_COUCHBASE);
    placer_builder_set_replicas(b, fuzz_u8(p) % 6); /* 4 and 5: the wide line sets */
    int n = 1 + fuzz_u8(p) % 8, clash = 0;
    for (int i = 0; i < n; i++) {
        char id[8], zone[4];
        snprintf(id, sizeof id, "n%u", (unsigned)(fuzz_u8(p) % 10));
        snprintf(zone, sizeof zone, "z%u", (unsigned)(fuzz_u8(p) % 3));
        int idx = placer_builder_add_node(b, id, zone, 0.5 * (1 + fuzz_u8(p) % 6));
        if (idx < 0)
            continue;
        FUZZ_ASSERT(placer_builder_set_state(b, (uint32_t)idx, fuzz_u8(p) % 4) == 0);
        uint8_t tb = fuzz_u8(p);
        int tokens = strategy == PLACER_JUMP || strategy == PLACER_RING ? tb % 3 : 0;
        for (int t = 0; t < tokens; t++) {
            uint64_t tok = strategy == PLACER_JUMP ? fuzz_u8(p) % 6 : (uint64_t)fuzz_u8(p) << 56;
            placer_builder_add_token(b, (uint32_t)idx, tok);
            /* rings, the byte's top two bits: a run of 8 to 36 tokens after
             * the first, 2^32..2^39 apart: a crowded line, its suffixes
             * distinct or shared (ties), perhaps the ring's last line */
            for (uint32_t j = 1; strategy == PLACER_RING && t == 0 && tb >= 0xC0 &&
                                 j < 8 + ((tb >> 3) & 7) * 4u;
                 j++)
                placer_builder_add_token(b, (uint32_t)idx, tok + ((uint64_t)j << (32 + tb % 8)));
        }
        clash |= tokens > 0;
    }
    placer_snapshot *s = NULL;
    int rc = placer_builder_build(b, 1, &s);
    /* States may leave nobody placed now or after; jump buckets may clash. */
    FUZZ_ASSERT(rc == 0 || rc == PLACER_ENONODES ||
                (rc == PLACER_EINVAL && strategy == PLACER_JUMP && clash));
    placer_builder_free(b);
    return s;
}

static void check_key(const placer_snapshot *s, const placer_move *m, size_t nm, const void *key,
                      size_t len)
{
    uint64_t h = placer_snapshot_hash(s, key, len);
    int owner = placer_lookup(s, key, len);
    FUZZ_ASSERT(owner == placer_lookup_hash(s, h));
    uint32_t batch;
    const void *keys[1] = {key};
    FUZZ_ASSERT(placer_lookup_batch(s, keys, &len, 1, &batch) == 0 && batch == (uint32_t)owner);
    if (placer_snapshot_strategy(s) != PLACER_RING) /* fuzz_ring_lookup covers rings */
        FUZZ_ASSERT((uint32_t)owner == ref_owner(s, h));
    if (placer_snapshot_key_hash(s) == PLACER_HASH_COUCHBASE) {
        uint32_t P = placer_partition_count(s);
        FUZZ_ASSERT(placer_partition(s, key, len) ==
                    (int)(((ref_crc32(0, key, len) >> 16) & 0x7fff) % P));
    }
    FUZZ_ASSERT(placer_node_state(s, (uint32_t)owner) != PLACER_NODE_JOINING);
    uint32_t now, next;
    FUZZ_ASSERT(placer_lookup_handoff(s, key, len, &now, &next) == 0 && now == (uint32_t)owner);
    FUZZ_ASSERT(placer_node_state(s, next) != PLACER_NODE_DRAINING);
    if (m || !nm)
        FUZZ_ASSERT((now != next) == ref_in_moves(m, nm, h) || nm == (size_t)-1);
    uint32_t set[8];
    placer_replica_report rep = {.size = sizeof rep};
    int k = placer_replicas_ex(s, key, len, set, 5, &rep);
    FUZZ_ASSERT(k >= 1 && k <= 5 && set[0] == (uint32_t)owner && rep.nodes == (uint32_t)k);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < i; j++)
            FUZZ_ASSERT(set[i] != set[j]);
    if (placer_snapshot_strategy(s) != PLACER_RING)
        return;
    for (uint32_t want = 1; want <= 6; want++) {
        uint32_t ref[6], one[6], byh[6], batch_set[6], count;
        uint32_t rn = ref_ring_replicas(s, h, ref, want);
        FUZZ_ASSERT(placer_replicas(s, key, len, one, want) == (int)rn);
        FUZZ_ASSERT(placer_replicas_hash(s, h, byh, want, NULL) == (int)rn);
        FUZZ_ASSERT(placer_replicas_batch(s, keys, &len, 1, want, batch_set, &count) == 0);
        FUZZ_ASSERT(count == rn);
        for (uint32_t i = 0; i < rn; i++)
            FUZZ_ASSERT(one[i] == ref[i] && byh[i] == ref[i] && batch_set[i] == ref[i]);
    }
    /* a position at a token, or one before or after it (h picks which):
     * ties on the line's 16 bits and the ring's last line, where the
     * walk's windows hand over to the slot's walk */
    uint64_t tok;
    uint32_t tok_owner;
    FUZZ_ASSERT(placer_token_at(s, (uint32_t)(h % placer_token_count(s)), &tok, &tok_owner) == 0);
    uint64_t at = tok + (h >> 62) % 3 - 1;
    for (uint32_t want = 1; want <= 6; want++) {
        uint32_t ref[6], byh[6];
        uint32_t rn = ref_ring_replicas(s, at, ref, want);
        FUZZ_ASSERT(placer_replicas_hash(s, at, byh, want, NULL) == (int)rn);
        FUZZ_ASSERT(memcmp(byh, ref, rn * sizeof *ref) == 0);
    }
}

/* Every key and a 32-byte copy of it (the fused batch's constant-length
 * hash), batched: each set equal to ref_ring_replicas. */
static void check_ring_batch(const placer_snapshot *s, const void *const *keys,
                             const size_t *lens, size_t n)
{
    enum { MAXB = 2 * (MAX_KEYS + 6) };
    unsigned char wide[MAXB / 2][32];
    const void *all[MAXB];
    size_t all_lens[MAXB], m = 0;
    for (size_t i = 0; i < n; i++) {
        memset(wide[i], 0, 32);
        memcpy(wide[i], keys[i], lens[i] < 32 ? lens[i] : 32);
        all[m] = keys[i];
        all_lens[m++] = lens[i];
        all[m] = wide[i];
        all_lens[m++] = 32;
    }
    for (uint32_t want = 1; want <= 5; want++) {
        uint32_t sets[MAXB * 5], counts[MAXB], ref[5];
        FUZZ_ASSERT(placer_replicas_batch(s, all, all_lens, m, want, sets, counts) == 0);
        for (size_t i = 0; i < m; i++) {
            uint32_t rn = ref_ring_replicas(s, placer_snapshot_hash(s, all[i], all_lens[i]), ref, want);
            FUZZ_ASSERT(counts[i] == rn && memcmp(sets + i * want, ref, rn * sizeof *ref) == 0);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    /* The kernels of one CPU level (chosen when the snapshot is built),
     * picked by a checksum of the input so that its bytes keep their
     * meaning: the widest the machine has, AVX2, SSE4.2 or none (the
     * portable ones). */
    static const unsigned levels[] = {~0u, PLACER_CPU_AVX2 | PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL,
                                      PLACER_CPU_SSE42 | PLACER_CPU_PCLMUL, 0u};
    placer_set_cpu_mask(levels[placer_crc32(0, data, size) % 4]);
    placer_snapshot *s = membership(&p);
    if (!s) {
        placer_set_cpu_mask(~0u);
        return 0;
    }
    placer_move *m = NULL;
    size_t nm = 0;
    int derr = placer_diff_transition(s, &m, &nm);
    int strategy = placer_snapshot_strategy(s);
    FUZZ_ASSERT(derr == ((strategy == PLACER_JUMP || strategy == PLACER_RENDEZVOUS) ? PLACER_ENOTSUP : 0));
    if (derr)
        nm = (size_t)-1; /* no ranges to compare with */
    char fixed[6][16];
    const void *keys[MAX_KEYS + 6];
    size_t lens[MAX_KEYS + 6], nkeys = 0;
    for (int q = 0; q < 6; q++) {
        int len = snprintf(fixed[q], sizeof fixed[q], "k%d", q);
        check_key(s, derr ? NULL : m, nm, fixed[q], (size_t)len);
        keys[nkeys] = fixed[q];
        lens[nkeys++] = (size_t)len;
    }
    for (int q = 0; p.size && q < MAX_KEYS; q++) {
        size_t len;
        const uint8_t *key = fuzz_bytes(&p, fuzz_u8(&p) % 40, &len);
        check_key(s, derr ? NULL : m, nm, key, len);
        keys[nkeys] = key;
        lens[nkeys++] = len;
    }
    if (strategy == PLACER_RING)
        check_ring_batch(s, keys, lens, nkeys);
    placer_moves_free(m);
    placer_snapshot_free(s);
    placer_set_cpu_mask(~0u);
    return 0;
}
