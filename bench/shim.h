/*
 * shim.h -- Google Benchmark for benchmarks written in C.
 *
 * shim.cc wraps benchmark::State behind an opaque handle. A benchmark is a C
 * function that loops `while (plc_bench_keep_running(b, BATCH))`, doing
 * BATCH operations per turn (KeepRunningBatch keeps the per-turn call out of
 * the measurement), then reports items or bytes so the output carries rates.
 */
#ifndef PLACER_BENCH_SHIM_H
#define PLACER_BENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct plc_bench plc_bench;
typedef void (*plc_bench_fn)(plc_bench *b, const void *arg);

/* Register fn under name; arg is handed back on every run. */
void plc_bench_register(const char *name, plc_bench_fn fn, const void *arg);

/* The same, run by `threads` threads at once (items add up across them). */
void plc_bench_register_threads(const char *name, plc_bench_fn fn, const void *arg, int threads);
/* Which of the threads this is (0 .. threads-1). */
int plc_bench_thread_index(plc_bench *b);

/* True while the benchmark wants another batch of n operations. */
int plc_bench_keep_running(plc_bench *b, uint64_t n);
/* Operations done so far (valid after the loop). */
int64_t plc_bench_iterations(plc_bench *b);

void plc_bench_set_items(plc_bench *b, int64_t items);
void plc_bench_set_bytes(plc_bench *b, int64_t bytes);
/* A user counter; is_rate: divide by the measured time (per second). */
void plc_bench_counter(plc_bench *b, const char *name, double value, int is_rate);
void plc_bench_label(plc_bench *b, const char *label);
/* Mark the run as skipped with a reason (e.g. the CPU lacks the feature). */
void plc_bench_skip(plc_bench *b, const char *reason);
void plc_bench_pause(plc_bench *b);
void plc_bench_resume(plc_bench *b);

/* Keep the compiler from deleting a computation whose result is unused. */
void plc_bench_keep(uint64_t v);

/* Parse Google Benchmark's flags and run everything registered. */
int plc_bench_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
