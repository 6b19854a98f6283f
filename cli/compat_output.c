/* compat_output.c -- how a snapshot places keys, in the words of the
 * commands' summaries: placer's strategy, or a compatibility mode's
 * program, distribution and key hash (docs/COMPAT.md). */
#include <stdio.h>

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

int cli_compat_has_slots(const placer_snapshot *s)
{
    placer_compat_info info = {.size = sizeof info};
    return placer_compat_describe(placer_snapshot_compat(s), &info) == 0 &&
           (info.fields & PLACER_COMPAT_FIELD_SLOTS);
}

void cli_compat_json(json_t *doc, const placer_snapshot *s)
{
    int program = placer_snapshot_compat(s);
    if (program == PLACER_COMPAT_NONE)
        return;
    const char *dist = placer_snapshot_compat_distribution(s);
    cli_json_put(doc, "compat", json_string(placer_compat_name(program)));
    cli_json_put(doc, "distribution", dist ? json_string(dist) : json_null());
    if (*placer_snapshot_key_rule(s)) /* haproxy's balance rule (docs/COMPAT.md) */
        cli_json_put(doc, "key_rule", json_string(placer_snapshot_key_rule(s)));
}
