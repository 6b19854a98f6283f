/*
 * previous_seed.c -- `build --previous` and the seed: the seed places every
 * key (placer_hash64(seed, key)), so a rebuild that follows a previous
 * snapshot must hash with its seed, as it keeps its key hash and secret.
 * A membership without "seed" takes the previous one; one naming another
 * seed is refused with the reason (every key would move, whatever
 * --previous keeps). Keyed snapshots hash with their secret: their seed
 * plays no part and is left alone.
 */
#include <jansson.h>

#include "cli.h"

int cli_membership_names_seed(const char *text, size_t len)
{
    json_t *root = json_loadb(text, len, 0, NULL);
    int named = json_object_get(root, "seed") != NULL;
    json_decref(root);
    return named;
}

int cli_previous_seed(const char *cmd, const char *in, const char *prev_path, int names_seed,
                      placer_builder *b, const placer_snapshot *prev)
{
    if (!prev || placer_snapshot_key_hash(prev) == PLACER_HASH_SIPHASH13)
        return CLI_OK;
    uint64_t was = placer_snapshot_seed(prev), now = placer_builder_seed(b);
    if (!names_seed) {
        if (now != was && placer_builder_set_seed(b, was) != 0) {
            fprintf(stderr, "placer %s: cannot take --previous's seed\n", cmd);
            return CLI_BADINPUT;
        }
        return CLI_OK;
    }
    if (now == was)
        return CLI_OK;
    char name[512], pname[512];
    cli_escaped(name, sizeof name, in);
    cli_escaped(pname, sizeof pname, prev_path);
    fprintf(stderr,
            "placer %s: %s: seed %llu differs from --previous %s's seed %llu: every key would "
            "move (the seed places keys); leave \"seed\" out to keep %llu, or build without "
            "--previous\n",
            cmd, name, (unsigned long long)now, pname, (unsigned long long)was,
            (unsigned long long)was);
    return CLI_BADINPUT;
}
