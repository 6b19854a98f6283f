/*
 * codec_format.h -- the constants of snapshot format v2, and of v1 which
 * still decodes (docs/FORMAT.md is the specification), shared by encode.c
 * and decode.c.
 */
#ifndef PLC_ENGINE_CODEC_FORMAT_H
#define PLC_ENGINE_CODEC_FORMAT_H

#include <stdint.h>
#include <string.h>

/* Snapshot files are little-endian on every host (docs/FORMAT.md): every
 * integer goes through plc_rd* / plc_wr* below, which swap bytes on a
 * big-endian host and compile to plain loads and stores on a little-endian
 * one; arrays through plc_rd32_array / plc_wr32_array / plc_wr64_array. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLC_HOST_BIG_ENDIAN 1
#else
#define PLC_HOST_BIG_ENDIAN 0
#endif

#define PLC_FMT_MAGIC "\x89PLC\r\n\x1a\n"
#define PLC_FMT_VERSION 2u /* written for every snapshot built */
#define PLC_FMT_VERSION_1 1u /* read; written back only for a snapshot decoded from it */
#define PLC_FMT_HEADER 64u
#define PLC_FMT_ENTRY 32u   /* one section table entry */
#define PLC_FMT_NODE 32u    /* one node record */
#define PLC_FMT_ALIGN 64u
#define PLC_FMT_MAX_SECTIONS 16u /* sections in a file, and the largest type */
#define PLC_FMT_V1_MAX_SECTIONS 9u
#define PLC_FMT_SECRET_LEN 16u
#define PLC_FMT_FLAG_TRANSITION 1u
#define PLC_COMPAT_FIELDS 6u /* section 11: program, distribution, avalanche, tag open, tag close, kind */

/* Section types, in the order they must appear. */
enum {
    PLC_SEC_NODES = 1,
    PLC_SEC_STRINGS = 2,
    PLC_SEC_TOKENS = 3,         /* ring: sorted u64 tokens */
    PLC_SEC_OWNERS = 4,         /* ring: u32 owner per token */
    PLC_SEC_TARGET_TOKENS = 5,
    PLC_SEC_TARGET_OWNERS = 6,
    PLC_SEC_REPLICAS = 7,       /* ring: aux = sets' size R; count = tokens * R */
    PLC_SEC_TABLE = 8,          /* partitions, Maglev, jump: aux = width; count = rows */
    PLC_SEC_TARGET_TABLE = 9,
    PLC_SEC_SECRET = 10,        /* v2, key hash siphash13: the 16-byte secret */
    PLC_SEC_COMPAT = 11,        /* v2, PLACER_EMULATED: the mode, PLC_COMPAT_FIELDS u32 */
    PLC_SEC_COMPAT_POINTS = 12, /* its ring: u32 points, ascending */
    PLC_SEC_COMPAT_OWNERS = 13, /* u32 owner per point, or per table slot */
    PLC_SEC_COMPAT_HASH_IDS = 14, /* haproxy: u32 server id per node */
    PLC_SEC_HISTORY = 15,       /* memento, anchor, dx: u32 removed buckets, oldest first */
    PLC_SEC_TARGET_HISTORY = 16,
};

/* Header field offsets. */
enum {
    PLC_H_MAGIC = 0,
    PLC_H_VERSION = 8,
    PLC_H_HEADER_LEN = 12,
    PLC_H_TOTAL = 16,
    PLC_H_EPOCH = 24,
    PLC_H_SEED = 32,
    PLC_H_STRATEGY = 40,
    PLC_H_KEY_HASH = 42,
    PLC_H_NODES = 44,
    PLC_H_SECTIONS = 48,
    PLC_H_FLAGS = 52,
    PLC_H_RESERVED = 56,
    PLC_H_CRC = 60,
};

static inline uint64_t plc_fmt_align(uint64_t n)
{
    return (n + PLC_FMT_ALIGN - 1) & ~(uint64_t)(PLC_FMT_ALIGN - 1);
}

/* A host integer from or to its little-endian bytes' order. */
static inline uint16_t plc_le16(uint16_t v) { return PLC_HOST_BIG_ENDIAN ? __builtin_bswap16(v) : v; }
static inline uint32_t plc_le32(uint32_t v) { return PLC_HOST_BIG_ENDIAN ? __builtin_bswap32(v) : v; }
static inline uint64_t plc_le64(uint64_t v) { return PLC_HOST_BIG_ENDIAN ? __builtin_bswap64(v) : v; }

static inline uint16_t plc_rd16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return plc_le16(v);
}
static inline uint32_t plc_rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return plc_le32(v);
}
static inline uint64_t plc_rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return plc_le64(v);
}
static inline void plc_wr16(unsigned char *p, uint16_t v)
{
    v = plc_le16(v);
    memcpy(p, &v, sizeof v);
}
static inline void plc_wr32(unsigned char *p, uint32_t v)
{
    v = plc_le32(v);
    memcpy(p, &v, sizeof v);
}
static inline void plc_wr64(unsigned char *p, uint64_t v)
{
    v = plc_le64(v);
    memcpy(p, &v, sizeof v);
}

/* n host u32 values as little-endian bytes, and back: one memcpy on a
 * little-endian host. */
static inline void plc_wr32_array(unsigned char *p, const uint32_t *a, size_t n)
{
    if (!PLC_HOST_BIG_ENDIAN) {
        memcpy(p, a, n * sizeof *a);
        return;
    }
    for (size_t i = 0; i < n; i++)
        plc_wr32(p + 4 * i, a[i]);
}
static inline void plc_rd32_array(uint32_t *a, const unsigned char *p, size_t n)
{
    if (!PLC_HOST_BIG_ENDIAN) {
        memcpy(a, p, n * sizeof *a);
        return;
    }
    for (size_t i = 0; i < n; i++)
        a[i] = plc_rd32(p + 4 * i);
}

/* A double as the 8 little-endian bytes of its IEEE-754 bits. */
static inline void plc_wr_double(unsigned char *p, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    plc_wr64(p, bits);
}
static inline double plc_rd_double(const unsigned char *p)
{
    uint64_t bits = plc_rd64(p);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Bytes per element of a section type. */
static inline uint32_t plc_sec_elem(uint32_t type)
{
    switch (type) {
    case PLC_SEC_NODES: return PLC_FMT_NODE;
    case PLC_SEC_STRINGS:
    case PLC_SEC_SECRET: return 1;
    case PLC_SEC_TOKENS:
    case PLC_SEC_TARGET_TOKENS: return 8;
    default: return 4; /* owners, replicas, table rows' cells */
    }
}

/* The CRC-32C of a whole encoded snapshot: header bytes [0, 60), then
 * everything after the header. */
uint32_t plc_fmt_crc(const unsigned char *buf, uint64_t total);

#endif
