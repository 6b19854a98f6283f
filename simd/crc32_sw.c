/* crc32_sw.c -- IEEE CRC-32 with slicing-by-8 tables. */
#include "crc32.h"
#include "load.h"

uint32_t plc_crc32_slice[8][256];

uint32_t plc_crc32_sw_raw(uint32_t c, const unsigned char *p, size_t n)
{
    const uint32_t(*t)[256] = plc_crc32_slice;
    while (n >= 8) {
        uint64_t w = plc_load64le(p) ^ c;
        c = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^
            t[4][(w >> 24) & 0xff] ^ t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
            t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
    return c;
}

uint32_t plc_crc32_sw(uint32_t crc, const void *data, size_t len)
{
    return ~plc_crc32_sw_raw(~crc, data, len);
}
