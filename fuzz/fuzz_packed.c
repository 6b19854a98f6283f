/*
 * fuzz_packed.c -- differential: the packed batches (keys in one buffer,
 * n + 1 offsets) against the unpacked batches and single calls, on a
 * snapshot of a strategy and node count from the input. Offsets come from
 * the input and may decrease, start past 0 or run to the buffer's end: a
 * decreasing set must be refused with PLACER_EINVAL and nothing written;
 * any other must give, key for key, what placer_lookup_batch,
 * placer_replicas_batch and placer_lookup give.
 *
 * Input: strategy (1 byte), nodes (1), keys (1), want (1), then one signed
 * offset step per key (1 byte each: -128 .. 127, applied from offset 0 and
 * clamped into the buffer), then the bytes the keys are read from.
 */
#include "placer.h"
#include "fuzz.h"

enum { MAX_KEYS = 40, MAX_WANT = 4 };

static placer_snapshot *build(int strategy, unsigned nodes)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return NULL;
    placer_builder_set_strategy(b, strategy);
    if (strategy == PLACER_RING)
        placer_builder_set_vnodes(b, 16);
    /* small tables: the build is per input, the batches are what is fuzzed */
    if (strategy == PLACER_MAGLEV)
        placer_builder_set_partitions(b, 251);
    if (strategy == PLACER_PARTITIONS)
        placer_builder_set_partitions(b, 64);
    char id[16], zone[16];
    for (unsigned i = 0; i < nodes; i++) {
        snprintf(id, sizeof id, "n%u", i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_snapshot *s = NULL;
    int err = placer_builder_build(b, 1, &s);
    placer_builder_free(b);
    FUZZ_ASSERT(err == 0 || err == PLACER_ENOMEM);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    int strategy = PLACER_RING + fuzz_u8(&p) % 5;
    unsigned nodes = 1 + fuzz_u8(&p) % 16;
    size_t n = fuzz_u8(&p) % (MAX_KEYS + 1);
    uint32_t want = fuzz_u8(&p) % (MAX_WANT + 1);
    int8_t steps[MAX_KEYS];
    for (size_t i = 0; i < n; i++)
        steps[i] = (int8_t)fuzz_u8(&p);
    const uint8_t *buf = p.data;
    size_t len = p.size;

    uint64_t offsets[MAX_KEYS + 1];
    int decreasing = 0;
    offsets[0] = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t next = (int64_t)offsets[i] + steps[i];
        if (next < 0)
            next = 0;
        if ((uint64_t)next > len)
            next = (int64_t)len;
        decreasing |= (uint64_t)next < offsets[i];
        offsets[i + 1] = (uint64_t)next;
    }

    placer_snapshot *s = build(strategy, nodes);
    if (!s)
        return 0;
    uint32_t got[MAX_KEYS], expect[MAX_KEYS];
    uint32_t rgot[MAX_KEYS * MAX_WANT], rexpect[MAX_KEYS * MAX_WANT];
    uint32_t cgot[MAX_KEYS], cexpect[MAX_KEYS];
    for (size_t i = 0; i < n; i++)
        got[i] = cgot[i] = 0xdeadbeef;
    int err = placer_lookup_batch_packed(s, buf, offsets, n, got);
    int rerr = placer_replicas_batch_packed(s, buf, offsets, n, want, rgot, cgot);
    if (decreasing) {
        FUZZ_ASSERT(err == PLACER_EINVAL && rerr == PLACER_EINVAL);
        for (size_t i = 0; i < n; i++)
            FUZZ_ASSERT(got[i] == 0xdeadbeef && cgot[i] == 0xdeadbeef);
        placer_snapshot_free(s);
        return 0;
    }
    FUZZ_ASSERT(err == 0 && rerr == 0);
    const void *keys[MAX_KEYS];
    size_t lens[MAX_KEYS];
    for (size_t i = 0; i < n; i++) {
        keys[i] = buf + offsets[i];
        lens[i] = (size_t)(offsets[i + 1] - offsets[i]);
    }
    FUZZ_ASSERT(placer_lookup_batch(s, keys, lens, n, expect) == 0);
    FUZZ_ASSERT(placer_replicas_batch(s, keys, lens, n, want, rexpect, cexpect) == 0);
    for (size_t i = 0; i < n; i++) {
        int one = placer_lookup(s, keys[i], lens[i]);
        FUZZ_ASSERT(got[i] == expect[i]);
        FUZZ_ASSERT(got[i] == (one < 0 ? PLACER_NO_NODE : (uint32_t)one));
        FUZZ_ASSERT(cgot[i] == cexpect[i] && cgot[i] <= want);
        for (uint32_t j = 0; j < cgot[i]; j++)
            FUZZ_ASSERT(rgot[i * want + j] == rexpect[i * want + j]);
    }
    placer_snapshot_free(s);
    return 0;
}
