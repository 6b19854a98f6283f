/*
 * strategy_partitions.c -- fixed logical partitions (Couchbase's vBuckets)
 * as a strategy module: a key maps to one of P partitions, by
 * floor(position * P / 2^64) (one range of the hash space each) or, with
 * PLACER_HASH_COUCHBASE, exactly as Couchbase's SDKs map it, or with
 * PLACER_HASH_REDIS (placer_builder_set_compat's Redis mode) to its slot,
 * as Redis Cluster does, or with a Kafka partitioner's key hash
 * (compat_kafka.h) as that producer does; a map row per partition lists
 * its active node and replicas. A Redis snapshot's positions are its slots (0 .. 16383). The build is
 * partitions_build.c's; the partition queries of placer.h live here too.
 */
#include "codec_decode.h"
#include "compat_kafka.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "fastrange.h"
#include "partitions_build.h"
#include "strategy_ops.h"
#include "validate.h"

static uint32_t couchbase_partition(const placer_snapshot *s, const void *key, size_t len)
{
    return ((s->crc32(0, key, len) >> 16) & 0x7fff) % s->table.n;
}

static uint64_t partitions_position(const placer_snapshot *s, const void *key, size_t len)
{
    if (s->key_hash == PLACER_HASH_REDIS)
        return plc_redis_slot(s, key, len);
    if (s->key_hash == PLACER_HASH_COUCHBASE)
        return plc_range_start(couchbase_partition(s, key, len), s->table.n);
    if (plc_kafka_of_key_hash(s->key_hash))
        return plc_range_start(plc_kafka_snapshot_partition(s, key, len), s->table.n);
    return s->hash(&s->hkey, key, len);
}

/* The partition of a position: Redis' positions are slots (their low 14
 * bits), the others' ranges of the hash space. */
static uint32_t partition_of(const placer_snapshot *s, uint64_t h, uint32_t n)
{
    if (s->key_hash == PLACER_HASH_REDIS)
        return (uint32_t)h & (PLC_REDIS_SLOTS - 1u);
    return plc_range_slot(h, n);
}

static uint32_t partitions_owner(const placer_snapshot *s, uint64_t h, int target)
{
    const plc_table *t = target ? &s->ttable : &s->table;
    return t->own[(size_t)partition_of(s, h, t->n) * t->width];
}

static void partitions_owner_batch(const placer_snapshot *s, const uint64_t *h, size_t n,
                                   uint32_t *owners)
{
    if (s->key_hash != PLACER_HASH_REDIS) {
        plc_table_range_owner_batch(s, h, n, owners);
        return;
    }
    for (size_t i = 0; i < n; i++)
        owners[i] = partitions_owner(s, h[i], 0);
}

static int partitions_lookup(const placer_snapshot *s, const void *key, size_t len)
{
    if (s->key_hash == PLACER_HASH_REDIS) {
        uint32_t o = s->table.own[(size_t)plc_redis_slot(s, key, len) * s->table.width];
        return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
    }
    if (plc_kafka_of_key_hash(s->key_hash)) {
        uint32_t o = s->table.own[(size_t)plc_kafka_snapshot_partition(s, key, len) * s->table.width];
        return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
    }
    if (s->key_hash != PLACER_HASH_COUCHBASE)
        return plc_lookup_by_hash(s, key, len);
    uint32_t o = s->table.own[(size_t)couchbase_partition(s, key, len) * s->table.width];
    return o == PLC_NO_NODE ? PLACER_ENOLIVE : (int)o;
}

static void partitions_lookup_batch(const placer_snapshot *s, const void *const *keys,
                                    const size_t *lens, size_t n, uint32_t *owners)
{
    if (s->key_hash == PLACER_HASH_REDIS) {
        uint32_t slot[64];
        for (size_t at = 0; at < n; at += 64) {
            size_t m = n - at < 64 ? n - at : 64;
            plc_redis_slot_batch(s, keys + at, lens + at, m, slot);
            for (size_t i = 0; i < m; i++)
                owners[at + i] = s->table.own[(size_t)slot[i] * s->table.width];
        }
        return;
    }
    if (plc_kafka_of_key_hash(s->key_hash)) {
        uint32_t part[64];
        for (size_t at = 0; at < n; at += 64) {
            size_t m = n - at < 64 ? n - at : 64;
            plc_kafka_partition_batch(plc_kafka_of_key_hash(s->key_hash), keys + at, lens + at, m,
                                      s->table.n, part);
            for (size_t i = 0; i < m; i++)
                owners[at + i] = s->table.own[(size_t)part[i] * s->table.width];
        }
        return;
    }
    if (s->key_hash != PLACER_HASH_COUCHBASE) {
        plc_lookup_batch_by_hash(s, keys, lens, n, owners);
        return;
    }
    for (size_t i = 0; i < n; i++)
        owners[i] = s->table.own[(size_t)couchbase_partition(s, keys[i], lens[i]) * s->table.width];
}

/* The row of partition p, holes and repeats skipped. */
static uint32_t partition_row(const plc_table *t, uint32_t p, uint32_t *out, uint32_t want)
{
    uint32_t k = 0;
    for (uint32_t c = 0; c < t->width && k < want; c++) {
        uint32_t n = t->own[(size_t)p * t->width + c], seen = 0;
        for (uint32_t j = 0; j < k; j++)
            seen |= out[j] == n;
        if (n != PLC_NO_NODE && !seen)
            out[k++] = n;
    }
    return k;
}

static uint32_t partitions_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out,
                                    uint32_t want, uint32_t *zones)
{
    uint32_t k = partition_row(&s->table, partition_of(s, h, s->table.n), out, want);
    *zones = plc_distinct_zones(s, out, k);
    return k;
}

/* A range of the hash space per partition; a Kafka topic's table is read
 * as its partitioner's hash % partitions (compat_kafka.c). */
static void partitions_diff_view(const placer_snapshot *s, int target, plc_diff_view *v)
{
    if (plc_kafka_of_key_hash(s->key_hash))
        plc_kafka_diff_view(s, target, v);
    else
        plc_table_diff_view(s, target, v);
}

static int partitions_decode_check_table(plc_dec *d, const placer_builder *b, const plc_sec *t,
                                         int target)
{
    uint64_t rows = t->count;
    const char *what = target ? "target table" : "table";
    if (rows < 1 || rows > PLACER_MAX_PARTITIONS ||
        (target && (rows != d->s[PLC_SEC_TABLE].count || t->aux != d->s[PLC_SEC_TABLE].aux)))
        return plc_dec_fail(d, PLACER_ECORRUPT, "%s: %llu partitions", what,
                            (unsigned long long)rows);
    return plc_dec_check_owners(d, b, t->p, rows * t->aux, target, 1, what);
}

static int partitions_decode_check(plc_dec *d, const placer_builder *b)
{
    if (d->key_hash == PLACER_HASH_REDIS &&
        (d->s[PLC_SEC_TABLE].count != PLC_REDIS_SLOTS || plc_rd64(d->buf + PLC_H_SEED)))
        return plc_dec_fail(d, PLACER_ECORRUPT, "Redis: %llu slots and a seed of %llu "
                                                "(16384 slots and none)",
                            (unsigned long long)d->s[PLC_SEC_TABLE].count,
                            (unsigned long long)plc_rd64(d->buf + PLC_H_SEED));
    int err = partitions_decode_check_table(d, b, &d->s[PLC_SEC_TABLE], 0);
    if (!err && d->have[PLC_SEC_TARGET_TABLE])
        err = partitions_decode_check_table(d, b, &d->s[PLC_SEC_TARGET_TABLE], 1);
    return err;
}

static void partitions_token_at(const placer_snapshot *s, uint32_t i, uint64_t *token,
                                uint32_t *owner)
{
    *token = plc_range_end(i, s->table.n); /* a range: its largest position */
    *owner = s->table.own[(size_t)i * s->table.width];
}

/* A decoded table; a Redis one gets its slot hash. */
static int partitions_decode_build(plc_dec *d, placer_builder *b, uint64_t epoch,
                                   placer_snapshot **out)
{
    placer_snapshot *s = NULL;
    int err = plc_table_decode_build(d, b, epoch, &s);
    if (!err && d->key_hash == PLACER_HASH_REDIS && (err = plc_redis_attach(s)) != 0)
        placer_snapshot_free(s);
    if (!err)
        *out = s;
    return err;
}

static int partitions_build(placer_builder *b, uint64_t epoch, placer_snapshot **out)
{
    if (b->table_size > PLACER_MAX_PARTITIONS)
        return plc_builder_refuse(b, "%u partitions: 1 .. PLACER_MAX_PARTITIONS (%u)", b->table_size,
                                  PLACER_MAX_PARTITIONS);
    /* A program's key hash (Redis' slot hash, Kafka's partitioners) comes
     * with its mode: a previous snapshot's key hash alone would build a
     * map without the program's rules. */
    const plc_compat_program *kp = plc_compat_program_of_key_hash(b->eff_hash, NULL);
    if (kp && kp->id != b->compat) /* (the program's mode build sets it) */
        return plc_builder_refuse(b, "%s's key hash (from the previous snapshot) without "
                                     "placer_builder_set_compat of %s", kp->title, kp->name);
    return plc_partitions_build(b, epoch, out);
}

const plc_strategy_ops plc_partitions_ops = {
    .id = PLACER_PARTITIONS,
    .name = "partitions",
    .key_hashes = PLC_PLACER_HASHES | 1u << PLACER_HASH_COUCHBASE |
                  (uint64_t)1 << PLACER_HASH_REDIS | PLC_KAFKA_KEY_HASHES,
    .options = PLACER_OPTION_REPLICAS | PLACER_OPTION_PARTITIONS | PLACER_OPTION_PREVIOUS,
    .traits = PLACER_TRAIT_REPLICA_MAP | PLACER_TRAIT_PARTITIONS | PLACER_TRAIT_TARGET_ALONE,
    .partitions = {1, PLACER_MAX_PARTITIONS, PLACER_DEFAULT_PARTITIONS, 0, "partitions"},
    .build = partitions_build,
    .position = partitions_position,
    .lookup = partitions_lookup,
    .lookup_batch = partitions_lookup_batch,
    .owner = partitions_owner,
    .owner_batch = partitions_owner_batch,
    .replicas = partitions_replicas,
    .diff_view = partitions_diff_view,
    .encode_sections = plc_table_encode_sections,
    .encode_section = plc_table_encode_section,
    .decode_sections = plc_table_decode_sections,
    .decode_check = partitions_decode_check,
    .decode_build = partitions_decode_build,
    .token_count = plc_table_token_count,
    .token_at = partitions_token_at,
};

/* ---- placer.h's partition queries ---------------------------------------- */

int placer_partition(const placer_snapshot *s, const void *key, size_t len)
{
    PLC_VALIDATE_OR_RET(s && (key || !len), PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->ops == &plc_partitions_ops, PLACER_EINVAL);
    if (s->key_hash == PLACER_HASH_COUCHBASE)
        return (int)couchbase_partition(s, key, len);
    if (s->key_hash == PLACER_HASH_REDIS)
        return (int)plc_redis_slot(s, key, len);
    if (plc_kafka_of_key_hash(s->key_hash))
        return (int)plc_kafka_snapshot_partition(s, key, len);
    return (int)plc_range_slot(s->hash(&s->hkey, key, len), s->table.n);
}

uint32_t placer_partition_count(const placer_snapshot *s)
{
    return s && s->ops == &plc_partitions_ops ? s->table.n : 0;
}

uint32_t placer_partition_copies(const placer_snapshot *s)
{
    return s && s->ops == &plc_partitions_ops ? s->table.width : 0;
}

int placer_partition_owner(const placer_snapshot *s, uint32_t p, uint32_t *owner,
                           uint32_t *next_owner)
{
    PLC_VALIDATE_OR_RET(s && owner && next_owner, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->ops == &plc_partitions_ops, PLACER_EINVAL);
    PLC_VALIDATE_OR_RET(p < s->table.n, PLACER_ERANGE);
    uint32_t o = s->table.own[(size_t)p * s->table.width];
    uint32_t next = s->has_target ? s->ttable.own[(size_t)p * s->ttable.width] : o;
    if (o == PLC_NO_NODE)
        return PLACER_ENOLIVE;
    *owner = o;
    *next_owner = next == PLC_NO_NODE ? o : next;
    return 0;
}

int placer_partition_replicas(const placer_snapshot *s, uint32_t p, uint32_t *out, uint32_t want)
{
    PLC_VALIDATE_OR_RET(s && (out || !want), PLACER_ENULL);
    PLC_VALIDATE_OR_RET(s->ops == &plc_partitions_ops, PLACER_EINVAL);
    PLC_VALIDATE_OR_RET(p < s->table.n, PLACER_ERANGE);
    return (int)partition_row(&s->table, p, out, want);
}
