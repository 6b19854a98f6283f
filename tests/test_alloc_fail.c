/*
 * test_alloc_fail.c -- every allocation-failure path (libuv's test-loop-oom
 * idea): the k-th allocation fails, for k = 0, 1, 2, ... until a whole
 * scenario runs without meeting the failure. Each failure must surface as
 * NULL or PLACER_ENOMEM, leave earlier state usable, and leak nothing
 * (LeakSanitizer checks that in the sanitizer build).
 */
#include <string.h>

#include "alloc.h"
#include "check.h"
#include "placer.h"

/* Returns 1 when the whole scenario succeeded, 0 when it met a failure. */
static int scenario(void)
{
    placer_builder *b = placer_builder_new();
    if (!b)
        return 0;
    int ok = 1;
    char id[16];
    for (int i = 0; i < 40 && ok; i++) {
        snprintf(id, sizeof id, "n%d", i);
        int r = placer_builder_add_node(b, id, i % 2 ? "even" : "odd", 1);
        if (r == PLACER_ENOMEM) {
            ok = 0;
            /* The builder is unchanged: the same id can be added later. */
            plc_alloc_fail_at(-1);
            CHECK_EQ(placer_builder_add_node(b, id, "z", 1), i);
        } else {
            CHECK_EQ(r, i);
        }
    }
    for (int i = 0; i < 40 && ok; i++) {
        int r = placer_builder_add_token(b, 3, (uint64_t)i * 1000);
        if (r == PLACER_ENOMEM)
            ok = 0;
        else
            CHECK_EQ(r, 0);
    }
    placer_snapshot *s = NULL;
    if (ok) {
        int r = placer_builder_build(b, 1, &s);
        if (r == PLACER_ENOMEM) {
            CHECK(s == NULL);
            ok = 0;
        } else {
            CHECK_EQ(r, 0);
            CHECK_EQ(placer_node_count(s), 40);
        }
    }
    plc_alloc_fail_at(-1);
    if (!ok) {
        /* After a failure, the same builder still builds. */
        placer_snapshot *again = NULL;
        CHECK_EQ(placer_builder_build(b, 2, &again), 0);
        placer_snapshot_free(again);
    }
    placer_snapshot_free(s);
    placer_builder_free(b);
    return ok;
}

int main(void)
{
    long k = 0;
    for (; k < 100000; k++) {
        plc_alloc_fail_at(k);
        if (scenario())
            break;
    }
    plc_alloc_fail_at(-1);
    printf("allocator %s: scenario needed %ld allocations; each one failed in turn\n",
           plc_allocator_name(), k);
    CHECK(k > 10 && k < 100000);
    return check_done("test_alloc_fail");
}
