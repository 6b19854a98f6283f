/* base64.c -- see base64.h. */
#include "base64.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "placer.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void plc_b64_encode(const void *in, size_t n, char *out)
{
    const unsigned char *p = in;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *out++ = '=';
    }
    *out = '\0';
}

static int value(char c)
{
    const char *at = c ? strchr(alphabet, c) : NULL;
    return at ? (int)(at - alphabet) : -1;
}

int plc_b64_decode(const char *in, unsigned char **out, size_t *len)
{
    size_t n = strlen(in);
    if (n % 4)
        return -1;
    unsigned char *buf = placer_mem_alloc(n / 4 * 3 + 1);
    if (!buf)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (in[i + 2] == '=') + (in[i + 3] == '=');
        int a = value(in[i]), b = value(in[i + 1]);
        int c = in[i + 2] == '=' ? 0 : value(in[i + 2]), d = in[i + 3] == '=' ? 0 : value(in[i + 3]);
        if (a < 0 || b < 0 || c < 0 || d < 0 || (pad && i + 4 != n) || (in[i + 2] == '=' && in[i + 3] != '=')) {
            placer_mem_free(buf);
            return -1;
        }
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        buf[o++] = (unsigned char)(v >> 16);
        if (pad < 2)
            buf[o++] = (unsigned char)(v >> 8);
        if (pad < 1)
            buf[o++] = (unsigned char)v;
    }
    *out = buf;
    *len = o;
    return 0;
}
