/*
 * strategy_dx.c -- DxHash (Dong and Wang, 2023) over a power-of-two
 * capacity of buckets (bucket_history.c keeps the buckets and the order of
 * removals, which decides the bucket the next node gets).
 *
 * The paper's rule: a key's pseudo-random sequence of buckets (draw i of
 * the key, masked to the capacity) is probed until a working bucket is
 * found. Removing a bucket moves only its keys (to the next working one of
 * their sequences); adding one takes, from every other bucket, only the
 * keys whose sequences reach it first. The answer depends on the set of
 * working buckets alone. After PROBES misses (probability (1 - w/a)^64)
 * the key takes the first working bucket after its last probe, cyclically:
 * that keeps both properties and bounds the work when few buckets work.
 * Expected probes: a / w.
 *
 * Memory: the bucket -> node table, the history and the working list: 8
 * bytes per bucket of capacity.
 */
#include <math.h>

#include "bucket_hash.h"
#include "bucket_history.h"

#define PROBES 64u

static size_t dx_aux_words(uint32_t n, uint32_t nhist)
{
    (void)n;
    (void)nhist;
    return 0;
}

static int dx_aux_fill(const plc_bhist *h, uint32_t *aux, uint32_t *mask)
{
    (void)aux;
    *mask = h->n - 1;
    return 0;
}

static uint32_t dx_bucket(const plc_bhist *h, uint64_t pos)
{
    const uint32_t *own = h->own, mask = h->mask;
    uint32_t b = 0;
    for (uint32_t i = 0; i < PROBES; i++) {
        b = (uint32_t)(plc_draw(pos, i) >> 32) & mask;
        if (own[b] != PLC_NO_NODE)
            return b;
    }
    do
        b = (b + 1) & mask;
    while (own[b] == PLC_NO_NODE);
    return b;
}

static uint32_t dx_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_bhist *st = plc_bhist_of(s, target);
    return st->own[dx_bucket(st, h)];
}

/* placer_lookup_hash and placer_lookup without the ops' owner call: the
 * probes end on a bucket in use (every snapshot has one: builds refuse a
 * placement without, the decoder a table without), whose node is never
 * PLC_NO_NODE, so no PLACER_ENOLIVE test. */
static int dx_lookup_hash(const placer_snapshot *s, uint64_t pos)
{
    const plc_bhist *st = s->bh;
    return (int)st->own[dx_bucket(st, pos)];
}

static int dx_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    return dx_lookup_hash(s, s->hash(&s->hkey, key, len));
}

/* The keys in waves, one probe each per wave: probe i of every key still
 * looking, the keys that missed compacted without a branch for probe
 * i + 1, so the draws of many keys overlap and no probe's outcome is a
 * branch; the few keys left after PROBES waves walk as dx_bucket does. */
static void dx_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                           uint32_t *owners)
{
    const plc_bhist *st = s->bh;
    const uint32_t *own = st->own, mask = st->mask;
    uint32_t b[64];
    uint8_t live[64];
    for (size_t at = 0; at < n; at += 64) {
        uint32_t m = n - at < 64 ? (uint32_t)(n - at) : 64, k = m;
        const uint64_t *pos = h + at;
        for (uint32_t j = 0; j < m; j++)
            live[j] = (uint8_t)j;
        for (uint32_t i = 0; i < PROBES && k; i++) {
            uint32_t left = 0;
            for (uint32_t t = 0; t < k; t++) {
                uint32_t j = live[t];
                b[j] = (uint32_t)(plc_draw(pos[j], i) >> 32) & mask;
                live[left] = (uint8_t)j;
                left += own[b[j]] == PLC_NO_NODE;
            }
            k = left;
        }
        for (uint32_t t = 0; t < k; t++) {
            uint32_t j = live[t];
            do
                b[j] = (b[j] + 1) & mask;
            while (own[b[j]] == PLC_NO_NODE);
        }
        for (uint32_t j = 0; j < m; j++)
            owners[at + j] = own[b[j]];
    }
}

/* The scan reads the owners in order: a step is a line of them. */
#define SCAN_STEP 16u /* owners (u32) a 64-byte line */

/* The probes and scan steps of pos, for tests. */
static uint64_t dx_steps(const plc_bhist *h, uint64_t pos)
{
    uint32_t b = 0;
    for (uint32_t i = 0; i < PROBES; i++) {
        b = (uint32_t)(plc_draw(pos, i) >> 32) & h->mask;
        if (h->own[b] != PLC_NO_NODE)
            return i + 1;
    }
    uint64_t scanned = 0;
    do
        b = (b + 1) & h->mask, scanned++;
    while (h->own[b] == PLC_NO_NODE);
    return PROBES + (scanned + SCAN_STEP - 1) / SCAN_STEP;
}

/* PROBES, and the longest run of removed buckets (cyclically, in lines of
 * SCAN_STEP owners) when a random key reaches the scan with a probability
 * of 2^-20 or more ((1 - w/n)^PROBES >= 2^-20: w/n at most 0.195). A
 * layout the builder makes afresh (w/n above 1/4: the capacity is the
 * power of two at least twice the buckets) is never counted, though its
 * working buckets are 0 .. w-1 and its holes one run: a key found by
 * trying 2^20 or more reaches that scan, at most n / SCAN_STEP lines. */
static uint64_t dx_walk(const plc_bhist *h, uint32_t *scratch)
{
    (void)scratch;
    uint32_t n = h->n, w = n - h->nhist;
    if ((double)PROBES * log2(1.0 - (double)w / n) < -20.0)
        return PROBES;
    uint64_t run = 0, worst = 0, lead = 0;
    for (uint32_t b = 0; b < n; b++) {
        run = h->own[b] == PLC_NO_NODE ? run + 1 : 0;
        lead += run == b + 1; /* the holes at the start, joined to those at the end */
        worst = run > worst ? run : worst;
    }
    worst = run + lead > worst ? run + lead : worst;
    return PROBES + ((worst < n ? worst : n) + 1 + SCAN_STEP - 1) / SCAN_STEP;
}

static const plc_bhist_rules rules = {
    .strategy = PLACER_DX,
    .fixed = 1,
    .pow2 = 1,
    .any_add = 1,
    .aux_words = dx_aux_words,
    .aux_fill = dx_aux_fill,
    .bucket = dx_bucket,
    .walk = dx_walk,
    .steps = dx_steps,
};

const plc_strategy_ops plc_dx_ops = {
    .id = PLACER_DX,
    .name = "dx",
    .key_hashes = PLC_PLACER_HASHES,
    .options = PLACER_OPTION_TOKENS | PLACER_OPTION_PREVIOUS | PLACER_OPTION_CAPACITY,
    .traits = PLACER_TRAIT_BUCKETS | PLACER_TRAIT_HISTORY,
    /* def 0: twice the first build's buckets, at least 64 (placer.h) */
    .capacity = {1, PLACER_MAX_TOKENS, 0, 0, "capacity"},
    .build = plc_bhist_build,
    .lookup = dx_lookup,
    .lookup_hash = dx_lookup_hash,
    .lookup_batch = plc_lookup_batch_by_hash,
    .owner = dx_owner,
    .owner_batch = dx_owner_batch,
    .replicas = plc_bhist_replicas,
    .encode_sections = plc_bhist_encode_sections,
    .encode_section = plc_bhist_encode_section,
    .decode_sections = plc_bhist_decode_sections,
    .decode_check = plc_bhist_decode_check,
    .decode_build = plc_bhist_decode_build,
    .token_count = plc_bhist_token_count,
    .token_at = plc_bhist_token_at,
    .module = &rules,
};
