/*
 * compat_snapshot.c -- what a snapshot says about its compatibility mode
 * (placer_snapshot_compat and the names: a layout's, or the program
 * whose snapshots carry the key hash, Kafka's), the key hash ids 16 and up,
 * Redis' slot hash for PLACER_PARTITIONS snapshots, and the release of a
 * snapshot's compat index.
 */
#include <string.h>

#include "alloc.h"
#include "compat_index.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"

int placer_compat_from_name(const char *name)
{
    int id = name ? plc_compat_program_id(name) : 0;
    return id ? id : PLACER_EINVAL;
}

const char *placer_compat_name(int program)
{
    return plc_compat_program_name(program);
}

int placer_snapshot_compat(const placer_snapshot *s)
{
    if (s && s->compat)
        return s->compat->layout.program;
    /* a program whose snapshots are placer's own (Kafka's): by its key hash */
    const plc_compat_program *p = s ? plc_compat_program_of_key_hash(s->key_hash, NULL) : NULL;
    return p ? p->id : PLACER_COMPAT_NONE;
}

const char *placer_snapshot_compat_distribution(const placer_snapshot *s)
{
    if (!s || !s->compat) /* (Redis' slots: no name, no distribution) */
        return NULL;
    return plc_compat_distribution_name(s->compat->layout.distribution);
}

const char *placer_snapshot_compat_key_hash(const placer_snapshot *s)
{
    const plc_compat_hash_entry *e = NULL;
    if (s && !s->compat && plc_compat_program_of_key_hash(s->key_hash, &e))
        return e->name;
    if (!s || !s->compat)
        return NULL;
    return plc_compat_hash_name(s->compat->layout.program, s->compat->layout.key_hash);
}

int placer_snapshot_compat_param(const placer_snapshot *s, const char *name, uint32_t *value)
{
    if (!s || !name || !value)
        return PLACER_ENULL;
    const plc_compat_program *p = s->compat ? plc_compat_program_get(s->compat->layout.program) : NULL;
    int i = plc_compat_program_param(p, name);
    if (i < 0)
        return PLACER_EINVAL;
    *value = s->compat->layout.params[i];
    return 0;
}

/* Key hash ids 16 and up: one name per function, whichever program uses it
 * (the program's own spelling is placer_snapshot_compat_key_hash's). */
const char *plc_compat_key_hash_label(int key_hash)
{
    static const char *const names[PLC_CH_COUNT_] = {
        [PLC_CH_ONE_AT_A_TIME] = "one_at_a_time", [PLC_CH_MD5] = "md5",
        [PLC_CH_CRC16] = "crc16",                 [PLC_CH_CRC32] = "crc32-15bit",
        [PLC_CH_CRC32A] = "crc32a",               [PLC_CH_FNV1_64] = "fnv1_64",
        [PLC_CH_FNV1A_64] = "fnv1a_64",           [PLC_CH_FNV1_32] = "fnv1_32",
        [PLC_CH_FNV1A_32] = "fnv1a_32",           [PLC_CH_HSIEH] = "hsieh",
        [PLC_CH_MURMUR] = "murmur",               [PLC_CH_JENKINS] = "jenkins",
        [PLC_CH_MURMUR3] = "murmur3",             [PLC_CH_NGX_CRC32] = "nginx-crc32",
        [PLC_CH_HAP_SDBM] = "haproxy-sdbm",       [PLC_CH_HAP_DJB2] = "haproxy-djb2",
        [PLC_CH_HAP_WT6] = "haproxy-wt6",         [PLC_CH_HAP_CRC32] = "haproxy-crc32",
        [PLC_CH_REDIS_CRC16] = "redis-crc16",     [PLC_CH_HAP_SOURCE] = "haproxy-source",
    };
    const plc_compat_hash_entry *e = NULL;
    const plc_compat_program *p = plc_compat_program_of_key_hash(key_hash, &e);
    if (p) /* Kafka's partitioners */
        return p->labels[e - p->hashes];
    int ch = PLC_CH_OF_KEY_HASH(key_hash);
    return ch >= 1 && ch < PLC_CH_COUNT_ ? names[ch] : NULL;
}

int plc_redis_attach(placer_snapshot *s)
{
    /* The slot hash and its kernels only: no slot table (the partitions
     * table places), so none is built. */
    plc_compat_index *x = plc_malloc(sizeof *x);
    if (!x)
        return PLACER_ENOMEM;
    plc_compat_config c = {PLACER_COMPAT_REDIS, 0, 0, 0, {0, 0}, s->nnodes, NULL, NULL, 0, {0}};
    int rc = plc_compat_index_hash_only(x, &c);
    if (rc) {
        plc_free(x);
        return rc;
    }
    s->compat = x;
    return 0;
}

uint32_t plc_redis_slot(const placer_snapshot *s, const void *key, size_t len)
{
    return plc_compat_key_hash(&s->compat->layout, key, len);
}

void plc_redis_slot_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t *slots)
{
    plc_compat_index_hash_batch(s->compat, keys, lens, n, slots);
}

int plc_compat_same_positions(const placer_snapshot *a, const placer_snapshot *b)
{
    const plc_compat_index *x = a->compat, *y = b->compat;
    if (!x || !y)
        return x == y;
    const plc_compat_layout *l = &x->layout, *m = &y->layout;
    const plc_compat_program *p = plc_compat_program_get(l->program);
    return l->program == m->program && l->distribution == m->distribution &&
           l->key_hash == m->key_hash && l->avalanche == m->avalanche &&
           l->hash_tag[0] == m->hash_tag[0] && l->hash_tag[1] == m->hash_tag[1] &&
           ((p && (p->fields & PLC_CF_SLOTS)) || /* slots: no one-server rule */
            (l->nnodes == 1) == (m->nnodes == 1));
}

void plc_compat_release(placer_snapshot *s)
{
    if (s->compat) {
        plc_compat_index_free(s->compat);
        plc_free(s->compat);
    }
}
