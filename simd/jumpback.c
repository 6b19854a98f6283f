/* jumpback.c -- the portable first step of JumpBackHash (jumpback.h). */
#include "jumpback.h"

void plc_jumpback_first_scalar(const uint64_t *h, size_t n, uint32_t mask, uint32_t *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = plc_jumpback_first(plc_mix64(h[i] + PLC_GOLDEN64), mask);
}
