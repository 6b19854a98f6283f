/*
 * compat_layout_check.c -- the compat decoder's two loops over every point
 * (compat_codec.c): that a file's points ascend, and that they are the
 * rebuilt layout's. Apart from the codec so that, under libFuzzer, they are
 * built without comparison tracing as the layouts are (engine/meson.build):
 * each step was a traced compare, and UBSan's pointer check a second; the
 * codec's own field checks keep their tracing.
 */
#include "codec_format.h"
#include "compat.h"

uint64_t plc_compat_points_unsorted(const unsigned char *points, uint64_t n)
{
    for (uint64_t i = 1; i < n; i++)
        if (plc_rd32(points + 4 * i) < plc_rd32(points + 4 * (i - 1)))
            return i;
    return n;
}

uint32_t plc_compat_layout_mismatch(const plc_compat_layout *l, const unsigned char *points,
                                    const unsigned char *owners)
{
    for (uint32_t i = 0; i < l->n; i++)
        if ((l->points && plc_rd32(points + 4 * (size_t)i) != l->points[i]) ||
            plc_rd32(owners + 4 * (size_t)i) != l->owners[i])
            return i;
    return l->n;
}
