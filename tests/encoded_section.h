/*
 * encoded_section.h -- the section of type t in an encoded snapshot (its
 * bytes and element count, through the section table: docs/FORMAT.md),
 * for tests that forge fields and reseal the checksum.
 */
#ifndef PLACER_TESTS_ENCODED_SECTION_H
#define PLACER_TESTS_ENCODED_SECTION_H

#include "codec_format.h"

static inline unsigned char *encoded_section(unsigned char *buf, uint32_t t, uint64_t *count)
{
    uint32_t k = plc_rd32(buf + PLC_H_SECTIONS);
    for (uint32_t i = 0; i < k; i++) {
        const unsigned char *e = buf + PLC_FMT_HEADER + (size_t)i * PLC_FMT_ENTRY;
        if (plc_rd32(e) == t) {
            *count = plc_rd64(e + 24);
            return buf + plc_rd64(e + 8);
        }
    }
    return NULL;
}

#endif
