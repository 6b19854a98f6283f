/*
 * router.c -- the current snapshot behind an RCU-protected pointer.
 *
 * Readers: enter a liburcu-bp read-side section, load the pointer (acquire),
 * look up, leave. No locks, no writes to shared memory, no waiting. urcu-bp
 * registers a thread by itself on its first read lock, so threads the
 * embedding program owns need no set-up: that is why this flavour and not
 * urcu-memb (every reader thread must call rcu_register_thread) or
 * urcu-qsbr (every reader must announce quiescent states), whose read sides
 * are cheaper; bench/RESULTS.md has the measured difference.
 *
 * Writers: a mutex serialises publishers (so "newer epoch wins" is a
 * compare under the lock), the pointer is stored with release order (the
 * snapshot's contents are visible before the pointer is), and the old
 * snapshot goes to call_rcu, which frees it after a grace period: once every
 * read-side section that could have loaded it has ended.
 *
 * Why C11 atomics for the pointer instead of rcu_dereference /
 * rcu_assign_pointer: the same instructions on x86-64 and AArch64 (a plain
 * load with acquire order is at least as strong as the consume that
 * rcu_dereference gives), and ThreadSanitizer understands them.
 * ThreadSanitizer cannot see liburcu's grace periods nor its call_rcu
 * queue, so under TSan every reader releases on the snapshot before
 * unlocking, the publisher releases on it before call_rcu, and the
 * reclaiming callback acquires it before touching it: exactly the ordering
 * RCU guarantees.
 *
 * liburcu's inline read-side fast paths (_LGPL_SOURCE) are used unless the
 * build says -Durcu_inline=false. liburcu's README allows them to "LGPL or
 * GPL compatible" code, which placer (MIT) is; an embedder who wants no
 * LGPL inline code in its binaries turns them off. Measured here: a read
 * lock + unlock pair costs 0.9 ns inline and 9.4 ns as calls into
 * liburcu-bp.so (bench/RESULTS.md).
 */
#define PLACER_STATIC_LINKING_ONLY
#if defined(PLC_URCU_INLINE)
#define _LGPL_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "urcu_bp_read.h" /* <urcu-bp.h>, with one documented UBSan exemption */
#include <urcu/call-rcu.h>

#include "alloc.h"
#include "snapshot_internal.h"

#if defined(__SANITIZE_THREAD__)
#define PLC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PLC_TSAN 1
#endif
#endif
#if defined(PLC_TSAN)
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define TSAN_ACQUIRE(p) ((void)0)
#define TSAN_RELEASE(p) ((void)0)
#endif

_Static_assert(sizeof(struct rcu_head) <= sizeof(((placer_snapshot *)0)->rcu_head),
               "placer_snapshot.rcu_head must hold a struct rcu_head");

struct placer_router {
    _Atomic(placer_snapshot *) current;
    pthread_mutex_t publish_lock;
    atomic_uint_fast64_t reclaimed;
};

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void register_fork_handlers(void)
{
    /* call_rcu's worker thread does not survive fork(); these handlers stop
     * it around the fork and give the child a fresh one. */
    pthread_atfork(call_rcu_before_fork, call_rcu_after_fork_parent, call_rcu_after_fork_child);
}

placer_router *placer_router_new(placer_snapshot *initial)
{
    if (!initial)
        return NULL;
    placer_router *r = plc_calloc(1, sizeof *r);
    if (!r || pthread_mutex_init(&r->publish_lock, NULL) != 0) {
        plc_free(r);
        placer_snapshot_free(initial);
        return NULL;
    }
    pthread_once(&fork_once, register_fork_handlers);
    atomic_init(&r->current, initial);
    atomic_init(&r->reclaimed, 0);
    return r;
}

static void reclaim(struct rcu_head *head)
{
    placer_snapshot *s =
        (placer_snapshot *)((char *)head - offsetof(placer_snapshot, rcu_head));
    /* The publisher and every reader released s (see TSAN_RELEASE). */
    TSAN_ACQUIRE(s);
    placer_router *r = s->replaced_by;
    placer_snapshot_free(s);
    atomic_fetch_add_explicit(&r->reclaimed, 1, memory_order_release);
}

int placer_router_publish(placer_router *r, placer_snapshot *next)
{
    if (!r || !next) {
        placer_snapshot_free(next);
        return PLACER_ENULL;
    }
    pthread_mutex_lock(&r->publish_lock);
    placer_snapshot *old = atomic_load_explicit(&r->current, memory_order_relaxed);
    if (next->epoch <= old->epoch) {
        pthread_mutex_unlock(&r->publish_lock);
        placer_snapshot_free(next);
        return PLACER_ESTALE;
    }
    /* Release: a reader that loads `next` sees everything written into it. */
    atomic_store_explicit(&r->current, next, memory_order_release);
    pthread_mutex_unlock(&r->publish_lock);
    old->replaced_by = r;
    /* liburcu hands `old` to its call_rcu thread through a queue TSan does
     * not see: tell it this thread's writes come first. */
    TSAN_RELEASE(old);
    /* Freed after every read-side section that may hold `old` has ended. */
    call_rcu((struct rcu_head *)old->rcu_head, reclaim);
    return 0;
}

void placer_router_free(placer_router *r)
{
    if (!r)
        return;
    /* By contract no thread uses r any more; wait for the snapshots replaced
     * earlier (their callbacks count into r), then free the current one. */
    rcu_barrier();
    /* Acquire what the finished callbacks released (they wrote into r). */
    (void)atomic_load_explicit(&r->reclaimed, memory_order_acquire);
    placer_snapshot *s = atomic_load_explicit(&r->current, memory_order_acquire);
    synchronize_rcu();
    placer_snapshot_free(s);
    pthread_mutex_destroy(&r->publish_lock);
    plc_free(r);
}

/* The read-side section, inlined into every reader in this file: the
 * exported acquire/release are thin wrappers, so a lookup through the router
 * is the section plus one call into the snapshot's lookup. */
static inline const placer_snapshot *read_begin(placer_router *r)
{
    rcu_read_lock();
    return atomic_load_explicit(&r->current, memory_order_acquire);
}

static inline void read_end(const placer_snapshot *s)
{
    TSAN_RELEASE(s);
    (void)s;
    rcu_read_unlock();
}

const placer_snapshot *placer_router_acquire(placer_router *r)
{
    return r ? read_begin(r) : NULL;
}

void placer_router_release(placer_router *r, const placer_snapshot *s)
{
    if (r)
        read_end(s);
}

/* The router's lookup in a section liburcu-bp's own functions open and
 * close: a thread's first (which registers it), a nested one, or one in a
 * process without membarrier. */
__attribute__((noinline)) static int lookup_in_section(placer_router *r, const void *key,
                                                       size_t len, uint64_t *epoch)
{
    const placer_snapshot *s = read_begin(r);
    if (epoch)
        *epoch = s->epoch;
    int owner = plc_lookup_key(s, key, len);
    read_end(s);
    return owner;
}

#if defined(_LGPL_SOURCE)
/*
 * Warming a new snapshot. A snapshot that a writer elsewhere just made is in
 * none of this CPU's caches, and a stream of single lookups would fetch its
 * line table one dependent miss at a time (4,096 lines at 120 x 256). So the
 * first lookups a thread makes on a snapshot it has not seen each prefetch
 * the next WARM_LINES lines of the table, until all are asked for: the
 * misses overlap instead of chaining (bench/RESULTS.md, the writer rows).
 * Tables past WARM_MAX_BITS are not warmed.
 *
 * A lookup on the snapshot the thread last warmed pays one thread-local
 * load and a compare; one on the snapshot warmed before it (a thread going
 * between two routers) compares its address and epoch as well. Past the
 * two, the thread remembers the WARM_SEEN snapshots it warmed last, by
 * address and epoch, so that a thread going round a few routers takes the
 * out-of-line path but does not warm their snapshots again; one going
 * round more routers than that warms each anew, WARM_LINES prefetches of
 * lines it holds a lookup. A new snapshot at the
 * address of the last one warmed (which a thread that saw every publish
 * cannot meet, see warm_done) or at the address and epoch of one
 * remembered is not warmed: only time is lost.
 */
#define WARM_LINES 16u
#define WARM_SEEN 4u
/* Line tables larger than this (512 KiB, the L2 of a Zen 3 core; Zen 5 has
 * 1 MiB) are not warmed: their lines would push each other out of the
 * cache before the keys that need them come. */
#define WARM_MAX_BITS 13u
/* the last two snapshots this thread warmed, the latest first, and the
 * epoch of the one before: a snapshot is only freed after the next one is
 * published, so a new one may take the address of the one before but not
 * that of the latest */
static _Thread_local const placer_snapshot *warm_done, *warm_done_before;
static _Thread_local uint64_t warm_done_epoch, warm_done_before_epoch;
static _Thread_local struct warm_entry {
    const placer_snapshot *s;
    uint64_t epoch;
    uint32_t next; /* the next line to prefetch */
} warm_seen[WARM_SEEN];
static _Thread_local uint32_t warm_victim;

static void warm_lines(const placer_snapshot *s)
{
    struct warm_entry *e = NULL;
    for (uint32_t i = 0; i < WARM_SEEN && !e; i++)
        if (warm_seen[i].s == s && warm_seen[i].epoch == s->epoch)
            e = &warm_seen[i];
    if (!e) {
        e = &warm_seen[warm_victim++ % WARM_SEEN];
        *e = (struct warm_entry){s, s->epoch, 0};
    }
    uint32_t n = s->bkt_lookup && s->bkt.bits <= WARM_MAX_BITS ? 1u << s->bkt.bits : 0;
    uint32_t i = e->next, end = n - i > WARM_LINES ? i + WARM_LINES : n;
    for (; i < end; i++)
        __builtin_prefetch(s->bkt.line + i, 0, 2);
    e->next = end;
    if (end == n && s != warm_done) {
        warm_done_before = warm_done;
        warm_done_before_epoch = warm_done_epoch;
        warm_done = s;
        warm_done_epoch = s->epoch;
    }
}

/* plc_lookup_key's paths after the line table's, out of line: they keep
 * values across their calls, which the router's lookup should not pay for. */
__attribute__((noinline)) static int lookup_rest(const placer_snapshot *s, const void *key,
                                                 size_t len)
{
    return plc_lookup_key_rest(s, key, len);
}

/* The lookup in a section plc_urcu_bp_fast_begin opened, and its end. The
 * epoch is stored before the lookup, and every lookup but the line table's
 * is one call away, so nothing but the reader lives across the call:
 * saving and restoring registers for the other paths was most of what the
 * section cost a key. */
__attribute__((always_inline)) static inline int
lookup_fast(const placer_snapshot *s, struct urcu_bp_reader *reader, const void *key, size_t len,
            uint64_t *epoch)
{
    if (epoch)
        *epoch = s->epoch;
    int owner = plc_lookup_key_with(s, key, len, lookup_rest);
    TSAN_RELEASE(s);
    plc_urcu_bp_fast_end(reader);
    return owner;
}

/* The same, for a snapshot this thread has not finished warming. */
__attribute__((noinline)) static int lookup_warming(const placer_snapshot *s,
                                                    struct urcu_bp_reader *reader,
                                                    const void *key, size_t len, uint64_t *epoch)
{
    warm_lines(s);
    return lookup_fast(s, reader, key, len, epoch);
}
#endif

int placer_router_lookup(placer_router *r, const void *key, size_t len, uint64_t *epoch)
{
    if (!r || (!key && len))
        return PLACER_ENULL;
#if defined(_LGPL_SOURCE)
    /* The outermost section of a registered thread, its tests taken once
     * (urcu_bp_read.h): nothing but the reader lives across the lookup. */
    struct urcu_bp_reader *reader = plc_urcu_bp_fast_begin();
    if (__builtin_expect(reader == NULL, 0))
        return lookup_in_section(r, key, len, epoch);
    const placer_snapshot *s = atomic_load_explicit(&r->current, memory_order_acquire);
    if (__builtin_expect(s != warm_done && (s != warm_done_before ||
                                            s->epoch != warm_done_before_epoch),
                         0))
        return lookup_warming(s, reader, key, len, epoch);
    return lookup_fast(s, reader, key, len, epoch);
#else
    return lookup_in_section(r, key, len, epoch); /* every section is liburcu's call */
#endif
}

int placer_router_lookup_batch(placer_router *r, const void *const *keys, const size_t *lens,
                               size_t n, uint32_t *owners, uint64_t *epoch)
{
    if (!r)
        return PLACER_ENULL;
    /* One read-side section for the whole batch, not one a key. */
    const placer_snapshot *s = read_begin(r);
    int err = placer_lookup_batch(s, keys, lens, n, owners);
    if (epoch)
        *epoch = s->epoch;
    read_end(s);
    return err;
}

int placer_router_check(placer_router *r, uint32_t node, const void *key, size_t len,
                        uint64_t *current_epoch)
{
    int owner = placer_router_lookup(r, key, len, current_epoch);
    if (owner < 0)
        return owner;
    return (uint32_t)owner == node ? 0 : PLACER_ENOTMINE;
}

int placer_router_check_partition(placer_router *r, uint32_t node, uint32_t p,
                                  uint64_t *current_epoch)
{
    if (!r)
        return PLACER_ENULL;
    const placer_snapshot *s = read_begin(r);
    uint32_t owner, next;
    int err = placer_partition_owner(s, p, &owner, &next);
    if (current_epoch)
        *current_epoch = s->epoch;
    read_end(s);
    if (err == PLACER_ENOLIVE)
        return PLACER_ENOTMINE; /* nobody holds it active: certainly not this node */
    return err ? err : owner == node ? 0 : PLACER_ENOTMINE;
}

uint64_t placer_router_epoch(placer_router *r)
{
    if (!r)
        return 0;
    const placer_snapshot *s = read_begin(r);
    uint64_t e = s->epoch;
    read_end(s);
    return e;
}

void placer_router_barrier(void)
{
    rcu_barrier();
}

uint64_t placer_router_reclaimed(placer_router *r)
{
    return r ? atomic_load_explicit(&r->reclaimed, memory_order_acquire) : 0;
}
