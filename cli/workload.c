/*
 * workload.c -- the simulator's keys, per-key QPS and value sizes, all
 * derived from one seed with splitmix64, so a workload is the same on
 * every machine:
 *   keys   sequential ("key-0", "key-1", ...), uniform random (16 random
 *          bytes as 32 hex digits), or the lines of a file;
 *   QPS    uniform (1 each) or Zipf with exponent s over a random ranking of
 *          the keys (key of rank r gets 1 / r^s);
 *   sizes  fixed, uniform in [a, b], or log-normal (mu, sigma) by
 *          Box-Muller, rounded to whole bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate.h"

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) /* (0, 1) */
{
    return ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static int make_keys(const plc_workload *w, plc_keys *k, uint64_t *rng)
{
    uint64_t n = w->keys;
    if (w->key_dist == PLC_KEYS_FILE) {
        n = 0;
        for (size_t i = 0; i < w->key_file_len; i++)
            n += w->key_file_text[i] == '\n';
        n += w->key_file_len && w->key_file_text[w->key_file_len - 1] != '\n';
        if (w->keys && w->keys < n)
            n = w->keys;
    }
    if (!n)
        return PLACER_EINVAL;
    /* generated keys: at most 32 bytes each, plus the NUL snprintf ends the last with */
    size_t bytes = w->key_dist == PLC_KEYS_FILE ? w->key_file_len : (size_t)n * 32 + 1;
    k->bytes = malloc(bytes ? bytes : 1);
    k->offsets = malloc((n + 1) * sizeof *k->offsets);
    if (!k->bytes || !k->offsets)
        return PLACER_ENOMEM;
    uint64_t at = 0;
    const char *src = w->key_file_text, *end = src + w->key_file_len;
    for (uint64_t i = 0; i < n; i++) {
        k->offsets[i] = at;
        if (w->key_dist == PLC_KEYS_SEQUENTIAL) {
            at += (uint64_t)snprintf(k->bytes + at, 32, "key-%llu", (unsigned long long)i);
        } else if (w->key_dist == PLC_KEYS_UNIFORM) {
            at += (uint64_t)snprintf(k->bytes + at, 33, "%016llx%016llx",
                                     (unsigned long long)next(rng), (unsigned long long)next(rng));
        } else {
            const char *nl = memchr(src, '\n', (size_t)(end - src));
            size_t len = (size_t)((nl ? nl : end) - src);
            memcpy(k->bytes + at, src, len);
            at += len;
            src += len + (nl != NULL);
        }
    }
    k->offsets[n] = at;
    k->n = n;
    return 0;
}

int plc_workload_generate(const plc_workload *w, plc_keys *k)
{
    memset(k, 0, sizeof *k);
    uint64_t rng = w->seed ^ UINT64_C(0x5eed5eed5eed5eed);
    int err = make_keys(w, k, &rng);
    if (err) {
        plc_keys_free(k);
        return err;
    }
    uint64_t n = k->n;
    k->qps = malloc(n * sizeof *k->qps);
    k->size = malloc(n * sizeof *k->size);
    if (!k->qps || !k->size) {
        plc_keys_free(k);
        return PLACER_ENOMEM;
    }
    if (w->qps_dist == PLC_QPS_ZIPF) {
        /* ranks: a seeded shuffle (Fisher-Yates), so the hot keys are spread */
        uint64_t *rank = malloc(n * sizeof *rank);
        if (!rank) {
            plc_keys_free(k);
            return PLACER_ENOMEM;
        }
        for (uint64_t i = 0; i < n; i++)
            rank[i] = i;
        for (uint64_t i = n - 1; i > 0; i--) {
            uint64_t j = next(&rng) % (i + 1), t = rank[i];
            rank[i] = rank[j];
            rank[j] = t;
        }
        double total = 0;
        for (uint64_t i = 0; i < n; i++)
            total += k->qps[i] = 1.0 / pow((double)(rank[i] + 1), w->zipf_s);
        free(rank);
        k->hottest = 1.0 / total;
    } else {
        for (uint64_t i = 0; i < n; i++)
            k->qps[i] = 1.0;
        k->hottest = 1.0 / (double)n;
    }
    for (uint64_t i = 0; i < n; i++) {
        double v = w->size_a;
        if (w->size_dist == PLC_SIZE_UNIFORM) {
            v = w->size_a + (double)(next(&rng) % (uint64_t)(w->size_b - w->size_a + 1));
        } else if (w->size_dist == PLC_SIZE_LOGNORMAL) {
            double u1 = unit(&rng), u2 = unit(&rng);
            double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            v = round(exp(w->size_a + w->size_b * z));
        }
        k->size[i] = v;
    }
    return 0;
}

void plc_keys_free(plc_keys *k)
{
    free(k->bytes);
    free(k->offsets);
    free(k->qps);
    free(k->size);
    memset(k, 0, sizeof *k);
}
