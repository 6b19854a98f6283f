/* bucket_setup.c -- see bucket_setup.h. */
#include "bucket_setup.h"

#include <stdio.h>
#include <string.h>

placer_snapshot *bench_bucket_build(int st, const uint32_t *ids, uint32_t n,
                                    const placer_snapshot *prev)
{
    placer_builder *b = placer_builder_new();
    placer_builder_set_strategy(b, st);
    char id[16];
    for (uint32_t i = 0; i < n; i++) {
        snprintf(id, sizeof id, "node-%04u", ids[i]);
        placer_builder_add_node(b, id, NULL, 1.0);
    }
    placer_builder_set_previous(b, prev);
    placer_snapshot *s = NULL;
    if (placer_builder_build(b, 1, &s))
        fprintf(stderr, "build %s: %s\n", placer_strategy_name(st), placer_builder_error(b));
    placer_builder_free(b);
    return s;
}

uint32_t bench_bucket_of_node(const placer_snapshot *s, const char *id)
{
    for (uint32_t i = 0; i < placer_token_count(s); i++) {
        uint64_t t;
        uint32_t o;
        placer_token_at(s, i, &t, &o);
        if (!strcmp(placer_node_id(s, o), id))
            return (uint32_t)t;
    }
    return 0;
}
