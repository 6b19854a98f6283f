/* main.c -- placer_bench: every benchmark, Google Benchmark's flags. */
#include "benches.h"
#include "shim.h"

int main(int argc, char **argv)
{
    register_crc32c_benches();
    register_hash64_benches();
    register_lookup_benches();
    register_directory_benches();
    register_build_benches();
    register_build_scale_benches();
    register_build_sets_benches();
    register_router_benches();
    register_router_writer_benches();
    register_replica_benches();
    register_datacenter_benches();
    register_crc32_benches();
    register_strategy_benches();
    register_bucket_benches();
    register_codec_benches();
    register_bounded_benches();
    register_compat_benches();
    register_clientlib_benches();
    register_kafka_benches();
    register_keyed_benches();
    register_public_benches();
    return plc_bench_main(argc, argv);
}
