/* strict_u64.c -- placer_parse_u64 (placer_control.h): the one strict
 * number parser of membership files, etcd manifests and the command line. */
#include "placer_control.h"

static int digit_value(char c, unsigned base)
{
    unsigned v;
    if (c >= '0' && c <= '9')
        v = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
        v = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
        v = (unsigned)(c - 'A' + 10);
    else
        return -1;
    return v < base ? (int)v : -1;
}

int placer_parse_u64(const char *text, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !len)
        return PLACER_EFORMAT;
    unsigned base = 10;
    size_t i = 0;
    if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len > 1 && text[0] == '0') {
        return PLACER_EFORMAT; /* octal in C's eyes, decimal in a reader's: neither */
    }
    uint64_t v = 0;
    int overflow = 0;
    for (; i < len; i++) {
        int d = digit_value(text[i], base);
        if (d < 0)
            return PLACER_EFORMAT;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            overflow = 1; /* keep scanning: a bad character still wins */
        else
            v = v * base + (uint64_t)d;
    }
    if (overflow || v < min || v > max)
        return PLACER_ERANGE;
    *out = v;
    return 0;
}

const char *placer_parse_u64_reason(const char *text, size_t len, int err)
{
    if (err == PLACER_ERANGE)
        return "out of range";
    if (!len)
        return "empty, expected an unsigned integer";
    if (text[0] == '-' || text[0] == '+')
        return "a sign is not allowed, expected an unsigned integer";
    if (len > 1 && text[0] == '0' && text[1] != 'x' && text[1] != 'X')
        return "a leading zero is not allowed (no octal; hex is 0x...)";
    return "expected an unsigned integer: decimal digits, or 0x and hex digits";
}
