/*
 * crc32c_tables.c -- the tables of both CRC-32C paths, and IEEE CRC-32's
 * slicing tables, built once.
 *
 * The shift tables make the three-stream hardware path possible: streams 1
 * and 2 start from a zero register, so the CRC of s0 s1 s2 is
 * shift(shift(c0) ^ c1) ^ c2, where shift multiplies the register by
 * x^(8 * block length) mod P (zlib's crc32_combine, done with four table
 * lookups instead of a GF(2) multiply).
 */
#include "crc32.h"
#include "crc32c.h"

uint32_t plc_crc32c_slice[8][256];
uint32_t plc_crc32c_shift_long[4][256];
uint32_t plc_crc32c_shift_short[4][256];

uint32_t plc_crc32c_multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                break;
        }
        m >>= 1;
        b = (b & 1) ? (b >> 1) ^ PLC_CRC32C_POLY : b >> 1;
    }
    return p;
}

uint32_t plc_crc32c_x8nmodp(uint64_t nbytes)
{
    /* x^(2^k) mod P for k = 3.. (2^3 bits = one byte), squared as we go. */
    uint32_t x2k = 1u << 30; /* x^1 */
    for (int k = 0; k < 3; k++)
        x2k = plc_crc32c_multmodp(x2k, x2k);
    uint32_t p = 1u << 31; /* x^0 */
    while (nbytes) {
        if (nbytes & 1)
            p = plc_crc32c_multmodp(x2k, p);
        x2k = plc_crc32c_multmodp(x2k, x2k);
        nbytes >>= 1;
    }
    return p;
}

static void shift_table(uint32_t t[4][256], uint32_t op)
{
    for (int k = 0; k < 4; k++)
        for (uint32_t v = 0; v < 256; v++)
            t[k][v] = plc_crc32c_multmodp(op, v << (8 * k));
}

/* Slicing-by-8 tables of a reflected polynomial: t[0] is the byte-wise
 * table, t[k] advances t[k-1] by one more zero byte. */
static void slicing_tables(uint32_t t[8][256], uint32_t poly)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
        t[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int k = 1; k < 8; k++)
            t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xff];
}

void plc_crc32c_tables_init(void)
{
    slicing_tables(plc_crc32c_slice, PLC_CRC32C_POLY);
    slicing_tables(plc_crc32_slice, PLC_CRC32_POLY);
    shift_table(plc_crc32c_shift_long, plc_crc32c_x8nmodp(PLC_CRC32C_LONG));
    shift_table(plc_crc32c_shift_short, plc_crc32c_x8nmodp(PLC_CRC32C_SHORT));
}
