/* cmd_stats.c -- `placer stats FILE.snap`: how evenly a snapshot spreads
 * keys: per node tokens, share of keys and its weight's share; max/mean,
 * coefficient of variation; per zone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_stats_usage(FILE *out)
{
    fprintf(out,
            "usage: placer stats FILE.snap [--json]\n"
            "\n"
            "Per node: zone, weight, state, tokens (the strategy's units: ring tokens,\n"
            "partitions, Maglev entries, jump buckets), the share of keys it owns and the\n"
            "share its weight asks for. Then, over the nodes of the current placement:\n"
            "max/mean and min/mean of the shares, their coefficient of variation, the\n"
            "largest share/target ratio; and each zone's share. Shares are exact for the\n"
            "ring, partitions and Maglev (ranges of the hash space), counted over\n"
            "partitions or buckets for Couchbase hashing and jump, and measured at 65,536\n"
            "evenly spaced positions for rendezvous.\n"
            "\n"
            "  --json   print everything as one JSON object\n");
}

int cmd_stats(int argc, char **argv)
{
    const char *path;
    int json;
    int rc = cli_file_and_json("stats", argc, argv, cmd_stats_usage, &path, &json);
    if (rc)
        return rc;
    placer_snapshot *s;
    rc = cli_load_snapshot("stats", path, &s);
    if (rc)
        return rc;
    uint32_t n = placer_node_count(s);
    double *share = malloc(n * sizeof *share), *target = malloc(n * sizeof *target);
    uint32_t *zone_of = malloc(n * sizeof *zone_of);
    if (!share || !target || !zone_of) {
        fprintf(stderr, "placer stats: out of memory\n");
        free(share), free(target), free(zone_of);
        placer_snapshot_free(s);
        return CLI_FAILURE;
    }
    int sampled = cli_node_shares(s, share);
    double W = 0;
    uint32_t placed = 0;
    for (uint32_t i = 0; i < n; i++)
        if (placer_node_state(s, i) != PLACER_NODE_JOINING) {
            W += placer_node_weight(s, i);
            placed++;
        }
    double max = 0, min = 1, sum = 0, sum2 = 0, worst_ratio = 0;
    for (uint32_t i = 0; i < n; i++) {
        int in = placer_node_state(s, i) != PLACER_NODE_JOINING;
        target[i] = in ? placer_node_weight(s, i) / W : 0;
        if (!in)
            continue;
        max = fmax(max, share[i]);
        min = fmin(min, share[i]);
        sum += share[i];
        sum2 += share[i] * share[i];
        worst_ratio = fmax(worst_ratio, share[i] / target[i]);
    }
    double mean = sum / placed, cv = sqrt(fmax(0, sum2 / placed - mean * mean)) / mean;
    /* zones: each node points at the first node of its zone; compared
     * with one node per zone seen so far (zones are few) */
    uint32_t nz = 0, *reps = malloc(n * sizeof *reps);
    for (uint32_t i = 0; reps && i < n; i++) {
        zone_of[i] = i;
        for (uint32_t z = 0; z < nz; z++)
            if (!strcmp(placer_node_zone(s, reps[z]), placer_node_zone(s, i))) {
                zone_of[i] = reps[z];
                break;
            }
        if (zone_of[i] == i)
            reps[nz++] = i;
    }
    free(reps);
    /* each zone's share and node count, at the index of its first node */
    double *zone_share = calloc(n, sizeof *zone_share);
    uint32_t *zone_nodes = calloc(n, sizeof *zone_nodes);
    for (uint32_t i = 0; zone_share && zone_nodes && i < n; i++) {
        zone_share[zone_of[i]] += share[i];
        zone_nodes[zone_of[i]]++;
    }
    if (!zone_share || !zone_nodes) {
        fprintf(stderr, "placer stats: out of memory\n");
        free(zone_share), free(zone_nodes), free(share), free(target), free(zone_of);
        placer_snapshot_free(s);
        return CLI_FAILURE;
    }
    const char *strategy = placer_strategy_name(placer_snapshot_strategy(s));
    if (json) {
        printf("{\"strategy\":\"%s\",\"epoch\":%llu,\"tokens\":%u,\"in_transition\":%s,"
               "\"shares\":\"%s\",\"nodes\":[",
               strategy, (unsigned long long)placer_snapshot_epoch(s), placer_token_count(s),
               placer_snapshot_in_transition(s) ? "true" : "false", sampled ? "sampled" : "exact");
        static const char *const states[] = {"active", "joining", "draining", "down"};
        for (uint32_t i = 0; i < n; i++) {
            printf("%s{\"id\":", i ? "," : "");
            cli_json_string(stdout, placer_node_id(s, i));
            printf(",\"zone\":");
            cli_json_string(stdout, placer_node_zone(s, i));
            printf(",\"weight\":%.17g,\"state\":\"%s\",\"tokens\":%u,\"share\":%.17g,\"target\":%.17g}",
                   placer_node_weight(s, i), states[placer_node_state(s, i)],
                   placer_node_tokens(s, i), share[i], target[i]);
        }
        printf("],\"max_over_mean\":%.17g,\"min_over_mean\":%.17g,\"cv\":%.17g,"
               "\"max_over_target\":%.17g,\"zones\":[",
               max / mean, min / mean, cv, worst_ratio);
        int first = 1;
        for (uint32_t z = 0; z < n; z++) {
            if (zone_of[z] != z)
                continue;
            printf("%s{\"zone\":", first ? "" : ",");
            cli_json_string(stdout, placer_node_zone(s, z));
            printf(",\"share\":%.17g,\"nodes\":%u}", zone_share[z], zone_nodes[z]);
            first = 0;
        }
        printf("]}\n");
    } else {
        printf("%s: %s, epoch %llu, %u nodes in %u zone%s, %u tokens%s\n", path, strategy,
               (unsigned long long)placer_snapshot_epoch(s), n, nz, nz == 1 ? "" : "s",
               placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
        printf("%-24s %-12s %8s %-9s %9s %9s %9s\n", "node", "zone", "weight", "state", "tokens",
               "share", "target");
        static const char *const states[] = {"active", "joining", "draining", "down"};
        for (uint32_t i = 0; i < n; i++)
            printf("%-24s %-12s %8.3f %-9s %9u %8.4f%% %8.4f%%\n", placer_node_id(s, i),
                   placer_node_zone(s, i), placer_node_weight(s, i), states[placer_node_state(s, i)],
                   placer_node_tokens(s, i), 100 * share[i], 100 * target[i]);
        printf("shares (%s) over %u placed nodes: max/mean %.4f, min/mean %.4f, coefficient of "
               "variation %.4f, largest share/target %.4f\n",
               sampled ? "sampled" : "exact", placed, max / mean, min / mean, cv, worst_ratio);
        printf("zones:");
        for (uint32_t z = 0; z < n; z++) {
            if (zone_of[z] != z)
                continue;
            double zs = zone_share[z];
            uint32_t members = zone_nodes[z];
            printf(" %s %.2f%% (%u node%s)", *placer_node_zone(s, z) ? placer_node_zone(s, z) : "(none)",
                   100 * zs, members, members == 1 ? "" : "s");
        }
        printf("\n");
    }
    free(share);
    free(target);
    free(zone_of);
    free(zone_share);
    free(zone_nodes);
    placer_snapshot_free(s);
    return CLI_OK;
}
