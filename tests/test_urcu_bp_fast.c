/*
 * test_urcu_bp_fast -- the router's read-side section for single lookups
 * (engine/core/urcu_bp_read.h: plc_urcu_bp_fast_begin / _end, liburcu-bp's
 * inline read side with its tests taken once) against liburcu-bp itself,
 * through the library's out-of-line functions, which were compiled with the
 * library and not with this header:
 *   1. a thread liburcu-bp has not registered gets no fast section;
 *   2. once registered (with membarrier, as on Linux 4.14+), a fast section
 *      is what the library's urcu_bp_read_ongoing() sees, open then closed;
 *   3. inside a section of the library's urcu_bp_read_lock() it is refused
 *      and leaves the library's section open;
 *   4. a grace period (urcu_bp_synchronize_rcu on another thread) does not
 *      end while a fast section is open, and ends once it is closed.
 * A liburcu whose reader, counter or constants moved would fail 2 to 4.
 */
#define _LGPL_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "urcu_bp_read.h"

/* The library's own functions, not the inline ones _LGPL_SOURCE maps to. */
#undef urcu_bp_read_lock
#undef urcu_bp_read_unlock
#undef urcu_bp_read_ongoing
extern void urcu_bp_read_lock(void);
extern void urcu_bp_read_unlock(void);
extern int urcu_bp_read_ongoing(void);

static void *fast_on_new_thread(void *out)
{
    *(struct urcu_bp_reader **)out = plc_urcu_bp_fast_begin();
    return NULL;
}

static void unregistered_thread_is_refused(void)
{
    struct urcu_bp_reader *got = (struct urcu_bp_reader *)1;
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, fast_on_new_thread, &got), 0);
    pthread_join(t, NULL);
    CHECK(got == NULL);
}

static void library_sees_the_section(void)
{
    urcu_bp_register(); /* what the library's first urcu_bp_read_lock() does */
    CHECK(!urcu_bp_read_ongoing());
    struct urcu_bp_reader *reader = plc_urcu_bp_fast_begin();
    if (!CMM_LOAD_SHARED(urcu_bp_has_sys_membarrier)) {
        /* No membarrier: every section is liburcu's own. */
        CHECK(reader == NULL);
        return;
    }
    CHECK(reader != NULL);
    CHECK(reader == URCU_TLS(urcu_bp_reader));
    CHECK(urcu_bp_read_ongoing());
    plc_urcu_bp_fast_end(reader);
    CHECK(!urcu_bp_read_ongoing());
}

static void nested_is_refused(void)
{
    urcu_bp_read_lock();
    CHECK(plc_urcu_bp_fast_begin() == NULL);
    CHECK(urcu_bp_read_ongoing());
    urcu_bp_read_unlock();
    CHECK(!urcu_bp_read_ongoing());
}

static atomic_int grace_period_over;

static void *grace_period(void *unused)
{
    (void)unused;
    urcu_bp_synchronize_rcu();
    atomic_store(&grace_period_over, 1);
    return NULL;
}

static void grace_period_waits(void)
{
    struct urcu_bp_reader *reader = plc_urcu_bp_fast_begin();
    if (!reader)
        return; /* no membarrier: checked above */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, grace_period, NULL), 0);
    struct timespec wait = {0, 200 * 1000 * 1000};
    nanosleep(&wait, NULL);
    CHECK(!atomic_load(&grace_period_over)); /* the section holds it */
    plc_urcu_bp_fast_end(reader);
    pthread_join(t, NULL);
    CHECK(atomic_load(&grace_period_over));
}

int main(void)
{
    unregistered_thread_is_refused();
    library_sees_the_section();
    nested_is_refused();
    grace_period_waits();
    return check_done("test_urcu_bp_fast");
}
