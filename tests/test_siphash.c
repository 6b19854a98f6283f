/*
 * test_siphash.c -- SipHash, the keyed placement hash, on every path:
 *  - the published SipHash-2-4 vectors of the reference implementation
 *    through the shared round code (scalar and every batch kernel's 2-4 form);
 *  - SipHash-1-3 vectors derived from the reference (siphash_vectors.h);
 *  - every batch kernel this CPU can run, and the AVX-512 kernel under SIMDe
 *    emulation on any CPU, equal to the scalar function on random batches:
 *    equal lengths (the vector path to the end), mixed lengths (the scalar
 *    finish), every batch size 0..41 (padded last groups), unaligned keys;
 *  - the dispatcher's choice under each CPU mask.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "isa.h"
#include "cpu.h"
#include "kernels.h"
#include "placer.h"
#include "reference.h"
#include "siphash.h"
#include "siphash_vectors.h"

/* The library's kernels (plc_siphash_kernels) and the emulated AVX-512 one. */
static plc_siphash_kernel kernels[8];
static size_t NKERNELS;

static void list_kernels(void)
{
    size_t n;
    const plc_siphash_kernel *k = plc_siphash_kernels(&n);
    for (size_t i = 0; i < n && NKERNELS < 7; i++)
        kernels[NKERNELS++] = k[i];
    kernels[NKERNELS++] = (plc_siphash_kernel){"siphash13-avx512-emulated", 0,
                                               plc_siphash13_batch_avx512_emulated,
                                               plc_siphash24_batch_avx512_emulated};
}

static int runnable(const plc_siphash_kernel *k)
{
    return (plc_cpu_detected() & k->needs) == k->needs;
}

static uint64_t le64(const uint8_t b[8])
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

/* The reference vectors: key 00..0f, message 00..len-1. */
static void vectors(void)
{
    unsigned char msg[64], key[16];
    for (int i = 0; i < 64; i++)
        msg[i] = (unsigned char)i;
    for (int i = 0; i < 16; i++)
        key[i] = (unsigned char)i;
    plc_hash_key k = {0, le64(key), le64(key + 8)};
    long bad24 = 0, bad13 = 0;
    for (size_t len = 0; len < 64; len++) {
        bad24 += plc_siphash24(&k, msg, len) != le64(sip24_vectors[len]);
        bad13 += plc_siphash13(&k, msg, len) != le64(sip13_vectors[len]);
    }
    CHECK_ALL(bad24 == 0, "SipHash-2-4 reference vectors, scalar");
    CHECK_ALL(bad13 == 0, "SipHash-1-3 derived vectors, scalar");
    long badref = 0;
    for (size_t len = 0; len < 64; len++) {
        badref += ref_siphash(2, 4, key, msg, len) != le64(sip24_vectors[len]);
        badref += ref_siphash(1, 3, key, msg, len) != le64(sip13_vectors[len]);
    }
    CHECK_ALL(badref == 0, "reference.c's transcription on both vector sets");

    /* Every batch kernel, on the 64 messages as one batch (mixed lengths)
     * and as batches of one length (each its own vector path). */
    const void *ptrs[64];
    size_t lens[64];
    uint64_t out[64];
    for (size_t i = 0; i < 64; i++)
        ptrs[i] = msg, lens[i] = i;
    for (size_t j = 0; j < NKERNELS; j++) {
        if (!runnable(&kernels[j])) {
            printf("siphash batch kernel %s: not on this CPU, skipped\n", kernels[j].name);
            continue;
        }
        long bad = 0;
        kernels[j].sip24(&k, ptrs, lens, 64, out);
        for (size_t i = 0; i < 64; i++)
            bad += out[i] != le64(sip24_vectors[i]);
        kernels[j].sip13(&k, ptrs, lens, 64, out);
        for (size_t i = 0; i < 64; i++)
            bad += out[i] != le64(sip13_vectors[i]);
        for (size_t len = 0; len < 64; len++) {
            size_t same[16];
            for (int i = 0; i < 16; i++)
                same[i] = len;
            kernels[j].sip13(&k, ptrs, same, 16, out);
            for (int i = 0; i < 16; i++)
                bad += out[i] != le64(sip13_vectors[len]);
            kernels[j].sip24(&k, ptrs, same, 16, out);
            for (int i = 0; i < 16; i++)
                bad += out[i] != le64(sip24_vectors[len]);
        }
        printf("siphash batch kernel %s: reference vectors %s\n", kernels[j].name,
               bad ? "WRONG" : "ok");
        CHECK_ALL(bad == 0, kernels[j].name);
    }
}

/* Random batches against the scalar function. */
static void random_batches(void)
{
    enum { KEYS = 41, MAXLEN = 100 };
    static unsigned char buf[KEYS][MAXLEN + 8];
    const void *ptrs[KEYS];
    size_t lens[KEYS];
    uint64_t out[KEYS + 1];
    uint64_t rng = 14;
    long bad[8] = {0};
    for (int round = 0; round < 3000; round++) {
        plc_hash_key k = {0, check_rand(&rng), check_rand(&rng)};
        size_t n = (size_t)round % (KEYS + 1);
        int mode = (int)(check_rand(&rng) % 3); /* 0 same length, 1 mixed, 2 mixed short */
        size_t common = check_rand(&rng) % MAXLEN;
        for (size_t i = 0; i < n; i++) {
            size_t off = check_rand(&rng) % 8;
            lens[i] = mode == 0 ? common : check_rand(&rng) % (mode == 1 ? MAXLEN : 20);
            for (size_t b = 0; b < lens[i]; b++)
                buf[i][off + b] = (unsigned char)check_rand(&rng);
            ptrs[i] = buf[i] + off;
        }
        for (size_t j = 0; j < NKERNELS; j++) {
            if (!runnable(&kernels[j]))
                continue;
            out[n] = 0x5a5a5a5a;
            kernels[j].sip13(&k, ptrs, lens, n, out);
            for (size_t i = 0; i < n; i++)
                bad[j] += out[i] != plc_siphash13(&k, ptrs[i], lens[i]);
            if (j == 0) { /* the scalar function against reference.c */
                unsigned char key[16];
                for (int b = 0; b < 8; b++)
                    key[b] = (unsigned char)(k.k0 >> (8 * b)), key[8 + b] = (unsigned char)(k.k1 >> (8 * b));
                for (size_t i = 0; i < n; i++)
                    bad[j] += out[i] != ref_siphash(1, 3, key, ptrs[i], lens[i]);
            }
            bad[j] += out[n] != 0x5a5a5a5a; /* nothing written past n */
        }
    }
    for (size_t j = 0; j < NKERNELS; j++)
        if (runnable(&kernels[j]))
            CHECK_ALL(bad[j] == 0, kernels[j].name);
}

/* The dispatcher under each mask picks a kernel that agrees with scalar. */
static void dispatch_at(void *ctx, const cpu_level *level)
{
    (void)ctx;
    unsigned char key[16] = "0123456789abcdef";
    plc_hash_key k = {0, le64(key), le64(key + 8)};
    const void *ptrs[9];
    size_t lens[9];
    uint64_t out[9];
    for (int i = 0; i < 9; i++)
        ptrs[i] = "The quick brown fox jumps over the lazy dog", lens[i] = 32 + (size_t)(i % 2);
    {
        const plc_kernels *kt = plc_kernels_get();
        kt->siphash13_batch(&k, ptrs, lens, 9, out);
        long bad = 0;
        for (int i = 0; i < 9; i++)
            bad += out[i] != plc_siphash13(&k, ptrs[i], lens[i]);
        printf("level %s: %s\n", level->name, kt->siphash_name);
        CHECK_ALL(bad == 0, kt->siphash_name);
        CHECK_EQ(kt->siphash13(&k, ptrs[0], 32), plc_siphash13(&k, ptrs[0], 32));
    }
}

static void dispatch(void)
{
    CHECK(for_each_cpu_level(dispatch_at, NULL) >= 1);
    CHECK(strcmp(plc_kernels_sw()->siphash_name, "siphash13-scalar") == 0);
}

int main(void)
{
    list_kernels();
    vectors();
    random_batches();
    dispatch();
    return check_done("test_siphash");
}
