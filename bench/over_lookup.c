/* over_lookup.c -- see over_lookup.h. */
#include "over_lookup.h"

#define MAX_PAIRS 4096u

void bench_over_lookup(plc_bench *b, const placer_snapshot *s, const ring_fixture *f, int mine,
                       int lookup, bench_pass_fn pass)
{
    static double ratio[MAX_PAIRS];
    uint32_t np = 0;
    uint64_t acc = pass(mine, s, f) + pass(lookup, s, f); /* both warm */
    while (plc_bench_keep_running(b, 2 * (uint64_t)BENCH_KEYS)) {
        double t[2];
        for (int k = 0; k < 2; k++) {
            int is_mine = (k + (int)np) % 2 == 0;
            double t0 = bench_thread_ns();
            acc += pass(is_mine ? mine : lookup, s, f);
            t[is_mine] = bench_thread_ns() - t0;
        }
        if (np < MAX_PAIRS && t[0] > 0)
            ratio[np++] = t[1] / t[0];
    }
    plc_bench_keep(acc);
    plc_bench_counter(b, "over_lookup", bench_median(ratio, np), 0); /* sorts ratio */
    plc_bench_counter(b, "over_lookup_p90", np ? ratio[np * 9 / 10] : 0, 0);
    plc_bench_counter(b, "pairs", np, 0);
}
