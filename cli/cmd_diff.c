/* cmd_diff.c -- `placer diff OLD.snap NEW.snap`: how much of the key space
 * changes owner, next to the least any placement could move, per node and
 * as ranges. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_diff_usage(FILE *out)
{
    fprintf(out,
            "usage: placer diff [OPTIONS] OLD.snap NEW.snap\n"
            "\n"
            "The fraction of keys whose owner changes (nodes matched by id), next to the\n"
            "ideal: the least any placement must move to give every node its new weight\n"
            "share (the sum of the shares nodes gain). Per node, the share of keys it\n"
            "gives away and receives. For ring, partitions and Maglev the moves are exact\n"
            "ranges of the hash space (lo, hi] (\"placer_diff\"); jump and rendezvous have\n"
            "no ranges and are measured at 2^20 evenly spaced positions. Both snapshots\n"
            "must hash keys alike (same seed, or both Couchbase with the same count).\n"
            "\n"
            "  --ranges N   list the first N moved ranges (default 0)\n"
            "  --json       print everything as one JSON object\n"
            "  -h, --help   this help\n");
}

/* Index of node id in s, or -1. */
static int find_id(const placer_snapshot *s, const char *id)
{
    for (uint32_t i = 0; i < placer_node_count(s); i++)
        if (!strcmp(placer_node_id(s, i), id))
            return (int)i;
    return -1;
}

static double weight_share(const placer_snapshot *s, uint32_t i)
{
    double W = 0;
    for (uint32_t j = 0; j < placer_node_count(s); j++)
        W += placer_node_state(s, j) != PLACER_NODE_JOINING ? placer_node_weight(s, j) : 0;
    return placer_node_state(s, i) != PLACER_NODE_JOINING ? placer_node_weight(s, i) / W : 0;
}

enum { OPT_RANGES = 256, OPT_JSON };

static const struct option options[] = {
    {"ranges", required_argument, NULL, OPT_RANGES},
    {"json", no_argument, NULL, OPT_JSON},
    CLI_HELP_OPTION,
    {0},
};

int cmd_diff(int argc, char **argv)
{
    uint64_t show = 0;
    int json = 0, c;
    while ((c = cli_getopt("diff", argc, argv, options, cmd_diff_usage)) != -1) {
        if (c == OPT_RANGES) {
            if (cli_parse_u64("diff", "--ranges", optarg, 0, UINT32_MAX, &show))
                return CLI_USAGE;
        } else if (c == OPT_JSON) {
            json = 1;
        } else {
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (argc - optind != 2) {
        cli_usage_error("diff", "two snapshot files, OLD and NEW");
        return CLI_USAGE;
    }
    const char *paths[2] = {argv[optind], argv[optind + 1]};
    placer_snapshot *a = NULL, *b = NULL;
    int rc = cli_load_snapshot("diff", paths[0], &a);
    if (!rc)
        rc = cli_load_snapshot("diff", paths[1], &b);
    if (rc) {
        placer_snapshot_free(a);
        return rc;
    }
    uint32_t na = placer_node_count(a), nb = placer_node_count(b);
    double *out_of = calloc(na, sizeof *out_of), *into = calloc(nb, sizeof *into);
    placer_move *m = NULL;
    size_t count = 0;
    double moved = 0;
    int exact = 0;
    int err = out_of && into ? placer_diff(a, b, &m, &count) : PLACER_ENOMEM;
    if (!err) {
        exact = 1;
        moved = placer_moves_fraction(m, count);
        err = placer_moves_shares(a, b, m, count, out_of, into);
    } else if (err == PLACER_ENOTSUP) {
        /* no ranges: sample positions, as placer_moved_fraction does */
        enum { SAMPLES = 1 << 20 };
        err = 0;
        for (uint32_t i = 0; i < SAMPLES; i++) {
            uint64_t h = ((uint64_t)i << 44) + ((uint64_t)1 << 43);
            int oa = placer_lookup_hash(a, h), ob = placer_lookup_hash(b, h);
            if (oa < 0 || ob < 0)
                continue;
            if (strcmp(placer_node_id(a, (uint32_t)oa), placer_node_id(b, (uint32_t)ob))) {
                out_of[oa] += 1.0 / SAMPLES;
                into[ob] += 1.0 / SAMPLES;
                moved += 1.0 / SAMPLES;
            }
        }
    }
    if (err) {
        fprintf(stderr, "placer diff: %s%s\n", placer_strerror(err),
                err == PLACER_EINVAL ? " (the snapshots hash keys differently: seed or key hash)" : "");
        placer_snapshot_free(a);
        placer_snapshot_free(b);
        free(out_of), free(into);
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    /* ideal: what the new weight shares require */
    double ideal = 0;
    for (uint32_t j = 0; j < nb; j++) {
        int i = find_id(a, placer_node_id(b, j));
        double gain = weight_share(b, j) - (i >= 0 ? weight_share(a, (uint32_t)i) : 0);
        ideal += gain > 0 ? gain : 0;
    }
    json_t *doc = json ? cli_json_doc() : NULL, *nodes = json ? json_array() : NULL;
    if (json) {
        cli_json_put(doc, "moved", cli_json_num(moved));
        cli_json_put(doc, "ideal", cli_json_num(ideal));
        cli_json_put(doc, "exact", json_boolean(exact));
        cli_json_put(doc, "ranges", cli_json_u64(count));
    } else {
        printf("moved: %.4f%% of keys (%s); ideal %.4f%%", 100 * moved,
               exact ? "exact ranges" : "measured at 2^20 positions", 100 * ideal);
        if (ideal > 0)
            printf(", %.2fx the ideal", moved / ideal);
        printf("\n%-24s %10s %10s\n", "node", "gives", "receives");
    }
    for (uint32_t pass = 0; pass < 2; pass++) {
        /* a's nodes (with what b's same id receives), then nodes only in b */
        uint32_t n = pass ? nb : na;
        for (uint32_t i = 0; i < n; i++) {
            const char *id = pass ? placer_node_id(b, i) : placer_node_id(a, i);
            if (pass && find_id(a, id) >= 0)
                continue;
            int j = pass ? (int)i : find_id(b, id);
            double give = pass ? 0 : out_of[i], get = j >= 0 ? into[j] : 0;
            if (json) {
                json_t *o = json_object();
                cli_json_put(o, "id", cli_json_str(id));
                cli_json_put(o, "gives", cli_json_num(give));
                cli_json_put(o, "receives", cli_json_num(get));
                cli_json_append(nodes, o);
            } else if (give > 0 || get > 0) {
                cli_print_name(stdout, id);
                printf("%*s %9.4f%% %9.4f%%\n", (int)(24 > strlen(id) ? 24 - strlen(id) : 0), "",
                       100 * give, 100 * get);
            }
        }
    }
    json_t *first = json ? json_array() : NULL;
    for (size_t r = 0; r < count && r < show; r++) {
        const char *from = m[r].from == PLACER_NO_NODE ? "-" : placer_node_id(a, m[r].from);
        const char *to = m[r].to == PLACER_NO_NODE ? "-" : placer_node_id(b, m[r].to);
        if (json) {
            /* hash positions are 64-bit: decimal strings, exact everywhere */
            char lo[24], hi[24];
            snprintf(lo, sizeof lo, "%llu", (unsigned long long)m[r].lo);
            snprintf(hi, sizeof hi, "%llu", (unsigned long long)m[r].hi);
            json_t *o = json_object();
            cli_json_put(o, "lo", json_string(lo));
            cli_json_put(o, "hi", json_string(hi));
            cli_json_put(o, "from", cli_json_str(from));
            cli_json_put(o, "to", cli_json_str(to));
            cli_json_append(first, o);
        } else {
            printf("(%016llx, %016llx] ", (unsigned long long)m[r].lo, (unsigned long long)m[r].hi);
            cli_print_name(stdout, from);
            printf(" -> ");
            cli_print_name(stdout, to);
            printf("\n");
        }
    }
    int out_rc = CLI_OK;
    if (json) {
        cli_json_put(doc, "nodes", nodes);
        cli_json_put(doc, "first_ranges", first);
        out_rc = cli_json_emit("diff", doc);
    } else if (exact) {
        printf("%zu moved range%s%s\n", count, count == 1 ? "" : "s",
               count > show ? " (--ranges N lists them)" : "");
    }
    placer_moves_free(m);
    free(out_of);
    free(into);
    placer_snapshot_free(a);
    placer_snapshot_free(b);
    return out_rc;
}
