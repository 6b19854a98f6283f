/*
 * fuzz_decode.c -- arbitrary bytes into placer_snapshot_decode: never a
 * crash, a leak or undefined behaviour; a rejection is one of the
 * documented errors and leaves *out alone; whatever is accepted encodes
 * back to exactly the same bytes and answers lookups as the plain
 * reference does (tests/reference.c, from the inspection calls alone;
 * the bucket strategies, whose answers need their removal history: a
 * node or PLACER_ENOLIVE). The corpus holds the heaviest shapes of every
 * strategy (heavy-*, written by tests/test_decode_budget.c).
 * Each input is tried twice: as it is, and with its length field and
 * CRC-32C made right, so that mutations reach the checks behind the
 * checksum instead of stopping at it.
 */
#include "fuzz.h"
#include "placer.h"
#include "reference.h"

static void check(const uint8_t *data, size_t size);

/* The strategies ref_owner places from the inspection calls alone; the
 * bucket strategies' answers depend on their removal history, which no
 * inspection call returns (fuzz_bucket_strategies checks those). */
static int ref_covers(int strategy)
{
    return strategy == PLACER_RING || strategy == PLACER_PARTITIONS || strategy == PLACER_JUMP ||
           strategy == PLACER_RENDEZVOUS || strategy == PLACER_MAGLEV || strategy == PLACER_EMULATED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check(data, size);
    if (size >= 64) {
        uint8_t *fixed = malloc(size);
        FUZZ_ASSERT(fixed);
        memcpy(fixed, data, size);
        uint64_t total = size;
        for (int i = 0; i < 8; i++) /* little-endian, as the file, on any host */
            fixed[16 + i] = (uint8_t)(total >> (8 * i));
        uint32_t crc = placer_crc32c(placer_crc32c(0, fixed, 60), fixed + 64, size - 64);
        for (int i = 0; i < 4; i++)
            fixed[60 + i] = (uint8_t)(crc >> (8 * i));
        check(fixed, size);
        free(fixed);
    }
    return 0;
}

static void check(const uint8_t *data, size_t size)
{
    placer_snapshot *s = (placer_snapshot *)(uintptr_t)1; /* must stay untouched on error */
    int err = placer_snapshot_decode(data, size, &s);
    if (err) {
        FUZZ_ASSERT(s == (placer_snapshot *)(uintptr_t)1);
        FUZZ_ASSERT(err == PLACER_EFORMAT || err == PLACER_EVERSION || err == PLACER_ETRUNC ||
                    err == PLACER_ETOOMANY || err == PLACER_ECHECKSUM || err == PLACER_ECORRUPT ||
                    err == PLACER_ENOMEM);
        return;
    }
    void *buf;
    size_t len;
    FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
    FUZZ_ASSERT(len == size && memcmp(buf, data, size) == 0);
    placer_buffer_free(buf);
    for (int q = 0; q < 32; q++) {
        char key[16];
        int kl = snprintf(key, sizeof key, "key-%d", q);
        uint64_t h = placer_snapshot_hash(s, key, (size_t)kl);
        int owner = placer_lookup(s, key, (size_t)kl);
        if (ref_covers(placer_snapshot_strategy(s))) {
            uint32_t ref = ref_owner(s, h);
            FUZZ_ASSERT(ref == PLACER_NO_NODE ? owner == PLACER_ENOLIVE : owner == (int)ref);
        } else { /* memento, anchor, dx, jumpback, binomial: fuzz_bucket_strategies' oracle */
            FUZZ_ASSERT(owner == PLACER_ENOLIVE || (owner >= 0 && (uint32_t)owner < placer_node_count(s)));
        }
        uint32_t set[4];
        int k = placer_replicas(s, key, (size_t)kl, set, 4);
        FUZZ_ASSERT(k >= 0 && k <= 4);
        for (int i = 0; i < k; i++)
            FUZZ_ASSERT(set[i] < placer_node_count(s));
    }
    placer_snapshot_free(s);
}
