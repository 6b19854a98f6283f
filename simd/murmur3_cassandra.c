/* murmur3_cassandra.c -- see murmur3_cassandra.h. */
#include "murmur3_cassandra.h"

static uint64_t rotl64(uint64_t v, unsigned n)
{
    return (v << n) | (v >> (64 - n));
}

static uint64_t fmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return k;
}

/* a block's 8 bytes, little-endian and unsigned (getblock masks with 0xff) */
static uint64_t block(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* (long) key.get(i): the byte sign-extended to 64 bits */
static uint64_t widened(unsigned char b)
{
    return (uint64_t)(int64_t)(int8_t)b;
}

uint64_t plc_murmur3_cassandra(const void *key, size_t len)
{
    const unsigned char *p = key;
    const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
    uint64_t h1 = 0, h2 = 0;
    size_t blocks = len / 16;
    for (size_t i = 0; i < blocks; i++, p += 16) {
        uint64_t k1 = block(p), k2 = block(p + 8);
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    size_t tail = len & 15;
    uint64_t k1 = 0, k2 = 0;
    for (size_t i = tail; i > 8; i--) /* bytes 8..14 into k2, highest first */
        k2 ^= widened(p[i - 1]) << (8 * (i - 9));
    if (tail > 8) {
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
    }
    for (size_t i = tail < 8 ? tail : 8; i > 0; i--) /* bytes 0..7 into k1 */
        k1 ^= widened(p[i - 1]) << (8 * (i - 1));
    if (tail) {
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    return h1;
}

uint64_t plc_hash_cassandra(const plc_hash_key *k, const void *key, size_t len)
{
    (void)k;
    const uint64_t sign = (uint64_t)1 << 63;
    if (!len) /* the partitioner's MINIMUM token: the lowest position */
        return 0;
    uint64_t t = plc_murmur3_cassandra(key, len);
    if (t == sign) /* normalize(): Long.MIN_VALUE is reserved for MINIMUM */
        t = sign - 1;
    return t ^ sign;
}

void plc_hash_cassandra_batch(const plc_hash_key *k, const void *const *keys, const size_t *lens,
                              size_t n, uint64_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_hash_cassandra(k, keys[i], lens[i]);
}
