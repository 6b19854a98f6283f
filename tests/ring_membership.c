/* ring_membership.c -- see ring_membership.h. */
#include "ring_membership.h"

#include <stdio.h>

void membership_for(membership *m, uint64_t e)
{
    m->epoch = e;
    m->nodes = 3 + (uint32_t)(e % (MEMBERSHIP_MAX_NODES - 2));
    m->ntokens = 0;
    for (uint32_t i = 0; i < m->nodes; i++) {
        /* a window sliding over 23 names: some leave, some join, each epoch */
        snprintf(m->ids[i], sizeof m->ids[i], "n%u", (unsigned)((e * 3 + i) % 23));
        m->id_ptrs[i] = m->ids[i];
        for (uint32_t j = 0; j < MEMBERSHIP_VNODES; j++) {
            char name[24];
            int len = snprintf(name, sizeof name, "%s-%u", m->ids[i], j);
            m->tokens[m->ntokens++] =
                (ref_token){placer_hash64(MEMBERSHIP_SEED, name, (size_t)len), i, j};
        }
    }
}

placer_snapshot *membership_snapshot(uint64_t e)
{
    membership m;
    membership_for(&m, e);
    placer_builder *b = placer_builder_new();
    placer_snapshot *s = NULL;
    if (b && placer_builder_set_seed(b, MEMBERSHIP_SEED) == 0 &&
        placer_builder_set_vnodes(b, MEMBERSHIP_VNODES) == 0) {
        int ok = 1;
        for (uint32_t i = 0; i < m.nodes && ok; i++)
            ok = placer_builder_add_node(b, m.ids[i], "z", 1.0) == (int)i;
        if (ok && placer_builder_build(b, e, &s) != 0)
            s = NULL;
    }
    placer_builder_free(b);
    return s;
}

uint32_t membership_owner(const membership *m, const void *key, size_t len)
{
    return ref_ring_owner(m->tokens, m->ntokens, m->id_ptrs,
                          placer_hash64(MEMBERSHIP_SEED, key, len));
}
