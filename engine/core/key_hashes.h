/*
 * key_hashes.h -- the one table of key hashes a build may use (id, name,
 * single and batch kernels, whether the ring's fused kernels hash with it,
 * who may set it). The builder, placer_key_hash_name and the codec ask it;
 * an id it does not know is refused, never replaced by another hash.
 */
#ifndef PLC_ENGINE_KEY_HASHES_H
#define PLC_ENGINE_KEY_HASHES_H

#include "kernels.h"

enum {
    PLC_KH_FUSED = 1u,    /* the ring's fused hash + search kernels hash with it */
    PLC_KH_SETTABLE = 2u, /* placer_builder_set_key_hash takes it */
    PLC_KH_OWN = 4u,      /* one of placer's own: a secret replaces it with SipHash-1-3 */
    PLC_KH_COMPAT = 8u,   /* a compatibility mode's (ids 16 and up): its index hashes keys */
};

typedef struct plc_key_hash {
    int id;           /* PLACER_HASH_* */
    const char *name; /* placer_key_hash_name's; NULL for the compat range (the mode names it) */
    unsigned flags;   /* PLC_KH_* */
    /* The single and batch kernels among the CPU's (k). */
    void (*kernels)(const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch);
} plc_key_hash;

/* The row of key hash id, or NULL for an id no build can use. Ids 16 to 63
 * (PLACER_HASH_COMPAT_FIRST and up) share one row: the compat modes check
 * their own ids (their ops->key_hashes mask) and hash in their index. */
const plc_key_hash *plc_key_hash_get(int id);

/* The row named name (placer_key_hash_name's), or NULL. */
const plc_key_hash *plc_key_hash_by_name(const char *name);

#endif
