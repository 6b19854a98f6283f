/*
 * bench_build_scale.c -- a ring build at scale against its floor, paired in
 * one process: 65,536 nodes x 256 vnodes (16.7 M tokens), and 4,096 x 256
 * (the smoke run's size).
 *
 * The floor is what any build must do: hash every node's token names
 * ("<id>-<j>", the build's batch kernel and key) into (token, owner) pairs,
 * then an out-of-place LSD radix sort of the pairs (8-bit digits, the
 * histograms in one pass) into a tokens array and an owners array. Its
 * buffers are allocated and touched once, before timing, so it pays no page
 * faults. The build is placer_builder_build of the same builder, then
 * placer_snapshot_free. Both are checked once to give the same tokens and
 * owners; a mismatch skips the benchmark.
 *
 * Each pair runs the floor and the build in alternating order, timed by the
 * thread's CPU time (user and system: page faults count); the counter
 * over_floor is the median of the pairs' build / floor ratios. Peak memory
 * is read from the kernel for each build: VmHWM reset to VmRSS through
 * /proc/self/clear_refs ("5"), then peak_over_snapshot = (VmHWM after the
 * build - VmRSS before) / (VmRSS with the snapshot held - VmRSS before), the
 * largest over the builds. Counters in MiB and ms are medians; the
 * benchmark's time is the builds' alone (the floor's passes are paused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "benches.h"
#include "fixtures.h"
#include "kernels.h"
#include "placer.h"
#include "shim.h"
#include "snapshot_internal.h"

typedef struct scale_size {
    uint32_t nodes, vnodes;
} scale_size;

typedef struct pair {
    uint64_t token;
    uint64_t owner;
} pair;

typedef struct floor_bufs {
    uint32_t nodes, vnodes;
    size_t n;
    char (*ids)[16];
    pair *a, *b;
    uint64_t *tokens;
    uint32_t *owners;
} floor_bufs;

#define NAME_BATCH 32u
#define DIGIT 8u /* against 11 and 16 bits: the fastest here */
#define PASSES 8u
#define RADIX (1u << DIGIT)

/* v in decimal at to, no terminator; returns the digits' count. */
static size_t decimal(char *to, uint32_t v)
{
    char rev[10];
    size_t d = 0;
    do
        rev[d++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < d; i++)
        to[i] = rev[d - 1 - i];
    return d;
}

/* Hash every node's names into f->a, nodes in id order, vnodes ascending. */
static void floor_hash(const floor_bufs *f, plc_hash_batch_fn batch, const plc_hash_key *key)
{
    char names[NAME_BATCH][32];
    const void *ptr[NAME_BATCH];
    size_t len[NAME_BATCH];
    uint64_t h[NAME_BATCH];
    for (uint32_t i = 0; i < NAME_BATCH; i++)
        ptr[i] = names[i];
    size_t at = 0;
    for (uint32_t n = 0; n < f->nodes; n++) {
        size_t idlen = strlen(f->ids[n]);
        for (uint32_t i = 0; i < NAME_BATCH; i++) {
            memcpy(names[i], f->ids[n], idlen);
            names[i][idlen] = '-';
        }
        for (uint32_t j = 0; j < f->vnodes; j += NAME_BATCH) {
            uint32_t m = f->vnodes - j < NAME_BATCH ? f->vnodes - j : NAME_BATCH;
            for (uint32_t i = 0; i < m; i++)
                len[i] = idlen + 1 + decimal(names[i] + idlen + 1, j + i);
            batch(key, ptr, len, m, h);
            for (uint32_t i = 0; i < m; i++)
                f->a[at++] = (pair){h[i], n};
        }
    }
}

/* LSD radix sort of f->a by token into f->tokens and f->owners. */
static void floor_sort(floor_bufs *f)
{
    static size_t count[PASSES][RADIX];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < f->n; i++)
        for (unsigned p = 0; p < PASSES; p++)
            count[p][(f->a[i].token >> (p * DIGIT)) & (RADIX - 1)]++;
    for (unsigned p = 0; p < PASSES; p++)
        for (size_t v = 0, at = 0; v < RADIX; v++) {
            size_t c = count[p][v];
            count[p][v] = at;
            at += c;
        }
    pair *src = f->a, *dst = f->b;
    for (unsigned p = 0; p + 1 < PASSES; p++) {
        for (size_t i = 0; i < f->n; i++)
            dst[count[p][(src[i].token >> (p * DIGIT)) & (RADIX - 1)]++] = src[i];
        pair *t = src;
        src = dst;
        dst = t;
    }
    const unsigned p = PASSES - 1;
    for (size_t i = 0; i < f->n; i++) {
        size_t to = count[p][(src[i].token >> (p * DIGIT)) & (RADIX - 1)]++;
        f->tokens[to] = src[i].token;
        f->owners[to] = (uint32_t)src[i].owner;
    }
}

static uint64_t run_floor(floor_bufs *f, plc_hash_batch_fn batch, const plc_hash_key *key)
{
    floor_hash(f, batch, key);
    floor_sort(f);
    return f->tokens[f->n / 2] + f->owners[f->n - 1];
}

/* A field of /proc/self/status in bytes ("VmRSS", "VmHWM"); 0 if unread. */
static double status_bytes(const char *field)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    double v = 0;
    size_t fl = strlen(field);
    while (fp && fgets(line, sizeof line, fp))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
            v = strtod(line + fl + 1, NULL) * 1024.0;
            break;
        }
    if (fp)
        fclose(fp);
    return v;
}

/* Reset VmHWM to the current RSS; 0 on success. */
static int reset_peak(void)
{
    FILE *fp = fopen("/proc/self/clear_refs", "w");
    if (!fp)
        return -1;
    int ok = fputs("5", fp) >= 0;
    return fclose(fp) == 0 && ok ? 0 : -1;
}

static double thread_sys_ns(void)
{
    struct rusage u;
    getrusage(RUSAGE_THREAD, &u);
    return (double)u.ru_stime.tv_sec * 1e9 + (double)u.ru_stime.tv_usec * 1e3;
}

/* The floor's result against the snapshot's tree; 0 when equal. */
static int same_ring(const floor_bufs *f, const placer_snapshot *s)
{
    if (s->tree.n != f->n)
        return -1;
    for (uint32_t i = 0; i < f->n; i++)
        if (plc_stree_token(&s->tree, i) != f->tokens[i] || plc_stree_owner_at(&s->tree, i) != f->owners[i])
            return -1;
    return 0;
}

#define MAX_PAIRS 256u

static void bench_build_scale(plc_bench *b, const void *arg)
{
    const scale_size *sz = arg;
    floor_bufs f = {sz->nodes, sz->vnodes, (size_t)sz->nodes * sz->vnodes, NULL, NULL, NULL, NULL, NULL};
    f.ids = malloc(f.nodes * sizeof *f.ids);
    f.a = malloc(f.n * sizeof *f.a);
    f.b = malloc(f.n * sizeof *f.b);
    f.tokens = malloc(f.n * sizeof *f.tokens);
    f.owners = malloc(f.n * sizeof *f.owners);
    placer_builder *bld = placer_builder_new();
    if (!f.ids || !f.a || !f.b || !f.tokens || !f.owners || !bld ||
        placer_builder_set_vnodes(bld, f.vnodes) != 0) {
        plc_bench_skip(b, "out of memory");
        goto out;
    }
    for (uint32_t n = 0; n < f.nodes; n++) {
        snprintf(f.ids[n], sizeof f.ids[n], "node-%05u", n); /* id order is index order */
        placer_builder_add_node(bld, f.ids[n], "z", 1.0);
    }
    /* Touch the floor's buffers once: it pays no page faults. */
    memset(f.a, 0, f.n * sizeof *f.a);
    memset(f.b, 0, f.n * sizeof *f.b);
    memset(f.tokens, 0, f.n * sizeof *f.tokens);
    memset(f.owners, 0, f.n * sizeof *f.owners);
    plc_hash_key key = {placer_builder_seed(bld), 0, 0};
    plc_hash_batch_fn batch = plc_kernels_get()->hash_v2_batch;
    placer_snapshot *s = NULL;
    uint64_t acc = run_floor(&f, batch, &key);
    if (placer_builder_build(bld, 1, &s) != 0 || same_ring(&f, s) != 0) {
        placer_snapshot_free(s);
        plc_bench_skip(b, "the floor and the build differ: not timed");
        goto out;
    }
    double layout = (double)placer_snapshot_layout_bytes(s);
    placer_snapshot_free(s);
    int peaks = reset_peak() == 0;
    static double ratio[MAX_PAIRS], fl_ms[MAX_PAIRS], bu_ms[MAX_PAIRS], sys_ms[MAX_PAIRS],
        peak_mib[MAX_PAIRS], snap_mib[MAX_PAIRS];
    double worst = 0;
    uint32_t np = 0;
    while (plc_bench_keep_running(b, 1)) {
        double t[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            int build = (k + (int)np) % 2 == 0;
            if (!build) { /* the benchmark's own time is the builds' */
                plc_bench_pause(b);
                double t0 = bench_thread_ns();
                acc += run_floor(&f, batch, &key);
                t[0] = bench_thread_ns() - t0;
                plc_bench_resume(b);
                continue;
            }
            if (peaks)
                reset_peak();
            double rss0 = status_bytes("VmRSS"), sys0 = thread_sys_ns();
            double t0 = bench_thread_ns();
            int err = placer_builder_build(bld, 1, &s);
            t[1] = bench_thread_ns() - t0;
            double sys = thread_sys_ns() - sys0;
            double hwm = status_bytes("VmHWM"), rss1 = status_bytes("VmRSS");
            if (err) {
                plc_bench_skip(b, "build failed");
                goto out;
            }
            acc += placer_lookup(s, "k", 1) > 0;
            placer_snapshot_free(s);
            if (np < MAX_PAIRS) {
                sys_ms[np] = sys / 1e6;
                peak_mib[np] = (hwm - rss0) / 1048576.0;
                snap_mib[np] = (rss1 - rss0) / 1048576.0;
                if (peaks && rss1 > rss0 && (hwm - rss0) / (rss1 - rss0) > worst)
                    worst = (hwm - rss0) / (rss1 - rss0);
            }
        }
        if (np < MAX_PAIRS) {
            ratio[np] = t[1] / t[0];
            fl_ms[np] = t[0] / 1e6;
            bu_ms[np] = t[1] / 1e6;
            np++;
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_items(b, plc_bench_iterations(b));
    plc_bench_counter(b, "over_floor", bench_median(ratio, np), 0);
    plc_bench_counter(b, "floor_ms", bench_median(fl_ms, np), 0);
    plc_bench_counter(b, "build_ms", bench_median(bu_ms, np), 0);
    plc_bench_counter(b, "build_sys_ms", bench_median(sys_ms, np), 0);
    if (peaks) {
        plc_bench_counter(b, "peak_mib", bench_median(peak_mib, np), 0);
        plc_bench_counter(b, "snapshot_mib", bench_median(snap_mib, np), 0);
        plc_bench_counter(b, "peak_over_snapshot", worst, 0);
    }
    plc_bench_counter(b, "layout_mib", layout / 1048576.0, 0);
    plc_bench_counter(b, "pairs", np, 0);
    plc_bench_counter(b, "tokens", (double)f.n, 0);
out:
    placer_builder_free(bld);
    free(f.ids);
    free(f.a);
    free(f.b);
    free(f.tokens);
    free(f.owners);
}

void register_build_scale_benches(void)
{
    static const scale_size sizes[] = {{4096, 256}, {65536, 256}};
    plc_bench_register("build/scale/4096x256", bench_build_scale, &sizes[0]);
    plc_bench_register("build/scale/65536x256", bench_build_scale, &sizes[1]);
}
