/* rendezvous_build.h -- rendezvous' build (rendezvous_build.c), for strategy_rendezvous.c's ops: *out untouched on error
 * (placer_builder_build checks the key hash and dispatches; the module
 * checks its own settings). */
#ifndef PLC_ENGINE_RENDEZVOUS_BUILD_H
#define PLC_ENGINE_RENDEZVOUS_BUILD_H

#include <stdint.h>

#include "placer.h"

int plc_rendezvous_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
