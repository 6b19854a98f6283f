/*
 * test_etcd_soak.c -- faults in a seeded random order against a 3-member
 * etcd cluster on 127.0.0.1 (free ports; skipped with exit 77 when etcd is
 * not installed), while one publisher publishes a new epoch every 150 to
 * 400 ms and four followers watch (two on every member, two pinned to
 * member 0 and member 1). The kinds of fault:
 *   leader-kill    SIGKILL the leader, restart it after 0.2 to 1.5 s;
 *   restart        SIGTERM a random member, restart it;
 *   pause          SIGSTOP a random member for 0.3 to 2.5 s, then SIGCONT;
 *   compact        kill the member a pinned follower watches, publish two
 *                  epochs, compact the history past the follower's
 *                  revision, restart the member (the follower must read
 *                  afresh);
 *   oversize       publish a 1.7 MiB snapshot (two chunks, over etcd's
 *                  1.5 MiB request limit), then write two torn manifests
 *                  by hand (a chunk missing; a chunk altered) that every
 *                  follower must refuse;
 *   unknown        the publisher's transaction loses its answer: a loopback
 *                  proxy in front of a member drops the member's reply, or
 *                  (every other time) SIGSTOPs the member as soon as the
 *                  request is in
 *                  (tests/etcd_soak_proxy.h); the publish must be resolved
 *                  by reading back, and is reported as such.
 * Checked throughout: every snapshot a follower accepts is byte for byte
 * the one published for its epoch (CRC-32C of its encoding), epochs only go
 * forward, and the stored snapshot can be fetched after every fault. At the
 * end: every follower serves the stored epoch, the stored epoch is the last
 * one the publisher saw land, and the epoch key's version (puts since it
 * was created) equals the number of publishes that landed: none lost, none
 * applied twice. Prints each kind's count and convergence time (from the
 * fault's end to every follower serving an epoch published after it).
 *
 * Usage: test_etcd_soak [--per-kind N] [--seed S]   (3 per kind by default)
 */
#define PLACER_STATIC_LINKING_ONLY
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "etcd_harness.h"
#include "etcd_soak_proxy.h"
#include "etcd_soak_raw.h"
#include "etcd_test_util.h"

#define KEY "/placer/soak/ring"
#define EPOCH_KEY KEY "/epoch"
#define MAX_EPOCHS 65536 /* bounds the publisher: at 4 a second, over 4 hours */
#define FOLLOWERS 4
#define CONVERGE_S 60.0 /* the longest wait for followers after a fault */

enum { LEADER_KILL, RESTART, PAUSE, COMPACT, OVERSIZE, UNKNOWN, KINDS };
static const char *const kind_name[KINDS] = {"leader-kill", "restart", "pause",
                                             "compact", "oversize", "unknown"};

typedef struct follower {
    placer_router *r;
    placer_follower *f;
    atomic_ullong last;
    atomic_long accepted, rejected, backwards, wrong;
} follower;

typedef struct soak {
    etcd_cluster c;
    soak_proxy proxy;
    char members[ETCD_MAX_MEMBERS][64]; /* client URLs */
    char publish_to[1024];              /* the proxy, then every member */
    follower fl[FOLLOWERS];
    _Atomic uint32_t crc[MAX_EPOCHS];   /* CRC-32C of each epoch's encoding */
    atomic_int stop_publishing, want_big;
    atomic_ullong landed;               /* the last epoch that landed */
    atomic_long landed_count, big_landed;
    atomic_long unknown_done;           /* publishes whose answer was lost, resolved */
    atomic_long by_library, by_retry, by_read_back, republished; /* how they were resolved */
    atomic_long rival_less_conflicts;   /* ECONFLICT with no other publisher */
    atomic_long failed_publishes;
    atomic_long unloadable;             /* a stored snapshot a newcomer could not fetch */
    void *big_bytes;                    /* the last big snapshot's encoding, set */
    size_t big_len;                     /* before big_landed names its epoch */
    uint64_t seed;
} soak;

static soak *S; /* for the signal handler */

/* Any way out: no member outlives the soak. */
static void kill_members(void)
{
    if (!S)
        return;
    for (int i = 0; i < S->c.n; i++)
        if (S->c.pid[i] > 0) {
            kill(S->c.pid[i], SIGKILL);
            kill(S->c.pid[i], SIGCONT);
        }
}

static void on_signal(int sig)
{
    kill_members();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A small ring of 6 to 10 nodes (etcd_test_util.h). */
static placer_snapshot *small_ring(uint64_t epoch)
{
    return tu_ring(epoch, (uint32_t)(6 + epoch % 5));
}

/* 1.7 MiB encoded, over etcd's 1.5 MiB request limit: two chunks. */
static placer_snapshot *big_ring(uint64_t epoch)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_seed(b, epoch);
    placer_builder_set_vnodes(b, 1500);
    for (int i = 0; i < 100; i++) {
        char id[16];
        snprintf(id, sizeof id, "big-%d", i);
        placer_builder_add_node(b, id, NULL, 1);
    }
    placer_snapshot *s = NULL;
    placer_builder_build(b, epoch, &s);
    placer_builder_free(b);
    return s;
}

static uint32_t crc_of(const placer_snapshot *s, void **bytes, size_t *len)
{
    void *buf = NULL;
    size_t n = 0;
    placer_snapshot_encode(s, &buf, &n);
    uint32_t crc = placer_crc32c(0, buf, n);
    if (bytes) {
        *bytes = buf;
        *len = n;
    } else {
        placer_buffer_free(buf);
    }
    return crc;
}

static uint64_t rnd(uint64_t *state, uint64_t n)
{
    return check_rand(state) % n;
}

/* ---- followers ---------------------------------------------------------- */

static void on_event(void *ctx, uint64_t epoch, int accepted, const char *reason)
{
    (void)reason;
    follower *fl = ctx;
    if (!accepted) {
        atomic_fetch_add(&fl->rejected, 1);
        return;
    }
    atomic_fetch_add(&fl->accepted, 1);
    if (epoch <= atomic_load(&fl->last))
        atomic_fetch_add(&fl->backwards, 1);
    atomic_store(&fl->last, epoch);
    /* this thread alone publishes into the router: what it serves now is
     * what it just accepted, and must be what was published for epoch */
    const placer_snapshot *s = placer_router_acquire(fl->r);
    uint32_t want = epoch < MAX_EPOCHS ? atomic_load(&S->crc[epoch]) : 0;
    if (placer_snapshot_epoch(s) != epoch || !want || crc_of(s, NULL, NULL) != want) {
        atomic_fetch_add(&fl->wrong, 1);
        fprintf(stderr, "soak: a follower accepted epoch %llu that is not the one published\n",
                (unsigned long long)epoch);
    }
    placer_router_release(fl->r, s);
}

/* Wait until every follower serves epoch or later; the time it took, or -1. */
static double wait_followers(soak *s, uint64_t epoch, double since)
{
    double until = tu_now() + CONVERGE_S;
    for (;;) {
        int all = 1;
        for (int i = 0; i < FOLLOWERS; i++)
            all &= placer_router_epoch(s->fl[i].r) >= epoch;
        if (all)
            return tu_now() - since;
        if (tu_now() > until)
            break;
        tu_nap_ms(5);
    }
    for (int i = 0; i < FOLLOWERS; i++) {
        placer_follower_status st = {.size = sizeof st};
        placer_follower_status_get(s->fl[i].f, &st);
        fprintf(stderr, "soak: follower %d at epoch %llu, not %llu; last error: %s\n", i,
                (unsigned long long)placer_router_epoch(s->fl[i].r), (unsigned long long)epoch,
                st.last_error);
    }
    return -1;
}

/* ---- the publisher ------------------------------------------------------ */

/* The epoch stored under EPOCH_KEY (0 when none), or -1 when unreadable
 * for 30 s. */
static long long stored_epoch(soak *s, long long *version)
{
    char *v;
    size_t len;
    long long rev, ver = 0;
    for (int t = 0; t < 30; t++) {
        if (!raw_get(s->c.endpoints, EPOCH_KEY, &v, &len, &ver, &rev)) {
            long long e = v ? atoll(v) : 0;
            free(v);
            if (version)
                *version = ver;
            return e;
        }
        tu_nap_ms(1000);
    }
    return -1;
}

static void *publish_loop(void *arg)
{
    soak *s = arg;
    uint64_t rng = s->seed ^ 0x7075626c697368, epoch = 1;
    int retry = 0;   /* this epoch was tried before, its outcome unknown */
    int pending = 0; /* this epoch's publish lost an answer */
    int big = 0;     /* this epoch's snapshot is the big one (kept for a retry) */
    double give_up = tu_now() + 4 * 3600;
    while (!atomic_load(&s->stop_publishing) && epoch < MAX_EPOCHS && tu_now() < give_up) {
        if (!retry)
            big = atomic_exchange(&s->want_big, 0);
        placer_snapshot *snap = big ? big_ring(epoch) : small_ring(epoch);
        void *bytes = NULL;
        size_t len = 0;
        atomic_store(&s->crc[epoch], crc_of(snap, &bytes, &len));
        int fired = atomic_load(&s->proxy.fired);
        uint64_t current = 0;
        char why[300] = "";
        int err = placer_etcd_publish(s->publish_to, KEY, snap, 3000, &current, why, sizeof why);
        placer_snapshot_free(snap);
        int lost_answer = atomic_load(&s->proxy.fired) != fired, landed = 0;
        pending |= lost_answer;
        if (!err) {
            landed = 1;
            if (lost_answer && strstr(why, "read back"))
                atomic_fetch_add(&s->by_library, 1);
            else if (lost_answer || retry)
                atomic_fetch_add(&s->by_retry, 1);
        } else if (err == PLACER_ECONFLICT && retry && current == epoch) {
            landed = 1; /* the earlier try landed after all */
            atomic_fetch_add(&s->by_read_back, 1);
        } else if (err == PLACER_ECONFLICT) {
            /* one publisher, epochs always new: a conflict means a publish
             * that landed was reported lost */
            atomic_fetch_add(&s->rival_less_conflicts, 1);
            fprintf(stderr, "soak: epoch %llu refused as stale (stored %llu) with no rival: %s\n",
                    (unsigned long long)epoch, (unsigned long long)current, why);
            landed = current == epoch; /* keep counting what is stored */
        } else {
            /* outcome unknown to the caller: read back */
            long long got = stored_epoch(s, NULL);
            if (got == (long long)epoch) {
                landed = 1;
                atomic_fetch_add(&s->by_read_back, 1);
            } else {
                atomic_fetch_add(&s->failed_publishes, 1);
                retry = 1; /* not stored (yet): the same epoch again */
            }
        }
        if (landed && pending) {
            /* a newcomer loads it whole: its chunks were not swept */
            placer_snapshot *got = NULL;
            char fwhy[300] = "";
            int ferr = placer_etcd_fetch(s->c.endpoints, KEY, 10000, &got, fwhy, sizeof fwhy);
            if (ferr || placer_snapshot_epoch(got) != epoch) {
                atomic_fetch_add(&s->unloadable, 1);
                fprintf(stderr, "soak: epoch %llu, published with its answer lost, does not load: %s: %s\n",
                        (unsigned long long)epoch, placer_strerror(ferr), fwhy);
            }
            placer_snapshot_free(got);
        }
        if (landed) {
            atomic_fetch_add(&s->unknown_done, pending);
            pending = 0;
            atomic_store(&s->landed, epoch);
            atomic_fetch_add(&s->landed_count, 1);
            if (big) {
                placer_buffer_free(s->big_bytes); /* main is done with it: it asked for more */
                s->big_bytes = bytes;
                s->big_len = len;
                bytes = NULL;
                atomic_store(&s->big_landed, (long)epoch);
            }
            epoch++;
            retry = 0;
        } else if (lost_answer) {
            atomic_fetch_add(&s->republished, 1);
        }
        placer_buffer_free(bytes);
        tu_nap_ms(150 + (long)rnd(&rng, 251));
    }
    return NULL;
}

/* ---- faults ------------------------------------------------------------- */

static int member_up(soak *s, int i)
{
    long long v, rev;
    char *val;
    size_t len;
    for (int t = 0; t < 150; t++) { /* 30 s */
        if (!raw_get(s->members[i], EPOCH_KEY, &val, &len, &v, &rev)) {
            free(val);
            return 1;
        }
        tu_nap_ms(200);
    }
    fprintf(stderr, "soak: member %d did not come back (logs in %s)\n", i, s->c.dir);
    return 0;
}

static int healthy(soak *s)
{
    for (int i = 0; i < s->c.n; i++)
        if (!s->c.pid[i] && (etcd_restart(&s->c, i), !member_up(s, i)))
            return 0;
    for (int t = 0; t < 100; t++) {
        if (etcd_leader(&s->c) >= 0)
            return 1;
        tu_nap_ms(100);
    }
    return 0;
}

/* Wait until an epoch after `after` lands; it, or 0 after 60 s. */
static uint64_t next_landed(soak *s, uint64_t after)
{
    for (double until = tu_now() + 60; tu_now() < until; tu_nap_ms(5))
        if (atomic_load(&s->landed) > after)
            return atomic_load(&s->landed);
    fprintf(stderr, "soak: no epoch after %llu landed in 60 s\n", (unsigned long long)after);
    return 0;
}

static void graceful_stop(soak *s, int i)
{
    kill(s->c.pid[i], SIGTERM);
    for (int t = 0; t < 200 && waitpid(s->c.pid[i], NULL, WNOHANG) == 0; t++)
        tu_nap_ms(50);
    etcd_kill(&s->c, i); /* reaps it, or ends it after 10 s */
}

/* A manifest naming `chunks` chunks of the encoding under a prefix of its
 * own, of which it writes only `written`, one byte flipped in chunk
 * `flip` (-1: none). */
static int forge(soak *s, uint64_t epoch, const unsigned char *bytes, size_t len, int written,
                 int flip, const char *tag)
{
    char prefix[200], key[260], manifest[400];
    snprintf(prefix, sizeof prefix, "%s/chunks/%020llu-%s/", KEY, (unsigned long long)epoch, tag);
    int chunks = (int)((len + (1u << 20) - 1) >> 20), err = 0;
    for (int i = 0; i < written && i < chunks; i++) {
        size_t at = (size_t)i << 20, n = len - at < (1u << 20) ? len - at : (1u << 20);
        unsigned char *copy = malloc(n);
        memcpy(copy, bytes + at, n);
        if (i == flip)
            copy[n / 2] ^= 0x40;
        snprintf(key, sizeof key, "%s%06d", prefix, i);
        err |= raw_put(s->c.endpoints, key, copy, n);
        free(copy);
    }
    snprintf(manifest, sizeof manifest,
             "{\"epoch\":\"%llu\",\"prefix\":\"%s\",\"chunks\":%d,\"bytes\":%zu,\"crc32c\":%u}",
             (unsigned long long)epoch, prefix, chunks, len, placer_crc32c(0, bytes, len));
    return err | raw_put(s->c.endpoints, KEY, manifest, strlen(manifest));
}

typedef struct tally {
    double t[KINDS][4096];
    int n[KINDS], failed[KINDS];
    size_t big_bytes;
    long resynced, torn_written, torn_refused, paused_unknown, unknown_faults;
} tally;

static double say_failed(const char *what)
{
    fprintf(stderr, "soak: %s\n", what);
    return -1;
}

/* Inject one fault of kind k; the monotonic time it ended (the member back,
 * the publish resolved), or -1 when it could not be done. */
static double inject(soak *s, int k, uint64_t *rng, tally *ty, double *took)
{
    int m = (int)rnd(rng, (uint64_t)s->c.n);
    switch (k) {
    case LEADER_KILL: {
        int l = etcd_leader(&s->c);
        if (l < 0)
            return say_failed("no leader");
        etcd_kill(&s->c, l);
        tu_nap_ms(200 + (long)rnd(rng, 1301));
        etcd_restart(&s->c, l);
        return member_up(s, l) ? tu_now() : -1;
    }
    case RESTART:
        graceful_stop(s, m);
        etcd_restart(&s->c, m);
        return member_up(s, m) ? tu_now() : -1;
    case PAUSE:
        kill(s->c.pid[m], SIGSTOP);
        tu_nap_ms(300 + (long)rnd(rng, 2201));
        kill(s->c.pid[m], SIGCONT);
        return tu_now();
    case COMPACT: {
        m = (int)rnd(rng, 2); /* followers 2 and 3 watch members 0 and 1 alone */
        placer_follower_status st = {.size = sizeof st};
        placer_follower_status_get(s->fl[2 + m].f, &st);
        uint64_t resyncs = st.resyncs;
        etcd_kill(&s->c, m);
        uint64_t e = atomic_load(&s->landed);
        if (!next_landed(s, e) || !next_landed(s, e + 1))
            return -1;
        char *v;
        size_t len;
        long long ver, rev;
        char others[200];
        snprintf(others, sizeof others, "%s,%s", s->members[(m + 1) % 3], s->members[(m + 2) % 3]);
        if (raw_get(others, EPOCH_KEY, &v, &len, &ver, &rev) || raw_compact(others, rev))
            return say_failed("the compaction failed");
        free(v);
        etcd_restart(&s->c, m);
        if (!member_up(s, m))
            return -1;
        double end = tu_now();
        for (double until = tu_now() + CONVERGE_S; tu_now() < until; tu_nap_ms(20)) {
            placer_follower_status_get(s->fl[2 + m].f, &st);
            if (st.resyncs > resyncs)
                break;
        }
        ty->resynced += st.resyncs > resyncs;
        if (st.resyncs <= resyncs)
            fprintf(stderr, "soak: follower %d did not read afresh after compaction\n", 2 + m);
        return end;
    }
    case OVERSIZE: {
        long before = atomic_load(&s->big_landed);
        atomic_store(&s->want_big, 1);
        double until = tu_now() + 60;
        while (atomic_load(&s->big_landed) == before && tu_now() < until)
            tu_nap_ms(5);
        long big = atomic_load(&s->big_landed);
        if (big == before)
            return say_failed("no big snapshot landed in 60 s");
        double end = tu_now();
        *took = wait_followers(s, (uint64_t)big, end); /* the big one itself */
        /* torn copies of it, claiming the next epoch: every follower must
         * refuse both */
        long refused = 0;
        for (int i = 0; i < FOLLOWERS; i++)
            refused -= atomic_load(&s->fl[i].rejected);
        ty->big_bytes = s->big_len;
        int bad = forge(s, (uint64_t)big + 1, s->big_bytes, s->big_len, 1, -1, "70726e0000000001") |
                  forge(s, (uint64_t)big + 1, s->big_bytes, s->big_len, 2, 1, "70726e0000000002");
        ty->torn_written += bad ? 0 : 2;
        for (until = tu_now() + 10; tu_now() < until; tu_nap_ms(20)) {
            long now_refused = refused;
            for (int i = 0; i < FOLLOWERS; i++)
                now_refused += atomic_load(&s->fl[i].rejected);
            if (now_refused >= 2 * FOLLOWERS)
                break;
        }
        for (int i = 0; i < FOLLOWERS; i++)
            refused += atomic_load(&s->fl[i].rejected);
        ty->torn_refused += refused;
        if (bad)
            return say_failed("writing the torn manifests failed");
        /* a real publish over the torn manifests before the next fault: the
         * second one to land from now (the first may have committed before
         * the forged puts) */
        return next_landed(s, atomic_load(&s->landed) + 1) ? end : -1;
    }
    case UNKNOWN: {
        long done = atomic_load(&s->unknown_done);
        /* alternating, the first one DROP: every run loses the answer of a
         * transaction that committed at least once */
        int mode = ty->unknown_faults++ % 2 ? PROXY_PAUSE : PROXY_DROP;
        atomic_store(&s->proxy.target, m);
        atomic_store(&s->proxy.target_pid, s->c.pid[m]);
        atomic_store(&s->proxy.paused, -1);
        atomic_store(&s->proxy.mode, mode);
        double until = tu_now() + 60, end = -1;
        int paused = -1;
        while (tu_now() < until) {
            if (paused < 0 && (paused = atomic_load(&s->proxy.paused)) >= 0) {
                tu_nap_ms(300 + (long)rnd(rng, 1201));
                kill(s->c.pid[paused], SIGCONT);
                ty->paused_unknown++;
                end = tu_now();
            }
            if (atomic_load(&s->unknown_done) > done) {
                end = end > tu_now() ? end : tu_now();
                break;
            }
            tu_nap_ms(5);
        }
        atomic_store(&s->proxy.mode, PROXY_RELAY);
        if ((paused = atomic_load(&s->proxy.paused)) >= 0)
            kill(s->c.pid[paused], SIGCONT);
        return atomic_load(&s->unknown_done) > done ? end
                                                    : say_failed("no answer lost and resolved in 60 s");
    }
    }
    return -1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int per_kind = 3;
    uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--per-kind"))
            per_kind = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
    }
    if (per_kind < 1 || per_kind > 4096) {
        fprintf(stderr, "usage: test_etcd_soak [--per-kind 1..4096] [--seed S]\n");
        return 2;
    }
    if (!etcd_available()) {
        printf("etcd soak: etcd or etcdctl not installed, skipped\n");
        return 77;
    }
    printf("etcd soak: seed %llu, %d faults of each of %d kinds "
           "(repeat with: test_etcd_soak --per-kind %d --seed %llu)\n",
           (unsigned long long)seed, per_kind, KINDS, per_kind, (unsigned long long)seed);
    fflush(stdout);
    static soak state;
    soak *s = &state;
    S = s;
    s->seed = seed;
    atexit(kill_members);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGHUP, on_signal);
    signal(SIGABRT, on_signal);
    if (etcd_start(&s->c, 3) || soak_proxy_start(&s->proxy, &s->c, 0)) {
        fprintf(stderr, "etcd soak: the cluster or the proxy did not start (logs in %s)\n", s->c.dir);
        etcd_destroy(&s->c);
        return 1;
    }
    for (int i = 0; i < s->c.n; i++)
        etcd_url(&s->c, i, s->members[i], sizeof s->members[i]);
    int fits = snprintf(s->publish_to, sizeof s->publish_to, "http://127.0.0.1:%d,%s",
                        s->proxy.port, s->c.endpoints) < (int)sizeof s->publish_to;

    /* Followers start on epoch 0 of their own routers. */
    placer_snapshot *zero = small_ring(0);
    atomic_store(&s->crc[0], crc_of(zero, NULL, NULL));
    char order[1][256];
    fits &= snprintf(order[0], sizeof order[0], "%s,%s,%s", s->members[2], s->members[1],
                     s->members[0]) < (int)sizeof order[0];
    CHECK(fits);
    const char *where[FOLLOWERS] = {s->c.endpoints, order[0], s->members[0], s->members[1]};
    int started = 1;
    for (int i = 0; i < FOLLOWERS; i++) {
        placer_snapshot *copy = NULL;
        void *buf;
        size_t len;
        placer_snapshot_encode(zero, &buf, &len);
        placer_snapshot_decode(buf, len, &copy);
        placer_buffer_free(buf);
        s->fl[i].r = placer_router_new(copy);
        started &= placer_follower_start(where[i], KEY, s->fl[i].r, on_event, &s->fl[i],
                                         &s->fl[i].f) == 0;
    }
    placer_snapshot_free(zero);
    CHECK(started);
    pthread_t pub;
    pthread_create(&pub, NULL, publish_loop, s);
    CHECK(next_landed(s, 0) > 0);
    CHECK(wait_followers(s, 1, tu_now()) >= 0);

    /* the faults, in a seeded random order */
    int total = per_kind * KINDS;
    int *plan = malloc(sizeof *plan * (size_t)total);
    for (int i = 0; i < total; i++)
        plan[i] = i % KINDS;
    uint64_t rng = seed;
    for (int i = total - 1; i > 0; i--) {
        int j = (int)rnd(&rng, (uint64_t)i + 1), t = plan[i];
        plan[i] = plan[j];
        plan[j] = t;
    }
    static tally ty;
    double began = tu_now();
    for (int i = 0; i < total; i++) {
        int k = plan[i];
        if (!healthy(s)) {
            fprintf(stderr, "soak: the cluster did not recover before fault %d\n", i);
            ty.failed[k]++;
            break;
        }
        double took = -1, end = inject(s, k, &rng, &ty, &took);
        if (end >= 0 && took < 0) {
            uint64_t target = next_landed(s, atomic_load(&s->landed));
            took = target ? wait_followers(s, target, end) : -1;
        }
        if (took < 0) {
            ty.failed[k]++;
            fprintf(stderr, "soak: fault %d (%s) did not converge\n", i, kind_name[k]);
        } else if (ty.n[k] < 4096) {
            ty.t[k][ty.n[k]++] = took;
        }
        /* what is stored can be loaded whole by a newcomer */
        placer_snapshot *got = NULL;
        char why[300] = "";
        int err = PLACER_EUNAVAIL;
        for (int t = 0; t < 5 && err == PLACER_EUNAVAIL; t++)
            err = placer_etcd_fetch(s->c.endpoints, KEY, 5000, &got, why, sizeof why);
        if (err || crc_of(got, NULL, NULL) != atomic_load(&s->crc[placer_snapshot_epoch(got)])) {
            atomic_fetch_add(&s->unloadable, 1);
            fprintf(stderr, "soak: after fault %d (%s) the stored snapshot does not load: %s: %s\n", i,
                    kind_name[k], placer_strerror(err), why);
        }
        placer_snapshot_free(got);
        if ((i + 1) % 25 == 0) {
            printf("  %d faults in %.0f s, epoch %llu\n", i + 1, tu_now() - began,
                   (unsigned long long)atomic_load(&s->landed));
            fflush(stdout);
        }
    }
    free(plan);

    /* the end: two more epochs, then every follower on the stored one */
    CHECK(healthy(s));
    uint64_t e = atomic_load(&s->landed);
    CHECK(next_landed(s, e) && next_landed(s, e + 1));
    atomic_store(&s->stop_publishing, 1);
    pthread_join(pub, NULL);
    long long version = 0, stored = stored_epoch(s, &version);
    uint64_t last = atomic_load(&s->landed);
    CHECK_EQ(stored, last);
    CHECK(wait_followers(s, last, tu_now()) >= 0);
    long backwards = 0, wrong = 0, beyond = 0, accepted = 0;
    for (int i = 0; i < FOLLOWERS; i++) {
        CHECK_EQ(placer_router_epoch(s->fl[i].r), stored);
        beyond += placer_router_epoch(s->fl[i].r) > (uint64_t)stored;
        backwards += atomic_load(&s->fl[i].backwards);
        wrong += atomic_load(&s->fl[i].wrong);
        accepted += atomic_load(&s->fl[i].accepted);
    }
    long landed = atomic_load(&s->landed_count), unloadable = atomic_load(&s->unloadable);
    long lost = (long)last - landed; /* epochs run 1..last, each landing once */
    printf("etcd soak: %d faults in %.0f s (seed %llu); %ld epochs landed, the stored one %lld, "
           "its key put %lld times\n", total, tu_now() - began, (unsigned long long)seed, landed,
           stored, version);
    printf("  lost or regressed epochs: %ld (lost %ld, followers backwards %ld, past the stored %ld, "
           "stored unloadable %ld)\n", lost + backwards + beyond + unloadable, lost, backwards, beyond,
           unloadable);
    printf("  torn or unverified snapshots accepted: %ld (of %ld accepted; %ld torn manifests "
           "written, %ld refusals)\n", wrong, accepted, ty.torn_written, ty.torn_refused);
    printf("  double-applied publishes: %lld (epoch key puts %lld, publishes landed %ld)\n",
           version - landed, version, landed);
    printf("  answers lost: %d (%d dropped after a commit, %ld members paused mid-request); "
           "resolved: %ld read back by placer_etcd_publish, %ld landed on a retry (not committed when "
           "the answer was lost, or published again after a failure), %ld read back by the soak; "
           "%ld published again\n",
           atomic_load(&s->proxy.fired), atomic_load(&s->proxy.dropped_won), ty.paused_unknown,
           atomic_load(&s->by_library), atomic_load(&s->by_retry), atomic_load(&s->by_read_back),
           atomic_load(&s->republished));
    printf("  publishes refused as stale with no rival: %ld; failed (outcome read back: not stored): %ld\n",
           atomic_load(&s->rival_less_conflicts), atomic_load(&s->failed_publishes));
    printf("  compactions read afresh by the pinned follower: %ld; big snapshots: %zu bytes\n",
           ty.resynced, ty.big_bytes);
    printf("  %-12s %6s %8s %12s %9s\n", "kind", "faults", "failed", "median (s)", "max (s)");
    for (int k = 0; k < KINDS; k++) {
        qsort(ty.t[k], (size_t)ty.n[k], sizeof ty.t[k][0], cmp_double);
        double med = ty.n[k] ? ty.t[k][ty.n[k] / 2] : 0, max = ty.n[k] ? ty.t[k][ty.n[k] - 1] : 0;
        printf("  %-12s %6d %8d %12.2f %9.2f\n", kind_name[k], ty.n[k] + ty.failed[k], ty.failed[k],
               med, max);
        CHECK_EQ(ty.failed[k], 0);
        CHECK_EQ(ty.n[k], per_kind);
    }
    CHECK_EQ(lost, 0);
    CHECK_EQ(backwards, 0);
    CHECK_EQ(beyond, 0);
    CHECK_EQ(unloadable, 0);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(version, landed);
    CHECK_EQ(atomic_load(&s->rival_less_conflicts), 0);
    CHECK_EQ(ty.resynced, per_kind);
    CHECK_EQ(atomic_load(&s->proxy.fired), per_kind);
    CHECK(ty.torn_refused >= ty.torn_written); /* each one by at least one follower */
    CHECK(ty.big_bytes > 1536 * 1024);         /* over etcd's request limit */

    for (int i = 0; i < FOLLOWERS; i++) {
        placer_follower_stop(s->fl[i].f);
        placer_router_free(s->fl[i].r);
    }
    soak_proxy_stop(&s->proxy);
    etcd_destroy(&s->c);
    placer_buffer_free(s->big_bytes);
    S = NULL;
    CHECK_EQ(placer_snapshots_alive(), 0);
    return check_done("etcd soak");
}
