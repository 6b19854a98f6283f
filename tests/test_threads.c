/*
 * test_threads.c -- the library keeps no shared mutable state: 4 threads,
 * each with its own builders, build, encode and decode every strategy and
 * every compatibility mode at once, and every thread's bytes and owners
 * must be those the main thread got alone. placer.h promises only that one
 * builder stays on one thread; anything file-wide that a build or a decode
 * writes (twemproxy's name sort went through a file-wide pointer
 * and two threads crashed in its comparator) is a race TSan reports here
 * (CI runs this test under TSan) and a crash or a wrong answer elsewhere.
 *
 * The modes with leavers build twice: every node, then without every
 * fourth one over the first build (placer_builder_set_previous), so the
 * hand-over of balanced tokens and the bucket strategies' removal histories
 * run on every thread too.
 *
 * PLACER_THREAD_ROUNDS (default 2) sets how many times each thread goes
 * through every mode.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "placer.h"

#define THREADS 4
#define KEYS 200

typedef struct mode {
    const char *name;
    int strategy;          /* 0: a compatibility mode */
    int program;           /* PLACER_COMPAT_* */
    const char *dist, *hash;
    int balanced, keyed;
    uint32_t nodes;
    int leavers; /* built over a previous build that had every node */
} mode;

/* Many nodes where a sort or a per-node loop runs long enough for two
 * threads to meet in it (twemproxy sorts its servers by name). */
static const mode modes[] = {
    {"ring", PLACER_RING, 0, NULL, NULL, 0, 0, 40, 0},
    {"ring balanced", PLACER_RING, 0, NULL, NULL, 1, 0, 40, 0},
    {"ring balanced, leavers", PLACER_RING, 0, NULL, NULL, 1, 0, 40, 1},
    {"ring keyed", PLACER_RING, 0, NULL, NULL, 0, 1, 40, 0},
    {"partitions", PLACER_PARTITIONS, 0, NULL, NULL, 0, 0, 40, 0},
    {"jump", PLACER_JUMP, 0, NULL, NULL, 0, 0, 40, 0},
    {"rendezvous", PLACER_RENDEZVOUS, 0, NULL, NULL, 0, 0, 40, 0},
    {"maglev", PLACER_MAGLEV, 0, NULL, NULL, 0, 0, 40, 0},
    {"memento, leavers", PLACER_MEMENTO, 0, NULL, NULL, 0, 0, 40, 1},
    {"anchor, leavers", PLACER_ANCHOR, 0, NULL, NULL, 0, 0, 40, 1},
    {"dx, leavers", PLACER_DX, 0, NULL, NULL, 0, 0, 40, 1},
    {"jumpback", PLACER_JUMPBACK, 0, NULL, NULL, 0, 0, 40, 0},
    {"binomial", PLACER_BINOMIAL, 0, NULL, NULL, 0, 0, 40, 0},
    {"libmemcached ketama_weighted", 0, PLACER_COMPAT_LIBMEMCACHED, "ketama_weighted", NULL, 0, 0, 30, 0},
    {"libmemcached ketama", 0, PLACER_COMPAT_LIBMEMCACHED, "ketama", "fnv1a_32", 0, 0, 30, 0},
    {"twemproxy ketama", 0, PLACER_COMPAT_TWEMPROXY, "ketama", NULL, 0, 0, 150, 0},
    {"twemproxy modula", 0, PLACER_COMPAT_TWEMPROXY, "modula", "murmur", 0, 0, 400, 0},
    {"nginx consistent", 0, PLACER_COMPAT_NGINX, "consistent", NULL, 0, 0, 20, 0},
    {"nginx hash", 0, PLACER_COMPAT_NGINX, "hash", NULL, 0, 0, 60, 0},
    {"haproxy consistent", 0, PLACER_COMPAT_HAPROXY, "consistent", NULL, 0, 0, 60, 0},
    {"haproxy map-based", 0, PLACER_COMPAT_HAPROXY, "map-based", NULL, 0, 0, 60, 0},
    {"redis", 0, PLACER_COMPAT_REDIS, NULL, NULL, 0, 0, 60, 0},
};
#define NMODES (sizeof modes / sizeof modes[0])

/* What the main thread got alone: each mode's bytes and owners. */
static void *want_bytes[NMODES];
static size_t want_len[NMODES];
static int want_owner[NMODES][KEYS];
static char keys[KEYS][24];

static long rounds = 2;
static atomic_long failures;

static void fail(const char *mode_name, const char *what)
{
    atomic_fetch_add(&failures, 1);
    fprintf(stderr, "test_threads: %s: %s\n", mode_name, what);
}

/* One build of mode m; with `leaving`, without every fourth node and over
 * `previous`. */
static placer_snapshot *build_once(const mode *m, int leaving, const placer_snapshot *previous)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return NULL;
    int rc = 0;
    for (uint32_t i = 0; i < m->nodes && rc >= 0; i++) {
        if (leaving && i % 4 == 1)
            continue;
        char id[48], addr[48], zone[8];
        /* twemproxy: unsorted names of several lengths, so its sort works */
        snprintf(id, sizeof id, "node-%u", (i * 7919u) % (m->nodes * 3u));
        snprintf(addr, sizeof addr, "10.1.%u.%u:%u", i / 250, i % 250, 11000 + i);
        snprintf(zone, sizeof zone, "z%u", i % 3);
        double w = m->program == PLACER_COMPAT_REDIS ? 1 : (double)(1 + i % 3);
        int n = placer_builder_add_node(b, id, zone, w);
        rc = n;
        if (n >= 0 && m->program)
            rc = placer_builder_set_address(b, (uint32_t)n, addr);
    }
    if (rc >= 0 && m->strategy) {
        rc = placer_builder_set_strategy(b, m->strategy);
        if (!rc && m->strategy == PLACER_RING)
            rc = placer_builder_set_vnodes(b, 16);
        if (!rc && m->strategy == PLACER_MAGLEV)
            rc = placer_builder_set_partitions(b, 1009);
        if (!rc && m->balanced) {
            rc = placer_builder_set_token_allocation(b, PLACER_TOKENS_BALANCED);
        }
        if (!rc && m->keyed) {
            static const unsigned char secret[16] = "0123456789abcdef";
            rc = placer_builder_set_secret(b, secret);
        }
    } else if (rc >= 0) {
        placer_compat_options o = {.size = sizeof o, .distribution = m->dist, .key_hash = m->hash};
        rc = placer_builder_set_compat(b, m->program, &o);
    }
    if (rc >= 0 && previous)
        rc = placer_builder_set_previous(b, previous);
    placer_snapshot *s = NULL;
    if (rc >= 0 && placer_builder_build(b, previous ? 4 : 3, &s) != 0)
        s = NULL;
    placer_builder_free(b);
    return s;
}

static placer_snapshot *build(const mode *m)
{
    placer_snapshot *s = build_once(m, 0, NULL);
    if (!s || !m->leavers)
        return s;
    placer_snapshot *after = build_once(m, 1, s);
    placer_snapshot_free(s);
    return after;
}

/* Builds, encodes and decodes mode k; 0 when all matches the main thread's. */
static int run_mode(size_t k, int record)
{
    const mode *m = &modes[k];
    placer_snapshot *s = build(m);
    if (!s) {
        fail(m->name, "build failed");
        return -1;
    }
    void *buf = NULL;
    size_t len = 0;
    int rc = placer_snapshot_encode(s, &buf, &len);
    placer_snapshot_free(s);
    if (rc) {
        fail(m->name, "encode failed");
        return -1;
    }
    if (record) {
        want_bytes[k] = buf;
        want_len[k] = len;
    } else if (len != want_len[k] || memcmp(buf, want_bytes[k], len) != 0) {
        fail(m->name, "bytes differ from the single-threaded build");
    }
    /* decode the expected bytes (another thread may decode them at once) */
    placer_snapshot *d = NULL;
    if (placer_snapshot_decode(want_bytes[k], want_len[k], &d) != 0) {
        fail(m->name, "decode failed");
    } else {
        for (int i = 0; i < KEYS; i++) {
            int o = placer_lookup(d, keys[i], strlen(keys[i]));
            if (record)
                want_owner[k][i] = o;
            else if (o != want_owner[k][i]) {
                fail(m->name, "owner differs from the single-threaded one");
                break;
            }
        }
        placer_snapshot_free(d);
    }
    if (!record)
        placer_buffer_free(buf);
    return 0;
}

static void *worker(void *arg)
{
    size_t start = (size_t)(uintptr_t)arg;
    for (long r = 0; r < rounds; r++)
        for (size_t j = 0; j < NMODES; j++)
            run_mode((start + j) % NMODES, 0); /* threads in different modes too */
    return NULL;
}

int main(void)
{
    const char *env = getenv("PLACER_THREAD_ROUNDS");
    if (env && *env)
        rounds = strtol(env, NULL, 10);
    for (int i = 0; i < KEYS; i++)
        snprintf(keys[i], sizeof keys[i], "key-%d", i * 31);
    for (size_t k = 0; k < NMODES; k++)
        CHECK_EQ(run_mode(k, 1), 0);
    CHECK_EQ(atomic_load(&failures), 0);
    /* Every thread starts in the same mode half the time: two threads in
     * the twemproxy sort at once is what crashed. */
    size_t twemproxy = 0;
    while (twemproxy < NMODES && strcmp(modes[twemproxy].name, "twemproxy ketama"))
        twemproxy++;
    CHECK(twemproxy < NMODES);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, worker,
                                (void *)(uintptr_t)(twemproxy + (i % 2 ? 0 : (size_t)i))),
                 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(atomic_load(&failures), 0);
    for (size_t k = 0; k < NMODES; k++)
        placer_buffer_free(want_bytes[k]);
    printf("test_threads: %d threads x %ld rounds x %zu modes\n", THREADS, rounds, NMODES);
    return check_done("test_threads");
}
