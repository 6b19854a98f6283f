/* maglev_build.h -- Maglev's build (maglev_build.c), for strategy_maglev.c's ops: *out untouched on error
 * (placer_builder_build checks the key hash and dispatches; the module
 * checks its own settings). */
#ifndef PLC_ENGINE_MAGLEV_BUILD_H
#define PLC_ENGINE_MAGLEV_BUILD_H

#include <stdint.h>

#include "placer.h"

int plc_maglev_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
