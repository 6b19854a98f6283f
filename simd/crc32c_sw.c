/*
 * crc32c_sw.c -- CRC-32C on any CPU: slicing-by-8 (Intel's table method,
 * eight bytes per step), and the software twin of placer_hash64.
 */
#include "crc32c.h"
#include "load.h"

uint32_t plc_crc32c_sw_u64(uint32_t crc, uint64_t w)
{
    const uint32_t(*t)[256] = plc_crc32c_slice;
    w ^= crc;
    return t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^
           t[4][(w >> 24) & 0xff] ^ t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
           t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
}

uint32_t plc_crc32c_sw(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (len >= 8) {
        c = plc_crc32c_sw_u64(c, plc_load64le(p));
        p += 8;
        len -= 8;
    }
    while (len--)
        c = (c >> 8) ^ plc_crc32c_slice[0][(c ^ *p++) & 0xff];
    return ~c;
}

#define PLC_HASH64_NAME plc_hash64_sw
#define PLC_HASH64_BATCH_NAME plc_hash64_batch_sw
#define PLC_HASH64_STEP plc_crc32c_sw_u64
#define PLC_HASH64_KEYED_NAME plc_hash_v1_sw
#define PLC_HASH64_KEYED_BATCH_NAME plc_hash_v1_batch_sw
#include "hash64_body.h"

#define PLC_HASH64_V2_NAME plc_hash64_v2_sw
#define PLC_HASH64_V2_BATCH_NAME plc_hash64_v2_batch_sw
#define PLC_HASH64_V2_KEYED_NAME plc_hash_v2_sw
#define PLC_HASH64_V2_KEYED_BATCH_NAME plc_hash_v2_batch_sw
#include "hash64_v2_body.h"
