/* ring_build.h -- the ring's build (ring_build.c), for strategy_ring.c's ops: *out untouched on error
 * (placer_builder_build checks the key hash and dispatches; the module
 * checks its own settings). */
#ifndef PLC_ENGINE_RING_BUILD_H
#define PLC_ENGINE_RING_BUILD_H

#include <stdint.h>

#include "placer.h"

int plc_ring_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
