/* jump_build.h -- jump's bucket table build (jump_build.c), for the ops of jump, jumpback and binomial: *out untouched on error
 * (placer_builder_build checks the key hash and dispatches; the module
 * checks its own settings). */
#ifndef PLC_ENGINE_JUMP_BUILD_H
#define PLC_ENGINE_JUMP_BUILD_H

#include <stdint.h>

#include "placer.h"

int plc_jump_build(placer_builder *b, uint64_t epoch, placer_snapshot **out);

#endif
