/*
 * compat_hash.h -- the key hashes of the programs placer's compatibility
 * modes follow, each bit for bit as the program computes it (quirks
 * included; docs/COMPAT.md lists them with the source file of each program).
 *
 * All are pure: key may be NULL only when len is 0.
 */
#ifndef PLC_ENGINE_COMPAT_HASH_H
#define PLC_ENGINE_COMPAT_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Key hash ids (stable: they travel in membership files by name). */
enum {
    PLC_CH_ONE_AT_A_TIME = 1, /* libmemcached "default", twemproxy one_at_a_time */
    PLC_CH_MD5,               /* low 32 bits of MD5, little-endian */
    PLC_CH_CRC16,             /* twemproxy crc16 (XMODEM table, unmasked register) */
    PLC_CH_CRC32,             /* libmemcached "crc", twemproxy crc32: 15 bits */
    PLC_CH_CRC32A,            /* twemproxy crc32a: the whole IEEE CRC-32 */
    PLC_CH_FNV1_64,
    PLC_CH_FNV1A_64,
    PLC_CH_FNV1_32,
    PLC_CH_FNV1A_32,
    PLC_CH_HSIEH,
    PLC_CH_MURMUR,
    PLC_CH_JENKINS,
    PLC_CH_MURMUR3,           /* libmemcached only */
    PLC_CH_NGX_CRC32,         /* nginx: ngx_crc32_long, the IEEE CRC-32 */
    PLC_CH_HAP_SDBM,          /* haproxy's four, before any avalanche */
    PLC_CH_HAP_DJB2,
    PLC_CH_HAP_WT6,
    PLC_CH_HAP_CRC32,
    PLC_CH_REDIS_CRC16,       /* CRC16-XMODEM, 16 bits */
    PLC_CH_HAP_SOURCE,        /* haproxy's balance source: XOR of the address's 32-bit words */
    PLC_CH_COUNT_
};

typedef uint32_t (*plc_compat_hash_fn)(const void *key, size_t len);

/* The function of a PLC_CH_* id; NULL for an unknown id. */
plc_compat_hash_fn plc_compat_hash_function(int id);

/* The MD5 digest of key (Nettle), as the programs' md5_signature gives it. */
void plc_compat_md5(const void *key, size_t len, unsigned char digest[16]);

uint32_t plc_hash_one_at_a_time(const void *key, size_t len);
uint32_t plc_hash_md5(const void *key, size_t len);
uint32_t plc_hash_crc16_twemproxy(const void *key, size_t len);
uint32_t plc_hash_crc32_15(const void *key, size_t len);
uint32_t plc_hash_crc32_ieee(const void *key, size_t len);
uint32_t plc_hash_fnv1_64(const void *key, size_t len);
uint32_t plc_hash_fnv1a_64(const void *key, size_t len);
uint32_t plc_hash_fnv1_32(const void *key, size_t len);
uint32_t plc_hash_fnv1a_32(const void *key, size_t len);
uint32_t plc_hash_hsieh(const void *key, size_t len);
uint32_t plc_hash_murmur(const void *key, size_t len);
/* Austin Appleby's MurmurHash2 under seed, bytes unsigned: libmemcached's
 * murmur seeds it with 0xdeadbeef * len, Kafka's with 0x9747b28c. */
uint32_t plc_murmur2(uint32_t seed, const void *key, size_t len);
uint32_t plc_hash_jenkins(const void *key, size_t len);
uint32_t plc_hash_murmur3(const void *key, size_t len);
uint32_t plc_hash_sdbm(const void *key, size_t len);
uint32_t plc_hash_djb2(const void *key, size_t len);
uint32_t plc_hash_wt6(const void *key, size_t len);
uint32_t plc_hash_redis_crc16(const void *key, size_t len);
/* haproxy's get_server_sh (backend.c): the XOR of the key's whole 32-bit
 * words read big-endian (the client address, 4 or 16 bytes in network
 * order); bytes past the last whole word are not read. */
uint32_t plc_hash_haproxy_source(const void *key, size_t len);

/* The CRC16-XMODEM table (polynomial 0x1021). */
extern const uint16_t plc_crc16_xmodem[256];

/* Four keys at once (compat_hash_x4.c): the byte-serial hashes in
 * lockstep; NULL for an id that has no such form. */
typedef void (*plc_compat_hash_x4_fn)(const unsigned char *const *keys, const size_t *lens,
                                      uint32_t *out);
plc_compat_hash_x4_fn plc_compat_hash_x4(int id);

/* haproxy's full_hash(): Bob Jenkins' 32-bit integer avalanche times
 * 3221225473 (a bijection on 32 bits). */
uint32_t plc_hash_haproxy_full(uint32_t a);

#endif
