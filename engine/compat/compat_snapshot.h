/*
 * compat_snapshot.h -- what the compatibility modes share with the rest of
 * the engine: their key hash ids in snapshots (16 and up: docs/FORMAT.md),
 * the Redis slot hash that PLACER_PARTITIONS snapshots with
 * PLACER_HASH_REDIS use, and the release of a snapshot's compat layout.
 */
#ifndef PLC_ENGINE_COMPAT_SNAPSHOT_H
#define PLC_ENGINE_COMPAT_SNAPSHOT_H

#include "compat.h"
#include "snapshot_internal.h"

/* A snapshot's key hash id for the engine's PLC_CH_* key hash, and back:
 * ids 16 .. 15 + PLC_CH_COUNT_ - 1 (below 64: ops->key_hashes is a mask). */
#define PLC_KEY_HASH_OF_CH(ch) (PLACER_HASH_COMPAT_FIRST - 1 + (ch))
#define PLC_CH_OF_KEY_HASH(id) ((id) - (PLACER_HASH_COMPAT_FIRST - 1))
#define PLACER_HASH_REDIS PLC_KEY_HASH_OF_CH(PLC_CH_REDIS_CRC16)
/* The key hashes of the programs' rings and tables (all but Redis'). */
#define PLC_COMPAT_RING_HASHES                                                        \
    ((((uint64_t)1 << (PLC_CH_COUNT_ - 1)) - 1) & ~((uint64_t)1 << (PLC_CH_REDIS_CRC16 - 1))) \
        << PLACER_HASH_COMPAT_FIRST

_Static_assert(PLC_KEY_HASH_OF_CH(PLC_CH_COUNT_) <= 64, "compat key hash ids fit the masks");

/* Give a Redis partitions snapshot its slot hash (the batch kernels of a
 * Redis compat index). 0 or PLACER_ENOMEM. */
int plc_redis_attach(placer_snapshot *s);

/* Slot of a key in a Redis snapshot, and of n keys. */
uint32_t plc_redis_slot(const placer_snapshot *s, const void *key, size_t len);
void plc_redis_slot_batch(const placer_snapshot *s, const void *const *keys, const size_t *lens,
                          size_t n, uint32_t *slots);

/* Do two compat snapshots hash keys to the same positions (program, key
 * hash, avalanche, hash tag, single-server rule)? 1 when neither is compat. */
int plc_compat_same_positions(const placer_snapshot *a, const placer_snapshot *b);

/* The name of a key hash id 16 and up (placer_key_hash_name), or NULL. */
const char *plc_compat_key_hash_label(int key_hash);

/* Release s->compat (placer_snapshot_free). */
void plc_compat_release(placer_snapshot *s);

#endif
