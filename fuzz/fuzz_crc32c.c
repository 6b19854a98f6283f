/*
 * fuzz_crc32c.c -- differential: hardware CRC-32C vs software vs the bitwise
 * reference on arbitrary bytes, seeds and split points (chaining), and the
 * hardware vs software placement hash, single and batched.
 *
 * Input: seed (4 bytes), split (2), hash seed (8), then the data.
 */
#include "fuzz.h"
#include "kernels.h"
#include "reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    uint32_t seed = fuzz_u32(&p);
    uint16_t split = fuzz_u16(&p);
    uint64_t hseed = fuzz_u64(&p);
    const uint8_t *buf = p.data;
    size_t n = p.size;

    const plc_kernels *cur = plc_kernels_get(), *sw = plc_kernels_sw();
    uint32_t want = ref_crc32c(seed, buf, n);
    FUZZ_ASSERT(sw->crc32c(seed, buf, n) == want);
    FUZZ_ASSERT(cur->crc32c(seed, buf, n) == want);
    size_t at = n ? split % (n + 1) : 0;
    FUZZ_ASSERT(cur->crc32c(cur->crc32c(seed, buf, at), buf + at, n - at) == want);
    FUZZ_ASSERT(sw->crc32c(sw->crc32c(seed, buf, at), buf + at, n - at) == want);

    uint64_t h = sw->hash64_v1(hseed, buf, n);
    FUZZ_ASSERT(cur->hash64_v1(hseed, buf, n) == h);
    /* The input cut into two keys, hashed as a batch by both paths. */
    const void *keys[2] = {buf, buf + at};
    size_t lens[2] = {at, n - at};
    uint64_t out_sw[2], out_cur[2];
    sw->hash64_v1_batch(hseed, keys, lens, 2, out_sw);
    cur->hash64_v1_batch(hseed, keys, lens, 2, out_cur);
    FUZZ_ASSERT(out_sw[0] == out_cur[0] && out_sw[1] == out_cur[1]);
    FUZZ_ASSERT(out_sw[0] == sw->hash64_v1(hseed, buf, at));
    FUZZ_ASSERT(out_sw[1] == sw->hash64_v1(hseed, buf + at, n - at));

    /* IEEE CRC-32: folding and tables against the bitwise reference. */
    uint32_t want32 = ref_crc32(seed, buf, n);
    FUZZ_ASSERT(sw->crc32(seed, buf, n) == want32);
    FUZZ_ASSERT(cur->crc32(seed, buf, n) == want32);
    FUZZ_ASSERT(cur->crc32(cur->crc32(seed, buf, at), buf + at, n - at) == want32);
    return 0;
}
