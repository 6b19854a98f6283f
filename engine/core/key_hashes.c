/*
 * key_hashes.c -- the table of key hashes (key_hashes.h). A key hash is one
 * row here: its kernels, its name and its flags. Couchbase's partition
 * hash is computed by the partitions strategy itself; its snapshots hash
 * node ids and tokens with placer-v2, as they always have.
 *
 * The Cassandra key hash is the Murmur3Partitioner token of the key mapped
 * order-preservingly to unsigned ((uint64_t)token ^ 1 << 63), so that the
 * native ring (the first token >= the hash owns it, wrapping) is
 * Cassandra's ring when node tokens are mapped the same way.
 */
#include <string.h>

#include "key_hashes.h"
#include "murmur3_cassandra.h"
#include "placer.h"

static void k_v1(const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch)
{
    *one = k->hash_v1, *batch = k->hash_v1_batch;
}

static void k_v2(const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch)
{
    *one = k->hash_v2, *batch = k->hash_v2_batch;
}

static void k_sip(const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch)
{
    *one = k->siphash13, *batch = k->siphash13_batch;
}

static void k_cassandra(const plc_kernels *k, plc_hash_fn *one, plc_hash_batch_fn *batch)
{
    (void)k; /* one scalar kernel on every CPU */
    *one = plc_hash_cassandra, *batch = plc_hash_cassandra_batch;
}

static const plc_key_hash rows[] = {
    {PLACER_HASH_PLACER_V1, "placer-v1", PLC_KH_SETTABLE | PLC_KH_OWN, k_v1},
    {PLACER_HASH_COUCHBASE, "couchbase", PLC_KH_SETTABLE, k_v2},
    {PLACER_HASH_PLACER_V2, "placer-v2", PLC_KH_FUSED | PLC_KH_SETTABLE | PLC_KH_OWN, k_v2},
    {PLACER_HASH_SIPHASH13, "siphash13", PLC_KH_SETTABLE | PLC_KH_OWN, k_sip},
    {PLACER_HASH_CASSANDRA_MURMUR3, "cassandra-murmur3", PLC_KH_SETTABLE, k_cassandra},
};

static const plc_key_hash compat_row = {PLACER_HASH_COMPAT_FIRST, NULL, PLC_KH_COMPAT, k_v2};

const plc_key_hash *plc_key_hash_get(int id)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].id == id)
            return &rows[i];
    return id >= PLACER_HASH_COMPAT_FIRST && id < 64 ? &compat_row : NULL;
}

const plc_key_hash *plc_key_hash_by_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof rows / sizeof rows[0]; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}
