/* benches.h -- one registration function per benchmark file. */
#ifndef PLACER_BENCH_BENCHES_H
#define PLACER_BENCH_BENCHES_H

void register_crc32c_benches(void);
void register_hash64_benches(void);
void register_lookup_benches(void);
void register_directory_benches(void);
void register_build_benches(void);
void register_build_scale_benches(void);
void register_build_sets_benches(void);
void register_router_benches(void);
void register_router_writer_benches(void);
void register_replica_benches(void);
void register_datacenter_benches(void);
void register_crc32_benches(void);
void register_strategy_benches(void);
void register_codec_benches(void);
void register_bounded_benches(void);
void register_compat_benches(void);
void register_clientlib_benches(void);
void register_kafka_benches(void);
void register_keyed_benches(void);
void register_public_benches(void);
void register_bucket_benches(void);

#endif
