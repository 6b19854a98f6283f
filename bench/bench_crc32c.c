/*
 * bench_crc32c.c -- CRC-32C throughput, hardware and software, on key-sized
 * inputs (8..256 bytes, where call overhead and the 3-cycle latency of the
 * instruction dominate) and on a 1 MiB buffer (where three streams keep the
 * unit busy). Reports bytes per second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "kernels.h"
#include "shim.h"

typedef struct crc_case {
    int hardware;
    size_t len;
} crc_case;

static unsigned char *buffer(size_t len)
{
    unsigned char *p = malloc(len + 64);
    for (size_t i = 0; i < len + 64; i++)
        p[i] = (unsigned char)(i * 131 + 7);
    return p;
}

static void bench_crc32c(plc_bench *b, const void *arg)
{
    const crc_case *c = arg;
    const plc_kernels *k = c->hardware ? plc_kernels_get() : plc_kernels_sw();
    if (c->hardware && k->crc32c == plc_kernels_sw()->crc32c) {
        plc_bench_skip(b, "no CRC32C instruction on this CPU");
        return;
    }
    plc_bench_label(b, k->crc32c_name);
    unsigned char *buf = buffer(c->len);
    uint32_t acc = 0;
    /* Short inputs: 64 independent CRCs at rotating offsets per batch. */
    uint64_t batch = c->len >= 4096 ? 1 : 64;
    while (plc_bench_keep_running(b, batch))
        for (uint64_t i = 0; i < batch; i++)
            acc += k->crc32c(0, buf + (i & 31), c->len);
    plc_bench_keep(acc);
    plc_bench_set_bytes(b, plc_bench_iterations(b) * (int64_t)c->len);
    free(buf);
}

void register_crc32c_benches(void)
{
    static const size_t lens[] = {8, 16, 32, 64, 256, 1 << 20};
    static crc_case cases[2][sizeof lens / sizeof lens[0]];
    static char names[2][sizeof lens / sizeof lens[0]][48];
    for (int hw = 1; hw >= 0; hw--)
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            cases[hw][i] = (crc_case){hw, lens[i]};
            snprintf(names[hw][i], sizeof names[hw][i], "crc32c/%s/%zu",
                     hw ? "hardware" : "software", lens[i]);
            plc_bench_register(names[hw][i], bench_crc32c, &cases[hw][i]);
        }
}
