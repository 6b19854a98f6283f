/*
 * encode.c -- a snapshot as bytes: format v2 (docs/FORMAT.md), or v1 for a
 * snapshot decoded from v1 bytes, so they encode back the same. The layout
 * is canonical -- sections in type order, each at the next 64-byte
 * boundary, zero padding, strings packed in node order -- so decoding and
 * encoding again gives the same bytes.
 */
#include "alloc.h"
#include "codec_format.h"
#include "strategy_ops.h"
#include "validate.h"

uint32_t plc_fmt_crc(const unsigned char *buf, uint64_t total)
{
    uint32_t crc = placer_crc32c(0, buf, PLC_H_CRC);
    return placer_crc32c(crc, buf + PLC_FMT_HEADER, (size_t)(total - PLC_FMT_HEADER));
}

typedef plc_fmt_section section;

/* The sections of s, in type order: the nodes, their strings, the
 * strategy's, and the secret of a keyed snapshot; returns how many. */
static uint32_t sections_of(const placer_snapshot *s, section *out, uint64_t strings)
{
    uint32_t k = 0;
    out[k++] = (section){PLC_SEC_NODES, 0, s->nnodes};
    out[k++] = (section){PLC_SEC_STRINGS, 0, strings};
    k += s->ops->encode_sections(s, out + k);
    if (s->key_hash == PLACER_HASH_SIPHASH13)
        out[k++] = (section){PLC_SEC_SECRET, 0, PLC_FMT_SECRET_LEN};
    /* Types in ascending order, whoever added them (a few: insertion). */
    for (uint32_t i = 1; i < k; i++)
        for (uint32_t j = i; j > 0 && out[j - 1].type > out[j].type; j--) {
            section t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return k;
}

static uint64_t section_bytes(const section *sec)
{
    uint64_t cells = sec->type == PLC_SEC_TABLE || sec->type == PLC_SEC_TARGET_TABLE
                         ? sec->count * sec->aux
                         : sec->count;
    return cells * plc_sec_elem(sec->type);
}

/* The node records carry NetworkTopologyStrategy's factors when some node
 * names a datacenter; without one, the factor is the set width (as before
 * datacenters) and the field stays 0: one encoding per snapshot. */
static int factors_written(const placer_snapshot *s)
{
    if (s->rep_rule != PLACER_REPLICATION_NETWORK_TOPOLOGY)
        return 0;
    for (uint32_t n = 0; n < s->nnodes; n++)
        if (s->nodes[n].datacenter[0])
            return 1;
    return 0;
}

static void write_section(const placer_snapshot *s, const section *sec, unsigned char *p)
{
    switch (sec->type) {
    case PLC_SEC_NODES: {
        int factors = factors_written(s);
        for (uint32_t n = 0; n < s->nnodes; n++, p += PLC_FMT_NODE) {
            const plc_node *x = &s->nodes[n];
            plc_wr_double(p, x->weight);
            plc_wr32(p + 8, (uint32_t)x->state);
            plc_wr32(p + 12, (uint32_t)strlen(x->id));
            plc_wr32(p + 16, (uint32_t)strlen(x->zone));
            plc_wr32(p + 20, (uint32_t)strlen(x->address));
            plc_wr32(p + 24, (uint32_t)strlen(x->datacenter));
            plc_wr32(p + 28, factors ? x->dc_rf : 0);
        }
        break;
    }
    case PLC_SEC_STRINGS:
        for (uint32_t n = 0; n < s->nnodes; n++) {
            const char *str[4] = {s->nodes[n].id, s->nodes[n].zone, s->nodes[n].address,
                                  s->nodes[n].datacenter};
            for (int i = 0; i < 4; i++) {
                size_t len = strlen(str[i]);
                memcpy(p, str[i], len);
                p += len;
            }
        }
        break;
    case PLC_SEC_SECRET:
        plc_wr64(p, s->hkey.k0);
        plc_wr64(p + 8, s->hkey.k1);
        break;
    default:
        s->ops->encode_section(s, sec, p);
    }
}

int placer_snapshot_encode(const placer_snapshot *s, void **buf, size_t *len)
{
    PLC_VALIDATE_OR_RET(s && buf && len, PLACER_ENULL);
    uint64_t strings = 0;
    for (uint32_t n = 0; n < s->nnodes; n++)
        strings += strlen(s->nodes[n].id) + strlen(s->nodes[n].zone) +
                   strlen(s->nodes[n].address) + strlen(s->nodes[n].datacenter);
    section sec[PLC_FMT_MAX_SECTIONS];
    uint32_t k = sections_of(s, sec, strings);
    uint64_t at = plc_fmt_align(PLC_FMT_HEADER + (uint64_t)k * PLC_FMT_ENTRY), offset[PLC_FMT_MAX_SECTIONS];
    for (uint32_t i = 0; i < k; i++) {
        offset[i] = at;
        at = plc_fmt_align(at + section_bytes(&sec[i]));
    }
    uint64_t total = at;
    unsigned char *p = plc_aligned_alloc((size_t)total);
    if (!p)
        return PLACER_ENOMEM;
    memset(p, 0, (size_t)total);
    memcpy(p + PLC_H_MAGIC, PLC_FMT_MAGIC, 8);
    plc_wr32(p + PLC_H_VERSION, s->format_version);
    plc_wr32(p + PLC_H_HEADER_LEN, PLC_FMT_HEADER);
    plc_wr64(p + PLC_H_TOTAL, total);
    plc_wr64(p + PLC_H_EPOCH, s->epoch);
    plc_wr64(p + PLC_H_SEED, s->seed);
    plc_wr16(p + PLC_H_STRATEGY, (uint16_t)s->strategy);
    plc_wr16(p + PLC_H_KEY_HASH, (uint16_t)s->key_hash);
    plc_wr32(p + PLC_H_NODES, s->nnodes);
    plc_wr32(p + PLC_H_SECTIONS, k);
    plc_wr32(p + PLC_H_FLAGS, s->has_target ? PLC_FMT_FLAG_TRANSITION : 0);
    for (uint32_t i = 0; i < k; i++) {
        unsigned char *e = p + PLC_FMT_HEADER + (size_t)i * PLC_FMT_ENTRY;
        plc_wr32(e, sec[i].type);
        plc_wr32(e + 4, sec[i].aux);
        plc_wr64(e + 8, offset[i]);
        plc_wr64(e + 16, section_bytes(&sec[i]));
        plc_wr64(e + 24, sec[i].count);
        write_section(s, &sec[i], p + offset[i]);
    }
    plc_wr32(p + PLC_H_CRC, plc_fmt_crc(p, total));
    *buf = p;
    *len = (size_t)total;
    return 0;
}

void placer_buffer_free(void *buf)
{
    plc_free(buf);
}
