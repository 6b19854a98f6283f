/*
 * etcd_latency.c -- time from placer_etcd_publish to every follower
 * serving the new epoch, through a real 3-member etcd cluster on this
 * machine (tests/etcd_harness.c), for a 30,720-token and a 2^20-token ring
 * snapshot, with 1 and 8 followers (each its own thread, etcd client and
 * router, as 8 routers would be). Prints the median and p99 of each.
 *
 * usage: etcd_latency [SAMPLES] [--small]   (default 40 samples; --small
 * skips the 2^20-token snapshot, for the smoke run)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etcd_harness.h"
#include "placer_control.h"

#define KEY "/placer/bench"
#define MAX_FOLLOWERS 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct watcher {
    _Atomic uint64_t epoch;
    _Atomic double at;
} watcher;

static void on_event(void *ctx, uint64_t epoch, int accepted, const char *reason)
{
    (void)reason;
    watcher *w = ctx;
    if (accepted) {
        atomic_store(&w->at, now());
        atomic_store(&w->epoch, epoch);
    }
}

static placer_snapshot *ring(uint32_t nodes, uint32_t vnodes, uint64_t epoch)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, vnodes);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%03u", i);
        placer_builder_add_node(b, id, NULL, 1);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    return s;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int run(const etcd_cluster *c, uint32_t nodes, uint32_t vnodes, int followers, int samples,
               uint64_t *epoch)
{
    watcher w[MAX_FOLLOWERS];
    placer_follower *f[MAX_FOLLOWERS];
    placer_snapshot *s = ring(nodes, vnodes, ++*epoch);
    void *buf;
    size_t bytes;
    placer_snapshot_encode(s, &buf, &bytes);
    placer_buffer_free(buf);
    if (placer_etcd_publish(c->endpoints, KEY, s, 10000, NULL, NULL, 0)) {
        placer_snapshot_free(s);
        return -1;
    }
    placer_snapshot_free(s);
    for (int i = 0; i < followers; i++) {
        atomic_init(&w[i].epoch, 0);
        atomic_init(&w[i].at, 0.0);
        placer_follower_start(c->endpoints, KEY, NULL, on_event, &w[i], &f[i]);
    }
    for (int i = 0; i < followers; i++) /* the first read */
        while (atomic_load(&w[i].epoch) < *epoch)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    double *lat = malloc((size_t)samples * sizeof *lat);
    for (int k = 0; k < samples; k++) {
        s = ring(nodes, vnodes, ++*epoch);
        double t0 = now();
        int err = placer_etcd_publish(c->endpoints, KEY, s, 10000, NULL, NULL, 0);
        placer_snapshot_free(s);
        if (err) {
            fprintf(stderr, "publish: %s\n", placer_strerror(err));
            return -1;
        }
        double last = 0;
        for (int i = 0; i < followers; i++) {
            double until = now() + 30;
            while (atomic_load(&w[i].epoch) < *epoch && now() < until)
                nanosleep(&(struct timespec){0, 100000}, NULL);
            last = atomic_load(&w[i].at) > last ? atomic_load(&w[i].at) : last;
        }
        lat[k] = last - t0;
    }
    qsort(lat, (size_t)samples, sizeof *lat, cmp);
    double median = lat[samples / 2], p99 = lat[(int)((samples - 1) * 0.99 + 0.5)];
    printf("%8u tokens (%6.2f MB), %d follower%s: median %7.2f ms, p99 %7.2f ms (%d publishes)\n",
           nodes * vnodes, (double)bytes / 1e6, followers, followers == 1 ? " " : "s", median * 1e3,
           p99 * 1e3, samples);
    fflush(stdout);
    free(lat);
    for (int i = 0; i < followers; i++)
        placer_follower_stop(f[i]);
    return 0;
}

int main(int argc, char **argv)
{
    int samples = argc > 1 ? atoi(argv[1]) : 40, small = argc > 2 && !strcmp(argv[2], "--small");
    if (samples < 1)
        samples = 40;
    if (!etcd_available()) {
        printf("etcd_latency: etcd is not installed, skipped\n");
        return 77;
    }
    etcd_cluster c;
    if (etcd_start(&c, 3)) {
        fprintf(stderr, "etcd_latency: the cluster did not start\n");
        etcd_destroy(&c);
        return 1;
    }
    printf("publish -> every follower serving the new epoch, 3-member etcd on this machine\n");
    uint64_t epoch = 0;
    int err = 0;
    static const int counts[] = {1, 8};
    for (int i = 0; i < 2 && !err; i++)
        err = run(&c, 120, 256, counts[i], samples, &epoch);
    for (int i = 0; i < 2 && !err && !small; i++)
        err = run(&c, 128, 8192, counts[i], samples / 2 > 0 ? samples / 2 : 1, &epoch);
    etcd_destroy(&c);
    return err ? 1 : 0;
}
