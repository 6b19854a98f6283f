/*
 * urcu_bp_read.h -- liburcu-bp's read side, as the router includes it, and
 * the router's section for single lookups (below).
 *
 * Its first job, an exemption for UBSan: liburcu 0.13 (Debian 12) keeps each
 * thread's `struct urcu_bp_reader` in a registry arena of mmap()ed chunks
 * whose header is `{ size_t data_len; size_t used; struct cds_list_head
 * node; char data[]; }` (src/urcu-bp.c), so readers start 32 bytes into a
 * chunk although urcu/static/urcu-bp.h declares the struct 128-byte aligned
 * (CAA_CACHE_LINE_SIZE). Every read-side section then touches a reader at an
 * address UBSan's alignment check calls misaligned. The access itself is an
 * ordinary word load/store on x86-64 and AArch64; placer cannot choose where
 * liburcu puts its readers (later liburcu releases type the arena as `struct
 * urcu_bp_reader readers[]`, which fixes it).
 *
 * So exactly that check, in exactly liburcu's inline read-side functions
 * (and the two below that repeat them), is switched off: they are declared here with no_sanitize("alignment") before
 * urcu-bp.h defines them (GCC and Clang merge attributes across
 * declarations); the attribute does nothing in builds without UBSan. No other check and no other
 * function is affected: tests/test_ubsan_halts.c includes this header and
 * shows that a misaligned access in placer's own code still stops the
 * program.
 */
#ifndef PLC_ENGINE_URCU_BP_READ_H
#define PLC_ENGINE_URCU_BP_READ_H

/* The attribute changes nothing in builds without UBSan. */
#if defined(_LGPL_SOURCE) && (defined(__GNUC__) || defined(__clang__))
#define PLC_URCU_NO_ALIGN_CHECK __attribute__((no_sanitize("alignment")))
static inline void _urcu_bp_read_lock_update(unsigned long tmp) PLC_URCU_NO_ALIGN_CHECK;
static inline void _urcu_bp_read_lock(void) PLC_URCU_NO_ALIGN_CHECK;
static inline void _urcu_bp_read_unlock(void) PLC_URCU_NO_ALIGN_CHECK;
static inline int _urcu_bp_read_ongoing(void) PLC_URCU_NO_ALIGN_CHECK;
#else
#define PLC_URCU_NO_ALIGN_CHECK
#endif

#include <urcu-bp.h>

#if defined(_LGPL_SOURCE)
/*
 * The router's single lookups enter the section through these two, not
 * rcu_read_lock / rcu_read_unlock. They are liburcu-bp's own inline read
 * side (urcu/static/urcu-bp.h: _urcu_bp_read_lock, _urcu_bp_read_unlock),
 * the same loads and stores on the same variables, with its three tests
 * taken once, before the section, instead of on both sides of it:
 *
 *   - the thread has no reader yet (urcu_bp_register() would make one),
 *   - the process has no membarrier (urcu_bp_has_sys_membarrier is 0:
 *     each side needs a full fence, cmm_smp_mb), or
 *   - the thread is already inside a section (nesting counts up).
 *
 * In any of the three plc_urcu_bp_fast_begin returns NULL and the caller
 * takes rcu_read_lock / rcu_read_unlock themselves. Otherwise the section is
 * the outermost one and both of its barriers are compiler barriers, so
 * plc_urcu_bp_fast_end needs no test at all: one load, one store.
 * urcu_bp_has_sys_membarrier only ever goes from 0 to 1, once, when
 * liburcu-bp starts (src/urcu-bp.c: urcu_bp_sys_membarrier_status), so
 * having read 1 at the start holds at the end.
 *
 * What this reads of liburcu is exactly what its inline fast path reads
 * (URCU_TLS(urcu_bp_reader), reader->ctr, urcu_bp_gp.ctr,
 * urcu_bp_has_sys_membarrier and the URCU_BP_GP_* constants): the ABI that
 * every _LGPL_SOURCE program compiles in, which liburcu keeps for a
 * soname (liburcu-bp.so.8 from 0.13 on; Debian 12 ships 0.13.2).
 * tests/test_urcu_bp_fast.c checks it against the library's own
 * out-of-line functions: urcu_bp_read_ongoing() sees a section begun here,
 * and a grace period waits for it. A liburcu whose header no longer
 * declares these fails to compile; -Durcu_inline=false uses none of it.
 */
static inline struct urcu_bp_reader *plc_urcu_bp_fast_begin(void) PLC_URCU_NO_ALIGN_CHECK;
static inline void plc_urcu_bp_fast_end(struct urcu_bp_reader *reader) PLC_URCU_NO_ALIGN_CHECK;

static inline struct urcu_bp_reader *plc_urcu_bp_fast_begin(void)
{
    struct urcu_bp_reader *reader = URCU_TLS(urcu_bp_reader);
    if (caa_unlikely(!reader || !CMM_LOAD_SHARED(urcu_bp_has_sys_membarrier)))
        return NULL;
    cmm_barrier();
    if (caa_unlikely(reader->ctr & URCU_BP_GP_CTR_NEST_MASK))
        return NULL;
    _CMM_STORE_SHARED(reader->ctr, _CMM_LOAD_SHARED(urcu_bp_gp.ctr));
    cmm_barrier(); /* urcu_bp_smp_mb_slave() with membarrier */
    return reader;
}

static inline void plc_urcu_bp_fast_end(struct urcu_bp_reader *reader)
{
    unsigned long ctr = reader->ctr;
    cmm_barrier(); /* urcu_bp_smp_mb_slave() with membarrier */
    _CMM_STORE_SHARED(reader->ctr, ctr - URCU_BP_GP_COUNT);
    cmm_barrier();
}
#endif

#endif
