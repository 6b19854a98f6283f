// shim.cc -- the C++ side of shim.h: thin forwarding to Google Benchmark.
#include "shim.h"

#include <benchmark/benchmark.h>

struct plc_bench {
    benchmark::State *state;
};

extern "C" {

void plc_bench_register(const char *name, plc_bench_fn fn, const void *arg)
{
    benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
        plc_bench b{&st};
        fn(&b, arg);
    });
}

void plc_bench_register_threads(const char *name, plc_bench_fn fn, const void *arg, int threads)
{
    benchmark::RegisterBenchmark(name, [fn, arg](benchmark::State &st) {
        plc_bench b{&st};
        fn(&b, arg);
    })->Threads(threads)->UseRealTime();
}

int plc_bench_thread_index(plc_bench *b)
{
    return b->state->thread_index();
}

int plc_bench_keep_running(plc_bench *b, uint64_t n)
{
    return b->state->KeepRunningBatch(static_cast<benchmark::IterationCount>(n));
}

int64_t plc_bench_iterations(plc_bench *b)
{
    return static_cast<int64_t>(b->state->iterations());
}

void plc_bench_set_items(plc_bench *b, int64_t items)
{
    b->state->SetItemsProcessed(items);
}

void plc_bench_set_bytes(plc_bench *b, int64_t bytes)
{
    b->state->SetBytesProcessed(bytes);
}

void plc_bench_counter(plc_bench *b, const char *name, double value, int is_rate)
{
    b->state->counters[name] =
        benchmark::Counter(value, is_rate ? benchmark::Counter::kIsRate : benchmark::Counter::kDefaults);
}

void plc_bench_label(plc_bench *b, const char *label)
{
    b->state->SetLabel(label);
}

void plc_bench_skip(plc_bench *b, const char *reason)
{
    b->state->SkipWithError(reason);
}

void plc_bench_pause(plc_bench *b)
{
    b->state->PauseTiming();
}

void plc_bench_resume(plc_bench *b)
{
    b->state->ResumeTiming();
}

void plc_bench_keep(uint64_t v)
{
    benchmark::DoNotOptimize(v);
}

int plc_bench_main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // extern "C"
