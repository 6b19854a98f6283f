/*
 * compat_lookup.c -- a key's hash as each compatible program computes it
 * (hash tags, single-server and empty-key rules, avalanche), and the plain
 * search of a compatibility layout: the reference the vectorised paths and
 * the differential fuzzer are held to.
 */
#include <string.h>

#include "compat.h"

/* The part of the key between the first `open` and the first `close` after
 * it, when that part is not empty (twemproxy's hash_tag, Redis' {tag}). */
void plc_compat_tag(char open, char close, const unsigned char **key, size_t *len)
{
    const unsigned char *k = *key;
    if (!*len)
        return;
    const unsigned char *s = memchr(k, (unsigned char)open, *len);
    if (!s)
        return;
    const unsigned char *end = k + *len;
    const unsigned char *e = memchr(s + 1, (unsigned char)close, (size_t)(end - (s + 1)));
    if (!e || e - s <= 1)
        return;
    *key = s + 1;
    *len = (size_t)(e - (s + 1));
}

uint32_t plc_compat_key_hash(const plc_compat_layout *l, const void *key, size_t len)
{
    const unsigned char *k = key;
    uint32_t h;
    switch (l->program) {
    case PLC_COMPAT_LIBMEMCACHED:
        /* hash.cc _generate_hash_wrapper(): one server hashes nothing. */
        if (l->nnodes == 1)
            return 0;
        return plc_compat_hash_function(l->key_hash)(k, len);
    case PLC_COMPAT_TWEMPROXY:
        if (l->hash_tag[0])
            plc_compat_tag(l->hash_tag[0], l->hash_tag[1], &k, &len);
        /* nc_server.c server_pool_hash(): one server or an empty key is 0. */
        if (l->nnodes == 1 || len == 0)
            return 0;
        return plc_compat_hash_function(l->key_hash)(k, len);
    case PLC_COMPAT_NGINX:
        h = plc_hash_crc32_ieee(k, len);
        return l->distribution == PLC_CD_HASH ? (h >> 16) & 0x7fffu : h;
    case PLC_COMPAT_HAPROXY:
        h = plc_compat_hash_function(l->key_hash)(k, len);
        return l->avalanche ? plc_hash_haproxy_full(h) : h;
    case PLC_COMPAT_REDIS:
        plc_compat_tag('{', '}', &k, &len);
        return plc_hash_redis_crc16(k, len) & (PLC_REDIS_SLOTS - 1u);
    default:
        return 0;
    }
}

uint32_t plc_compat_slot(const plc_compat_layout *l, uint32_t hash)
{
    if (l->kind == PLC_CL_TABLE)
        return hash % l->n;
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (l->points[mid] < hash)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == l->n ? 0 : lo;
}
