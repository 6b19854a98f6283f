/*
 * urcu_bp_read.h -- liburcu-bp's read side, as the router includes it.
 *
 * Why this header exists: liburcu 0.13 (Debian 12) keeps each thread's
 * `struct urcu_bp_reader` in a registry arena of mmap()ed chunks whose
 * header is `{ size_t data_len; size_t used; struct cds_list_head node;
 * char data[]; }` (src/urcu-bp.c), so readers start 32 bytes into a chunk
 * although urcu/static/urcu-bp.h declares the struct 128-byte aligned
 * (CAA_CACHE_LINE_SIZE). Every read-side section then touches a reader at
 * an address UBSan's alignment check calls misaligned. The access itself is
 * an ordinary word load/store on x86-64 and AArch64; placer cannot choose
 * where liburcu puts its readers (later liburcu releases type the arena as
 * `struct urcu_bp_reader readers[]`, which fixes it).
 *
 * So exactly that check, in exactly liburcu's inline read-side functions, is
 * switched off: they are declared here with no_sanitize("alignment") before
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
#endif

#include <urcu-bp.h>

#endif
