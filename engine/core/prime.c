/* prime.c -- see prime.h. */
#include "prime.h"

int plc_is_prime(uint32_t m)
{
    if (m < 2)
        return 0;
    for (uint32_t d = 2; (uint64_t)d * d <= m; d++)
        if (m % d == 0)
            return 0;
    return 1;
}
