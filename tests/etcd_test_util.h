/*
 * etcd_test_util.h -- what the etcd tests share beyond the harness: a small
 * ring snapshot, a clock, naps, a follower wait, and running a shell
 * command (the placer CLI, etcdctl, openssl) for its exit code.
 */
#ifndef PLACER_TESTS_ETCD_TEST_UTIL_H
#define PLACER_TESTS_ETCD_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include "placer.h"
#include "placer_control.h"

static inline placer_snapshot *tu_ring(uint64_t epoch, uint32_t nodes)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_vnodes(b, 16);
    for (uint32_t i = 0; i < nodes; i++) {
        char id[16];
        snprintf(id, sizeof id, "node-%u", i);
        placer_builder_add_node(b, id, "z", 1);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    return s;
}

static inline double tu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void tu_nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait (at most seconds) until the follower serves epoch; 1 when it does. */
static inline int tu_wait_epoch(placer_follower *f, uint64_t epoch, double seconds)
{
    double until = tu_now() + seconds;
    placer_follower_status st = {.size = sizeof st};
    do {
        placer_follower_status_get(f, &st);
        if (st.epoch == epoch)
            return 1;
        tu_nap_ms(20);
    } while (tu_now() < until);
    fprintf(stderr, "follower: epoch %llu, not %llu; last error: %s\n",
            (unsigned long long)st.epoch, (unsigned long long)epoch, st.last_error);
    return 0;
}

/* Run a shell command (printf-style); its exit status, or -1. */
__attribute__((format(printf, 1, 2))) static inline int tu_sh(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof cmd)
        return -1;
    int st = system(cmd);
    return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
