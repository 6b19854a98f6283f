/* compat_output.c -- how a snapshot places keys, in the words of the
 * commands' summaries: placer's strategy, or a compatibility mode's
 * program, distribution and key hash (docs/COMPAT.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *cli_placement_name(const placer_snapshot *s, char *buf, size_t n)
{
    int program = placer_snapshot_compat(s);
    if (program == PLACER_COMPAT_NONE)
        return placer_strategy_name(placer_snapshot_strategy(s));
    const char *dist = placer_snapshot_compat_distribution(s);
    snprintf(buf, n, "%s%s%s", placer_compat_name(program), dist ? " " : "", dist ? dist : "");
    return buf;
}

const char *cli_key_hash_name(const placer_snapshot *s)
{
    if (placer_snapshot_compat(s) != PLACER_COMPAT_NONE)
        return placer_snapshot_compat_key_hash(s);
    return placer_key_hash_name(placer_snapshot_key_hash(s));
}

void cli_compat_json(json_t *doc, const placer_snapshot *s)
{
    int program = placer_snapshot_compat(s);
    if (program == PLACER_COMPAT_NONE)
        return;
    const char *dist = placer_snapshot_compat_distribution(s);
    cli_json_put(doc, "compat", json_string(placer_compat_name(program)));
    cli_json_put(doc, "distribution", dist ? json_string(dist) : json_null());
}

int cli_compat_shares(const placer_snapshot *s, double *share)
{
    uint32_t nodes = placer_node_count(s), n = placer_token_count(s);
    const char *dist = placer_snapshot_compat_distribution(s);
    int table = dist && (!strcmp(dist, "modula") || !strcmp(dist, "hash") ||
                         !strcmp(dist, "map-based"));
    uint64_t tok, prev = 0;
    uint32_t o;
    for (uint32_t i = 0; i < nodes; i++)
        share[i] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (placer_token_at(s, i, &tok, &o) != 0 || o >= nodes)
            continue;
        /* a table's slot i takes the hashes h with h % n == i: 1/n each;
         * a ring's point owns the 32-bit hashes after the one before it */
        share[o] += table ? 1.0 / n : (double)(i ? tok - prev : tok + 1) / 4294967296.0;
        prev = tok;
    }
    if (!table && n && placer_token_at(s, 0, &tok, &o) == 0 && o < nodes)
        share[o] += (double)(UINT32_MAX - prev) / 4294967296.0; /* the wrap */
    return 0;
}
