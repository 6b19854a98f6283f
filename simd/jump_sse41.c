/* jump_sse41.c -- jump hash with its loop in doubles (jump_body.h),
 * compiled with -msse4.2 so that the truncation is one roundsd. */
#include "jump.h"
#include "jump_body.h"

int32_t plc_jump_sse41(uint64_t key, int32_t buckets)
{
    return plc_jump_dbl(key, buckets);
}
