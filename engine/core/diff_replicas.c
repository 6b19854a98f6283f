/*
 * diff_replicas.c -- placer_diff_replicas: what each node must receive for
 * its new replica sets, from generated keys (diff_keys.c) whose sets are
 * looked up in both snapshots (placer_replicas_batch). Sets are compared as
 * sets of node ids (a's indices mapped to b's): a member that stays, in any
 * position, moves nothing.
 */
#include <string.h>

#include "alloc.h"
#include "diff_internal.h"
#include "validate.h"

#define MOST_REPLICAS 64u

static int member(const uint32_t *set, uint32_t n, uint32_t node)
{
    for (uint32_t i = 0; i < n; i++)
        if (set[i] == node)
            return 1;
    return 0;
}

typedef struct sets {
    uint32_t *a, *b, *na, *nb, *mapped;
} sets;

/* One key's sets: counts what b's set gains and a's loses; 1 when the
 * members differ. */
static int compare(const uint32_t *map, const uint32_t *sa, uint32_t na, const uint32_t *sb,
                   uint32_t nb, uint32_t *mapped, uint64_t *lost, uint64_t *gained)
{
    int changed = 0;
    for (uint32_t i = 0; i < na; i++)
        mapped[i] = map[sa[i]];
    for (uint32_t j = 0; j < nb; j++)
        if (!member(mapped, na, sb[j])) {
            gained[sb[j]]++;
            changed = 1;
        }
    for (uint32_t i = 0; i < na; i++)
        if (!member(sb, nb, mapped[i])) {
            lost[sa[i]]++;
            changed = 1;
        }
    return changed;
}

static int sample(const placer_snapshot *a, const placer_snapshot *b, const uint32_t *map,
                  uint32_t R, uint64_t want, const sets *w, uint64_t *lost, uint64_t *gained,
                  placer_diff_report *r)
{
    plc_diff_keys k = {0};
    uint64_t changed = 0;
    for (uint64_t done = 0; done < want;) {
        size_t n = plc_diff_next_keys(&k, want - done);
        int err = placer_replicas_batch(a, k.keys, k.lens, n, R, w->a, w->na);
        if (!err)
            err = placer_replicas_batch(b, k.keys, k.lens, n, R, w->b, w->nb);
        if (err)
            return err;
        for (size_t i = 0; i < n; i++) {
            if (!w->na[i] || !w->nb[i]) {
                r->unplaced++;
                continue;
            }
            r->keys++;
            changed += compare(map, w->a + i * R, w->na[i], w->b + i * R, w->nb[i], w->mapped,
                               lost, gained);
        }
        done += n;
    }
    r->moved = r->keys ? (double)changed / (double)r->keys : 0;
    plc_diff_wilson95(changed, r->keys, &r->low95, &r->high95);
    return 0;
}

int placer_diff_replicas(const placer_snapshot *a, const placer_snapshot *b, uint32_t replicas,
                         uint64_t sample_keys, placer_diff_report *r)
{
    PLC_VALIDATE_OR_RET(a && b && r, PLACER_ENULL);
    PLC_VALIDATE_OR_RET(r->size >= sizeof *r && replicas >= 1 && replicas <= MOST_REPLICAS,
                        PLACER_EINVAL);
    size_t size = r->size;
    *r = (placer_diff_report){.size = size, .method = PLACER_DIFF_SAMPLED};
    size_t chunk = (size_t)PLC_DIFF_CHUNK * replicas;
    sets w = {plc_malloc(chunk * sizeof(uint32_t)), plc_malloc(chunk * sizeof(uint32_t)),
              plc_malloc(PLC_DIFF_CHUNK * sizeof(uint32_t)), plc_malloc(PLC_DIFF_CHUNK * sizeof(uint32_t)),
              plc_malloc(replicas * sizeof(uint32_t))};
    uint32_t *map = plc_diff_map_nodes(a, b);
    uint64_t *lost = plc_calloc((size_t)a->nnodes + 1, sizeof *lost);
    uint64_t *gained = plc_calloc((size_t)b->nnodes + 1, sizeof *gained);
    r->gives = plc_calloc((size_t)a->nnodes + 1, sizeof *r->gives);
    r->receives = plc_calloc((size_t)b->nnodes + 1, sizeof *r->receives);
    int err = w.a && w.b && w.na && w.nb && w.mapped && map && lost && gained && r->gives &&
                      r->receives
                  ? sample(a, b, map, replicas, sample_keys ? sample_keys : plc_diff_default_keys(a, b),
                           &w, lost, gained, r)
                  : PLACER_ENOMEM;
    for (uint32_t i = 0; !err && r->keys && i < a->nnodes; i++)
        r->gives[i] = (double)lost[i] / (double)r->keys;
    for (uint32_t j = 0; !err && r->keys && j < b->nnodes; j++)
        r->receives[j] = (double)gained[j] / (double)r->keys;
    plc_free(w.a), plc_free(w.b), plc_free(w.na), plc_free(w.nb), plc_free(w.mapped);
    plc_free(map), plc_free(lost), plc_free(gained);
    if (err)
        placer_diff_report_release(r);
    return err;
}
