/* fixtures.c -- see fixtures.h. Keys are fixed-seed random bytes. */
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snapshot_internal.h"

const uint32_t bench_sizes[BENCH_NSIZES] = {1024, 30720, 1u << 18, 1u << 20, 1u << 22, 1u << 24};
static const char *const size_names[BENCH_NSIZES] = {"1024", "30720", "2^18", "2^20", "2^22", "2^24"};
static ring_fixture fixtures[BENCH_NSIZES];

void bench_session_keys(uint32_t n, unsigned char **bytes, const void ***ptrs, size_t **lens)
{
    *bytes = malloc((size_t)n * 32);
    *ptrs = malloc((size_t)n * sizeof **ptrs);
    *lens = malloc((size_t)n * sizeof **lens);
    if (!*bytes || !*ptrs || !*lens) {
        fprintf(stderr, "bench: out of memory for %u keys\n", n);
        exit(1);
    }
    char buf[40];
    for (size_t i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "sess::%026zu", (size_t)(i * 2654435761u));
        memcpy(*bytes + 32 * i, buf, 32);
        (*ptrs)[i] = *bytes + 32 * i;
        (*lens)[i] = 32;
    }
}

const char *bench_size_name(int i)
{
    return size_names[i];
}

placer_snapshot *bench_seed_ring(uint64_t epoch)
{
    return bench_seed_ring_less(epoch, 120);
}

placer_snapshot *bench_seed_ring_less(uint64_t epoch, unsigned left_out)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 256);
    char id[32], zone[16];
    for (unsigned n = 0; n < 120; n++) {
        if (n == left_out)
            continue;
        snprintf(id, sizeof id, "node-%03u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    placer_snapshot *s = NULL;
    if (placer_builder_build(b, epoch, &s) != 0)
        s = NULL;
    placer_builder_free(b);
    return s;
}

static void *aligned(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const ring_fixture *bench_fixture(int i)
{
    ring_fixture *f = &fixtures[i];
    if (f->snap)
        return f;
    f->size = bench_sizes[i];
    f->nodes = f->size == 30720 ? 120 : 128;
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, f->size / f->nodes);
    char id[32], zone[16];
    for (uint32_t n = 0; n < f->nodes; n++) {
        snprintf(id, sizeof id, "node-%03u", n);
        snprintf(zone, sizeof zone, "zone-%u", n % 3);
        placer_builder_add_node(b, id, zone, 1.0);
    }
    double t0 = now_ms();
    if (placer_builder_build(b, 1, &f->snap) != 0) {
        fprintf(stderr, "bench: cannot build a ring of %u tokens\n", f->size);
        exit(1);
    }
    f->build_ms = now_ms() - t0;
    placer_builder_free(b);
    f->tree = &f->snap->tree;
    f->tokens = aligned((size_t)f->size * sizeof *f->tokens);
    f->owners = aligned((size_t)f->size * sizeof *f->owners);
    for (uint32_t t = 0; t < f->size; t++)
        placer_token_at(f->snap, t, &f->tokens[t], &f->owners[t]);
    size_t kb, ob;
    plc_eytzinger_size(f->size, &kb, &ob);
    plc_eytzinger_build(&f->eyt, f->tokens, f->owners, f->size, aligned(kb), aligned(ob));

    f->keys = malloc((size_t)BENCH_KEYS * BENCH_KEY_LEN);
    f->key_ptrs = malloc(BENCH_KEYS * sizeof *f->key_ptrs);
    f->key_lens = malloc(BENCH_KEYS * sizeof *f->key_lens);
    f->hashes = aligned(BENCH_KEYS * sizeof *f->hashes);
    uint64_t x = 0x2545F4914F6CDD1Du + (uint64_t)i;
    for (size_t k = 0; k < (size_t)BENCH_KEYS * BENCH_KEY_LEN; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        f->keys[k] = (unsigned char)('a' + x % 26);
    }
    for (uint32_t k = 0; k < BENCH_KEYS; k++) {
        f->key_ptrs[k] = f->keys + (size_t)k * BENCH_KEY_LEN;
        f->key_lens[k] = BENCH_KEY_LEN;
        f->hashes[k] = placer_snapshot_hash(f->snap, f->key_ptrs[k], BENCH_KEY_LEN);
    }
    return f;
}

double bench_thread_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, uint32_t n)
{
    qsort(v, n, sizeof v[0], cmp_double);
    return n ? v[n / 2] : 0;
}
