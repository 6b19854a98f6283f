/* base64.h -- RFC 4648 base64 (standard alphabet, padded), as etcd's JSON
 * API carries keys and values. */
#ifndef PLC_CONTROL_BASE64_H
#define PLC_CONTROL_BASE64_H

#include <stddef.h>

/* Encoded length of n bytes, without the NUL. */
static inline size_t plc_b64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Encode n bytes into out (plc_b64_len(n) + 1 bytes, NUL-terminated). */
void plc_b64_encode(const void *in, size_t n, char *out);

/* Decode a NUL-terminated base64 string into a malloc'ed buffer (*out,
 * *len); returns 0, or -1 for bad input or no memory. */
int plc_b64_decode(const char *in, unsigned char **out, size_t *len);

#endif
