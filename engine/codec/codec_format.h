/*
 * codec_format.h -- the constants of snapshot format v2, and of v1 which
 * still decodes (docs/FORMAT.md is the specification), shared by encode.c
 * and decode.c.
 */
#ifndef PLC_ENGINE_CODEC_FORMAT_H
#define PLC_ENGINE_CODEC_FORMAT_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the snapshot codec reads and writes little-endian integers in place"
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
    /* 15..16: the other additions of v2, documented in docs/FORMAT.md */
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

static inline uint16_t plc_rd16(const unsigned char *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint32_t plc_rd32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline uint64_t plc_rd64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void plc_wr16(unsigned char *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static inline void plc_wr32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static inline void plc_wr64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

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
