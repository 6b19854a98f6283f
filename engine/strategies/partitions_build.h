/* partitions_build.h -- the partitions' build (partitions_build.c), for strategy_partitions.c's ops: *out untouched on error
 * (placer_builder_build checks the key hash and dispatches; the module
 * checks its own settings). */
#ifndef PLC_ENGINE_PARTITIONS_BUILD_H
#define PLC_ENGINE_PARTITIONS_BUILD_H

#include <stdint.h>

#include "placer.h"

int plc_partitions_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
