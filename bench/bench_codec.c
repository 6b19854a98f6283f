/*
 * bench_codec.c -- snapshots as bytes: decoding (every check, then the
 * search tree laid out again) and encoding the benchmark rings of 30,720
 * and 2^20 tokens, in bytes per second of the encoded form. The goal is
 * decoding a 2^20-token snapshot at >= 1 GB/s; memcpy of the same bytes
 * runs beside it as the ceiling.
 */
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "fixtures.h"
#include "shim.h"

typedef struct codec_case {
    int fixture;
    int op; /* 0 decode, 1 encode, 2 memcpy */
} codec_case;

static void bench_codec(plc_bench *b, const void *arg)
{
    const codec_case *c = arg;
    const ring_fixture *f = bench_fixture(c->fixture);
    void *buf;
    size_t len;
    if (placer_snapshot_encode(f->snap, &buf, &len)) {
        plc_bench_skip(b, "encode failed");
        return;
    }
    void *copy = c->op == 2 ? malloc(len) : NULL;
    uint64_t acc = 0;
    while (plc_bench_keep_running(b, 1)) {
        if (c->op == 0) {
            placer_snapshot *s = NULL;
            acc += (uint64_t)placer_snapshot_decode(buf, len, &s);
            placer_snapshot_free(s);
        } else if (c->op == 1) {
            void *out;
            size_t n;
            acc += (uint64_t)placer_snapshot_encode(f->snap, &out, &n);
            placer_buffer_free(out);
        } else {
            memcpy(copy, buf, len);
            acc += ((unsigned char *)copy)[len / 2];
        }
    }
    plc_bench_keep(acc);
    plc_bench_set_bytes(b, plc_bench_iterations(b) * (int64_t)len);
    plc_bench_counter(b, "snapshot_bytes", (double)len, 0);
    free(copy);
    placer_buffer_free(buf);
}

void register_codec_benches(void)
{
    static const codec_case cases[] = {{1, 0}, {1, 1}, {3, 0}, {3, 1}, {3, 2}};
    static const char *const names[] = {"codec/30720/decode", "codec/30720/encode",
                                        "codec/2^20/decode", "codec/2^20/encode",
                                        "codec/2^20/memcpy"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        plc_bench_register(names[i], bench_codec, &cases[i]);
}
