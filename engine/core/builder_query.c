/*
 * builder_query.c -- what the strategies' builds may ask of a builder (its
 * nodes by id, whether it is in transition, the build's key hash and its
 * kernels) and the builder's error channel (plc_builder_refuse,
 * placer_builder_error). It calls nothing above it: the registry and the
 * modules call into it, never the other way (tests/test_file_cycles.py).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "builder_internal.h"
#include "key_hashes.h"

int plc_builder_resolve_hash(placer_builder *b)
{
    const placer_snapshot *prev = b->previous;
    int h = b->key_hash;
    if (!h) /* unset: keyed when a secret is set, else the previous build's hash */
        h = b->has_secret ? PLACER_HASH_SIPHASH13 : prev ? prev->key_hash : PLACER_HASH_PLACER_V2;
    plc_hash_key key = {b->seed, 0, 0};
    if (h == PLACER_HASH_SIPHASH13) {
        if (b->has_secret)
            key = (plc_hash_key){0, b->secret_k0, b->secret_k1};
        else if (prev && prev->key_hash == PLACER_HASH_SIPHASH13)
            key = prev->hkey; /* a rebuild keeps the secret, so no key moves */
        else
            return plc_builder_refuse(b, "the SipHash-1-3 key hash without a secret "
                                         "(placer_builder_set_secret)");
    } else if (b->has_secret) { /* Couchbase, Cassandra and the compatibility modes take no secret */
        return plc_builder_refuse(b, "a secret with key hash %d: only SipHash-1-3 (%d) is keyed", h,
                                  PLACER_HASH_SIPHASH13);
    }
    if (!plc_key_hash_get(h))
        return plc_builder_refuse(b, "key hash %d: no such key hash", h);
    b->eff_hash = h;
    b->eff_key = key;
    return 0;
}

uint64_t plc_builder_hash(const placer_builder *b, const void *key, size_t len)
{
    plc_hash_fn one;
    plc_hash_batch_fn batch;
    int fused;
    plc_hash_kernels(b->eff_hash, plc_kernels_get(), &one, &batch, &fused);
    return one(&b->eff_key, key, len);
}

int plc_hash_kernels(int key_hash, const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch,
                     int *fused)
{
    const plc_key_hash *row = plc_key_hash_get(key_hash);
    if (!row)
        return PLACER_EINVAL;
    row->kernels(k, one, batch);
    *fused = !!(row->flags & PLC_KH_FUSED);
    return 0;
}

int plc_builder_in_transition(const placer_builder *b)
{
    for (uint32_t n = 0; n < b->nnodes; n++)
        if (b->nodes[n].state == PLACER_NODE_JOINING || b->nodes[n].state == PLACER_NODE_DRAINING)
            return 1;
    return 0;
}

uint32_t plc_builder_id_slot(const uint32_t *index, uint32_t cap, const placer_builder *b,
                             const char *id, size_t len)
{
    uint32_t mask = cap - 1;
    uint32_t i = (uint32_t)placer_hash64(0, id, len) & mask;
    while (index[i]) {
        const plc_bnode *n = &b->nodes[index[i] - 1];
        if (n->id_len == len && memcmp(n->id, id, len) == 0)
            break;
        i = (i + 1) & mask;
    }
    return i;
}

int plc_builder_find(const placer_builder *b, const char *id)
{
    if (!b->id_index_cap)
        return -1;
    uint32_t slot = plc_builder_id_slot(b->id_index, b->id_index_cap, b, id, strlen(id));
    return (int)b->id_index[slot] - 1;
}

static int vrefuse(placer_builder *b, int code, const char *fmt, va_list ap)
{
    vsnprintf(b->why_buf, sizeof b->why_buf, fmt, ap);
    b->why = b->why_buf;
    return code;
}

int plc_builder_refuse(placer_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vrefuse(b, PLACER_EINVAL, fmt, ap);
    va_end(ap);
    return rc;
}

int plc_builder_refuse_code(placer_builder *b, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vrefuse(b, code, fmt, ap);
    va_end(ap);
    return rc;
}

const char *placer_builder_error(const placer_builder *b)
{
    return b && b->why ? b->why : "";
}

int placer_builder_rebased(const placer_builder *b, double *moved)
{
    if (moved)
        *moved = b && b->rebased ? b->rebased_moved : 0;
    return b ? b->rebased : PLACER_ENULL;
}
