/*
 * compat_hash.c -- the key hashes of libmemcached/libhashkit, twemproxy,
 * nginx, haproxy and Redis, written from their rules (see docs/COMPAT.md).
 *
 * The quirks are the point: libhashkit and twemproxy read keys as plain
 * (signed) char, so one_at_a_time, the four FNVs and hsieh's 3-byte tail
 * sign-extend bytes above 0x7f; twemproxy's crc16 never masks its register
 * to 16 bits; the libmemcached "crc" is 15 bits of the IEEE CRC-32; jenkins
 * starts from 0xdeadbeef + len + 13; murmur seeds with 0xdeadbeef * len.
 * haproxy's wt6 rotates by 0 where its C shifts by 32 (x86 masks the count).
 * MD5 comes from Nettle (a well-kept library with an x86-64 assembly core).
 */
#include "compat_hash.h"

#include <nettle/md5.h>
#include <string.h>

#include "placer.h"

/* A byte as the programs' (signed) char converts to uint32_t / uint64_t. */
static inline uint32_t sx32(unsigned char c)
{
    return (uint32_t)(int32_t)(signed char)c;
}

static inline uint64_t sx64(unsigned char c)
{
    return (uint64_t)(int64_t)(signed char)c;
}

static inline uint32_t rotl32(uint32_t x, unsigned k)
{
    k &= 31u;
    return k ? (x << k) | (x >> (32u - k)) : x;
}

static inline uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void plc_compat_md5(const void *key, size_t len, unsigned char digest[16])
{
    struct md5_ctx ctx;
    md5_init(&ctx);
    if (len)
        md5_update(&ctx, len, key);
    md5_digest(&ctx, MD5_DIGEST_SIZE, digest);
}

uint32_t plc_hash_md5(const void *key, size_t len)
{
    unsigned char d[16];
    plc_compat_md5(key, len, d);
    return load_le32(d);
}

uint32_t plc_hash_one_at_a_time(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        v += sx32(p[i]);
        v += v << 10;
        v ^= v >> 6;
    }
    v += v << 3;
    v ^= v >> 11;
    v += v << 15;
    return v;
}

const uint16_t plc_crc16_xmodem[256] = {
    0x0000, 0x1021, 0x2042, 0x3063, 0x4084, 0x50a5, 0x60c6, 0x70e7,
    0x8108, 0x9129, 0xa14a, 0xb16b, 0xc18c, 0xd1ad, 0xe1ce, 0xf1ef,
    0x1231, 0x0210, 0x3273, 0x2252, 0x52b5, 0x4294, 0x72f7, 0x62d6,
    0x9339, 0x8318, 0xb37b, 0xa35a, 0xd3bd, 0xc39c, 0xf3ff, 0xe3de,
    0x2462, 0x3443, 0x0420, 0x1401, 0x64e6, 0x74c7, 0x44a4, 0x5485,
    0xa56a, 0xb54b, 0x8528, 0x9509, 0xe5ee, 0xf5cf, 0xc5ac, 0xd58d,
    0x3653, 0x2672, 0x1611, 0x0630, 0x76d7, 0x66f6, 0x5695, 0x46b4,
    0xb75b, 0xa77a, 0x9719, 0x8738, 0xf7df, 0xe7fe, 0xd79d, 0xc7bc,
    0x48c4, 0x58e5, 0x6886, 0x78a7, 0x0840, 0x1861, 0x2802, 0x3823,
    0xc9cc, 0xd9ed, 0xe98e, 0xf9af, 0x8948, 0x9969, 0xa90a, 0xb92b,
    0x5af5, 0x4ad4, 0x7ab7, 0x6a96, 0x1a71, 0x0a50, 0x3a33, 0x2a12,
    0xdbfd, 0xcbdc, 0xfbbf, 0xeb9e, 0x9b79, 0x8b58, 0xbb3b, 0xab1a,
    0x6ca6, 0x7c87, 0x4ce4, 0x5cc5, 0x2c22, 0x3c03, 0x0c60, 0x1c41,
    0xedae, 0xfd8f, 0xcdec, 0xddcd, 0xad2a, 0xbd0b, 0x8d68, 0x9d49,
    0x7e97, 0x6eb6, 0x5ed5, 0x4ef4, 0x3e13, 0x2e32, 0x1e51, 0x0e70,
    0xff9f, 0xefbe, 0xdfdd, 0xcffc, 0xbf1b, 0xaf3a, 0x9f59, 0x8f78,
    0x9188, 0x81a9, 0xb1ca, 0xa1eb, 0xd10c, 0xc12d, 0xf14e, 0xe16f,
    0x1080, 0x00a1, 0x30c2, 0x20e3, 0x5004, 0x4025, 0x7046, 0x6067,
    0x83b9, 0x9398, 0xa3fb, 0xb3da, 0xc33d, 0xd31c, 0xe37f, 0xf35e,
    0x02b1, 0x1290, 0x22f3, 0x32d2, 0x4235, 0x5214, 0x6277, 0x7256,
    0xb5ea, 0xa5cb, 0x95a8, 0x8589, 0xf56e, 0xe54f, 0xd52c, 0xc50d,
    0x34e2, 0x24c3, 0x14a0, 0x0481, 0x7466, 0x6447, 0x5424, 0x4405,
    0xa7db, 0xb7fa, 0x8799, 0x97b8, 0xe75f, 0xf77e, 0xc71d, 0xd73c,
    0x26d3, 0x36f2, 0x0691, 0x16b0, 0x6657, 0x7676, 0x4615, 0x5634,
    0xd94c, 0xc96d, 0xf90e, 0xe92f, 0x99c8, 0x89e9, 0xb98a, 0xa9ab,
    0x5844, 0x4865, 0x7806, 0x6827, 0x18c0, 0x08e1, 0x3882, 0x28a3,
    0xcb7d, 0xdb5c, 0xeb3f, 0xfb1e, 0x8bf9, 0x9bd8, 0xabbb, 0xbb9a,
    0x4a75, 0x5a54, 0x6a37, 0x7a16, 0x0af1, 0x1ad0, 0x2ab3, 0x3a92,
    0xfd2e, 0xed0f, 0xdd6c, 0xcd4d, 0xbdaa, 0xad8b, 0x9de8, 0x8dc9,
    0x7c26, 0x6c07, 0x5c64, 0x4c45, 0x3ca2, 0x2c83, 0x1ce0, 0x0cc1,
    0xef1f, 0xff3e, 0xcf5d, 0xdf7c, 0xaf9b, 0xbfba, 0x8fd9, 0x9ff8,
    0x6e17, 0x7e36, 0x4e55, 0x5e74, 0x2e93, 0x3eb2, 0x0ed1, 0x1ef0,
};

uint32_t plc_hash_crc16_twemproxy(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t crc = 0; /* never masked: bits above 15 pile up, as in nc_crc16.c */
    for (size_t i = 0; i < len; i++)
        crc = (crc << 8) ^ plc_crc16_xmodem[((crc >> 8) ^ p[i]) & 0xffu];
    return crc;
}

uint32_t plc_hash_redis_crc16(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = ((crc << 8) ^ plc_crc16_xmodem[((crc >> 8) ^ p[i]) & 0xffu]) & 0xffffu;
    return crc;
}

uint32_t plc_hash_crc32_ieee(const void *key, size_t len)
{
    return placer_crc32(0, key, len);
}

uint32_t plc_hash_crc32_15(const void *key, size_t len)
{
    return (placer_crc32(0, key, len) >> 16) & 0x7fffu;
}

#define FNV_64_INIT UINT64_C(0xcbf29ce484222325)
#define FNV_64_PRIME UINT64_C(0x100000001b3)
#define FNV_32_INIT UINT32_C(2166136261)
#define FNV_32_PRIME UINT32_C(16777619)

uint32_t plc_hash_fnv1_64(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = FNV_64_INIT;
    for (size_t i = 0; i < len; i++) {
        h *= FNV_64_PRIME;
        h ^= sx64(p[i]);
    }
    return (uint32_t)h;
}

/* Despite its name, 32-bit arithmetic with the 64-bit constants truncated. */
uint32_t plc_hash_fnv1a_64(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = (uint32_t)FNV_64_INIT;
    for (size_t i = 0; i < len; i++) {
        h ^= sx32(p[i]);
        h *= (uint32_t)FNV_64_PRIME;
    }
    return h;
}

uint32_t plc_hash_fnv1_32(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = FNV_32_INIT;
    for (size_t i = 0; i < len; i++) {
        h *= FNV_32_PRIME;
        h ^= sx32(p[i]);
    }
    return h;
}

uint32_t plc_hash_fnv1a_32(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = FNV_32_INIT;
    for (size_t i = 0; i < len; i++) {
        h ^= sx32(p[i]);
        h *= FNV_32_PRIME;
    }
    return h;
}

static inline uint32_t get16(const unsigned char *p)
{
    return (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

uint32_t plc_hash_hsieh(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = 0, tmp;
    if (len == 0)
        return 0;
    size_t rem = len & 3u;
    for (size_t n = len >> 2; n > 0; n--) {
        h += get16(p);
        tmp = (get16(p + 2) << 11) ^ h;
        h = (h << 16) ^ tmp;
        p += 4;
        h += h >> 11;
    }
    switch (rem) {
    case 3:
        h += get16(p);
        h ^= h << 16;
        h ^= sx32(p[2]) << 18; /* (uint32_t)key[2] on a signed char */
        h += h >> 11;
        break;
    case 2:
        h += get16(p);
        h ^= h << 11;
        h += h >> 17;
        break;
    case 1:
        h += p[0];
        h ^= h << 10;
        h += h >> 1;
        break;
    default:
        break;
    }
    h ^= h << 3;
    h += h >> 5;
    h ^= h << 4;
    h += h >> 17;
    h ^= h << 25;
    h += h >> 6;
    return h;
}

uint32_t plc_hash_murmur(const void *key, size_t len)
{
    return plc_murmur2(0xdeadbeefu * (uint32_t)len, key, len);
}

uint32_t plc_murmur2(uint32_t seed, const void *key, size_t len)
{
    const unsigned char *p = key;
    const uint32_t m = 0x5bd1e995u;
    uint32_t h = seed ^ (uint32_t)len;
    while (len >= 4) {
        uint32_t k = load_le32(p);
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
        p += 4;
        len -= 4;
    }
    switch (len) {
    case 3:
        h ^= (uint32_t)p[2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)p[1] << 8;
        /* fall through */
    case 1:
        h ^= p[0];
        h *= m;
        break;
    default:
        break;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

#define JMIX(a, b, c)                                                                             \
    do {                                                                                          \
        a -= c; a ^= rotl32(c, 4); c += b;                                                        \
        b -= a; b ^= rotl32(a, 6); a += c;                                                        \
        c -= b; c ^= rotl32(b, 8); b += a;                                                        \
        a -= c; a ^= rotl32(c, 16); c += b;                                                       \
        b -= a; b ^= rotl32(a, 19); a += c;                                                       \
        c -= b; c ^= rotl32(b, 4); b += a;                                                        \
    } while (0)

#define JFINAL(a, b, c)                                                                           \
    do {                                                                                          \
        c ^= b; c -= rotl32(b, 14);                                                               \
        a ^= c; a -= rotl32(c, 11);                                                               \
        b ^= a; b -= rotl32(a, 25);                                                               \
        c ^= b; c -= rotl32(b, 16);                                                               \
        a ^= c; a -= rotl32(c, 4);                                                                \
        b ^= a; b -= rotl32(a, 14);                                                               \
        c ^= b; c -= rotl32(b, 24);                                                               \
    } while (0)

/* Bob Jenkins' lookup3 hashlittle() with initval 13 (JENKINS_INITVAL). */
uint32_t plc_hash_jenkins(const void *key, size_t len)
{
    const unsigned char *k = key;
    uint32_t a, b, c;
    a = b = c = 0xdeadbeefu + (uint32_t)len + 13u;
    if (len == 0)
        return c;
    while (len > 12) {
        a += load_le32(k);
        b += load_le32(k + 4);
        c += load_le32(k + 8);
        JMIX(a, b, c);
        len -= 12;
        k += 12;
    }
    switch (len) {
    case 12: c += (uint32_t)k[11] << 24; /* fall through */
    case 11: c += (uint32_t)k[10] << 16; /* fall through */
    case 10: c += (uint32_t)k[9] << 8;   /* fall through */
    case 9: c += k[8];                   /* fall through */
    case 8: b += (uint32_t)k[7] << 24;   /* fall through */
    case 7: b += (uint32_t)k[6] << 16;   /* fall through */
    case 6: b += (uint32_t)k[5] << 8;    /* fall through */
    case 5: b += k[4];                   /* fall through */
    case 4: a += (uint32_t)k[3] << 24;   /* fall through */
    case 3: a += (uint32_t)k[2] << 16;   /* fall through */
    case 2: a += (uint32_t)k[1] << 8;    /* fall through */
    case 1: a += k[0]; break;
    default: break;
    }
    JFINAL(a, b, c);
    return c;
}

/* MurmurHash3_x86_32 seeded with 0xdeadbeef * len, as libhashkit calls it. */
uint32_t plc_hash_murmur3(const void *key, size_t len)
{
    const unsigned char *p = key;
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = 0xdeadbeefu * (uint32_t)len;
    size_t nblocks = len / 4;
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t k = load_le32(p + 4 * i);
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5u + 0xe6546b64u;
    }
    const unsigned char *tail = p + 4 * nblocks;
    uint32_t k = 0;
    switch (len & 3u) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
        k ^= tail[0];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        break;
    default:
        break;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t plc_hash_sdbm(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = 0;
    for (size_t i = 0; i < len; i++)
        h = p[i] + (h << 6) + (h << 16) - h;
    return h;
}

uint32_t plc_hash_djb2(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = 5381;
    for (size_t i = 0; i < len; i++)
        h = (h << 5) + h + p[i];
    return h;
}

uint32_t plc_hash_wt6(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h0 = 0xa53c965au, h1 = 0x5ca6953au;
    unsigned step0 = 6, step1 = 18;
    for (size_t i = 0; i < len; i++) {
        uint32_t t = p[i];
        h0 = ~(h0 ^ t);
        h1 = ~(h1 + t);
        t = rotl32(h1, step0);
        h1 = rotl32(h0, step1);
        h0 = t;
        t = ((h0 >> 16) ^ h1) & 0xffffu;
        step0 = t & 0x1fu;
        step1 = t >> 11;
    }
    return h0 ^ h1;
}

uint32_t plc_hash_haproxy_source(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint32_t h = 0;
    for (size_t i = 0; i + 4 <= len; i += 4)
        h ^= (uint32_t)p[i] << 24 | (uint32_t)p[i + 1] << 16 | (uint32_t)p[i + 2] << 8 | p[i + 3];
    return h;
}

uint32_t plc_hash_haproxy_full(uint32_t a)
{
    a = (a + 0x7ed55d16u) + (a << 12);
    a = (a ^ 0xc761c23cu) ^ (a >> 19);
    a = (a + 0x165667b1u) + (a << 5);
    a = (a + 0xd3a2646cu) ^ (a << 9);
    a = (a + 0xfd7046c5u) + (a << 3);
    a = (a ^ 0xb55a4f09u) ^ (a >> 16);
    return a * 3221225473u;
}

plc_compat_hash_fn plc_compat_hash_function(int id)
{
    switch (id) {
    case PLC_CH_ONE_AT_A_TIME: return plc_hash_one_at_a_time;
    case PLC_CH_MD5: return plc_hash_md5;
    case PLC_CH_CRC16: return plc_hash_crc16_twemproxy;
    case PLC_CH_CRC32: return plc_hash_crc32_15;
    case PLC_CH_CRC32A: return plc_hash_crc32_ieee;
    case PLC_CH_FNV1_64: return plc_hash_fnv1_64;
    case PLC_CH_FNV1A_64: return plc_hash_fnv1a_64;
    case PLC_CH_FNV1_32: return plc_hash_fnv1_32;
    case PLC_CH_FNV1A_32: return plc_hash_fnv1a_32;
    case PLC_CH_HSIEH: return plc_hash_hsieh;
    case PLC_CH_MURMUR: return plc_hash_murmur;
    case PLC_CH_JENKINS: return plc_hash_jenkins;
    case PLC_CH_MURMUR3: return plc_hash_murmur3;
    case PLC_CH_NGX_CRC32: return plc_hash_crc32_ieee;
    case PLC_CH_HAP_SDBM: return plc_hash_sdbm;
    case PLC_CH_HAP_DJB2: return plc_hash_djb2;
    case PLC_CH_HAP_WT6: return plc_hash_wt6;
    case PLC_CH_HAP_CRC32: return plc_hash_crc32_ieee;
    case PLC_CH_REDIS_CRC16: return plc_hash_redis_crc16;
    case PLC_CH_HAP_SOURCE: return plc_hash_haproxy_source;
    default: return NULL;
    }
}
