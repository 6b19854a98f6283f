/* strict_u64.c -- see strict_u64.h. */
#include "strict_u64.h"

static int digit(char c, unsigned base)
{
    unsigned v = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                 : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                 : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                        : 99u;
    return v < base ? (int)v : -1;
}

int plc_ctl_parse_u64(const char *text, size_t len, uint64_t max, uint64_t *out,
                      const char **reason)
{
    unsigned base = 10;
    size_t i = 0;
    if (!len) {
        *reason = "empty, expected an unsigned integer";
        return -1;
    }
    if (text[0] == '-' || text[0] == '+') {
        *reason = "a sign is not allowed";
        return -1;
    }
    if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len > 1 && text[0] == '0') {
        *reason = "a leading zero is not allowed (octal is not read; hex is 0x...)";
        return -1;
    }
    uint64_t v = 0;
    int over = 0;
    for (; i < len; i++) {
        int d = digit(text[i], base);
        if (d < 0) {
            *reason = "expected decimal digits, or 0x and hex digits (no spaces)";
            return -1;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            over = 1; /* keep scanning: a bad character is the better reason */
        else
            v = v * base + (uint64_t)d;
    }
    if (over || v > max) {
        *reason = "out of range";
        return -1;
    }
    *out = v;
    return 0;
}
