/* cmd_stats.c -- `placer stats FILE.snap`: how evenly a snapshot spreads
 * keys: per node tokens, share of keys and its weight's share; first the
 * share/target ratios (what matters when weights differ), then the raw
 * max/mean and coefficient of variation; per zone and per datacenter. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_stats_usage(FILE *out)
{
    fprintf(out,
            "usage: placer stats [OPTIONS] FILE.snap\n"
            "\n"
            "Per node: zone, weight, state, tokens (the strategy's units: ring tokens,\n"
            "partitions, Maglev entries, jump buckets), the share of keys it owns, the\n"
            "share its weight asks for (target) and their ratio. Then, over the nodes of\n"
            "the current placement: first the largest and smallest share/target ratio and\n"
            "the node that has the largest (1.00 is perfect, whatever the weights); after\n"
            "it, the raw max/mean and min/mean of the shares and their coefficient of\n"
            "variation (these also count weight differences); and each zone's share\n"
            "(and each datacenter's, with its nodes, racks and replication factor, when\n"
            "nodes name one).\n"
            "In transition (a node joining or draining), next_target is each node's weight\n"
            "share in the target placement (active, joining and down nodes): what a\n"
            "joining node will own once the transition completes, 0 for a draining one.\n"
            "A Redis Cluster snapshot is measured over its masters: replicas (a slot's\n"
            "later copies) own no slot and are listed apart (JSON: \"role\", \"replicas\").\n"
            "Shares are exact for the\n"
            "ring, partitions and Maglev (ranges of the hash space), counted over\n"
            "partitions or buckets for Couchbase hashing and jump, and measured for\n"
            "rendezvous at evenly spaced positions: 65,536, fewer on large clusters (every\n"
            "lookup scores every node; 128 at 100,000 nodes), the number printed. Last, the\n"
            "search layout the snapshot chose (placer_snapshot_layout_name): for a ring,\n"
            "\"buckets\" (2^bits 64-byte lines in front of the S+ tree, with the share of\n"
            "lines that answer alone, not crowded), \"directory\" (over 65,536 nodes: 2^bits\n"
            "entries, with the share of hashes one entry answers) or \"stree\"; and its\n"
            "bytes against plain sorted tokens + owners (JSON: directory_bits and\n"
            "one_read_share hold the same two figures for either).\n"
            "\n"
            "  --json       print everything as one JSON object\n"
            "  -h, --help   this help\n");
}

static const placer_snapshot *zone_snapshot; /* qsort has no context argument */

/* By zone name, then by index (so each zone's first node sorts first). */
static int by_zone(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int c = strcmp(placer_node_zone(zone_snapshot, a), placer_node_zone(zone_snapshot, b));
    return c ? c : (a > b) - (a < b);
}

/* Redis Cluster: replica[i] = 1 for a node that holds slots only as a
 * later copy (a master's replica), never first. Replicas own no slot by
 * design, so the balance is measured over the masters and replicas are
 * shown apart. Returns how many replicas; 0 for any other snapshot. */
static uint32_t redis_replicas(const placer_snapshot *s, unsigned char *replica)
{
    uint32_t n = placer_node_count(s), count = 0;
    memset(replica, 0, n);
    if (!cli_compat_has_slots(s))
        return 0;
    unsigned char *first = calloc(n, 1);
    if (!first)
        return 0;
    uint32_t set[8];
    for (uint32_t p = 0; p < placer_partition_count(s); p++) {
        int k = placer_partition_replicas(s, p, set, 8);
        for (int i = 0; i < k; i++)
            (i ? replica : first)[set[i]] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        replica[i] &= !first[i];
        count += replica[i];
    }
    free(first);
    return count;
}

static uint32_t first_replica(const unsigned char *replica, uint32_t n)
{
    uint32_t i = 0;
    while (i < n && !replica[i])
        i++;
    return i;
}

/* Node i's weight share in the target placement (draining nodes own none). */
static double next_target(const placer_snapshot *s, uint32_t i, double W_next)
{
    return placer_node_state(s, i) != PLACER_NODE_DRAINING && W_next > 0
               ? placer_node_weight(s, i) / W_next
               : 0;
}

int cmd_stats(int argc, char **argv)
{
    const char *path;
    int json;
    int rc = cli_file_and_json("stats", argc, argv, cmd_stats_usage, &path, &json);
    if (rc)
        return rc == CLI_OPT_HELP ? CLI_OK : rc;
    placer_snapshot *s;
    rc = cli_load_snapshot("stats", path, &s);
    if (rc)
        return rc;
    uint32_t n = placer_node_count(s);
    double *share = malloc(n * sizeof *share), *target = malloc(n * sizeof *target);
    uint32_t *zone_of = malloc(n * sizeof *zone_of);
    unsigned char *replica = malloc(n ? n : 1);
    if (!share || !target || !zone_of || !replica) {
        fprintf(stderr, "placer stats: out of memory\n");
        free(share), free(target), free(zone_of), free(replica);
        placer_snapshot_free(s);
        return CLI_FAILURE;
    }
    int sampled = cli_node_shares(s, share);
    uint32_t replicas = redis_replicas(s, replica);
    double W = 0;
    uint32_t placed = 0;
    for (uint32_t i = 0; i < n; i++)
        if (placer_node_state(s, i) != PLACER_NODE_JOINING && !replica[i]) {
            W += placer_node_weight(s, i);
            placed++;
        }
    /* the target placement's weights: active, joining and down nodes */
    int moving = placer_snapshot_in_transition(s);
    double W_next = 0;
    for (uint32_t i = 0; i < n; i++)
        W_next += placer_node_state(s, i) != PLACER_NODE_DRAINING ? placer_node_weight(s, i) : 0;
    double max = 0, min = 1, sum = 0, sum2 = 0, worst_ratio = 0, low_ratio = INFINITY;
    uint32_t worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        int in = placer_node_state(s, i) != PLACER_NODE_JOINING && !replica[i];
        target[i] = in ? placer_node_weight(s, i) / W : 0;
        if (!in)
            continue;
        max = fmax(max, share[i]);
        min = fmin(min, share[i]);
        sum += share[i];
        sum2 += share[i] * share[i];
        if (share[i] / target[i] > worst_ratio) {
            worst_ratio = share[i] / target[i];
            worst = i;
        }
        low_ratio = fmin(low_ratio, share[i] / target[i]);
    }
    double mean = sum / placed, cv = sqrt(fmax(0, sum2 / placed - mean * mean)) / mean;
    /* zones: each node points at the first node of its zone; nodes sorted
     * by zone, so that 100,000 nodes in as many zones stay O(n log n) */
    uint32_t nz = 0, *order = malloc(n * sizeof *order);
    for (uint32_t i = 0; order && i < n; i++)
        order[i] = i;
    if (order) {
        zone_snapshot = s;
        qsort(order, n, sizeof *order, by_zone);
    }
    for (uint32_t k = 0; order && k < n; k++) {
        uint32_t i = order[k];
        int same = k && !strcmp(placer_node_zone(s, order[k - 1]), placer_node_zone(s, i));
        zone_of[i] = same ? zone_of[order[k - 1]] : i; /* by index within a zone: the first */
        nz += !same;
    }
    free(order);
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
    char name[64];
    const char *strategy = cli_placement_name(s, name, sizeof name);
    static const char *const states[] = {"active", "joining", "draining", "down"};
    uint32_t dir_bits = 0;
    double one_read = 0;
    int has_dir = placer_snapshot_directory(s, &dir_bits, &one_read) == 0;
    size_t layout = placer_snapshot_layout_bytes(s);
    double vs_plain = (double)layout / (12.0 * placer_token_count(s));
    if (json) {
        json_t *doc = cli_json_doc(), *nodes = json_array(), *zones = json_array();
        cli_json_put(doc, "strategy", json_string(placer_strategy_name(placer_snapshot_strategy(s))));
        cli_compat_json(doc, s);
        if (placer_snapshot_compat(s) != PLACER_COMPAT_NONE)
            cli_json_put(doc, "key_hash", cli_json_str(cli_key_hash_name(s)));
        cli_json_put(doc, "epoch", cli_json_u64(placer_snapshot_epoch(s)));
        cli_json_put(doc, "tokens", json_integer(placer_token_count(s)));
        cli_json_put(doc, "in_transition", json_boolean(placer_snapshot_in_transition(s)));
        cli_json_put(doc, "shares", json_string(sampled ? "sampled" : "exact"));
        if (sampled)
            cli_json_put(doc, "sample_size", json_integer(sampled));
        cli_json_put(doc, "max_over_target", cli_json_num(worst_ratio));
        cli_json_put(doc, "min_over_target", cli_json_num(low_ratio));
        cli_json_put(doc, "worst_node", cli_json_str(placer_node_id(s, worst)));
        cli_json_put(doc, "max_over_mean", cli_json_num(max / mean));
        cli_json_put(doc, "min_over_mean", cli_json_num(min / mean));
        cli_json_put(doc, "cv", cli_json_num(cv));
        if (cli_compat_has_slots(s)) {
            cli_json_put(doc, "masters", json_integer(n - replicas));
            cli_json_put(doc, "replicas", json_integer(replicas));
        }
        for (uint32_t i = 0; i < n; i++) {
            json_t *o = json_object();
            cli_json_put(o, "id", cli_json_str(placer_node_id(s, i)));
            cli_json_put(o, "zone", cli_json_str(placer_node_zone(s, i)));
            if (*placer_node_datacenter(s, i))
                cli_json_put(o, "datacenter", cli_json_str(placer_node_datacenter(s, i)));
            if (placer_node_replication(s, i))
                cli_json_put(o, "replication", json_integer(placer_node_replication(s, i)));
            cli_json_put(o, "weight", cli_json_num(placer_node_weight(s, i)));
            cli_json_put(o, "state", json_string(states[placer_node_state(s, i)]));
            cli_json_put(o, "tokens", json_integer(placer_node_tokens(s, i)));
            if (cli_compat_has_slots(s))
                cli_json_put(o, "role", json_string(replica[i] ? "replica" : "master"));
            cli_json_put(o, "share", cli_json_num(share[i]));
            cli_json_put(o, "target", cli_json_num(target[i]));
            if (moving)
                cli_json_put(o, "next_target", cli_json_num(next_target(s, i, W_next)));
            cli_json_append(nodes, o);
        }
        cli_json_put(doc, "nodes", nodes);
        for (uint32_t z = 0; z < n; z++) {
            if (zone_of[z] != z)
                continue;
            json_t *o = json_object();
            cli_json_put(o, "zone", cli_json_str(placer_node_zone(s, z)));
            cli_json_put(o, "share", cli_json_num(zone_share[z]));
            cli_json_put(o, "nodes", json_integer(zone_nodes[z]));
            cli_json_append(zones, o);
        }
        cli_json_put(doc, "zones", zones);
        if (cli_stats_datacenters(s, share, doc))
            cli_json_put(doc, "datacenters", NULL); /* out of memory: emit fails */
        cli_json_put(doc, "layout", json_string(placer_snapshot_layout_name(s)));
        cli_json_put(doc, "layout_bytes", cli_json_u64(layout));
        cli_json_put(doc, "layout_vs_plain", cli_json_num(vs_plain));
        if (has_dir) {
            cli_json_put(doc, "directory_bits", json_integer(dir_bits));
            cli_json_put(doc, "one_read_share", cli_json_num(one_read));
        }
        rc = cli_json_emit("stats", doc);
    } else {
        cli_print_name(stdout, path);
        printf(": %s%s%s, epoch %llu, %u nodes in %u zone%s, %u tokens%s\n", strategy,
               placer_snapshot_compat(s) ? ", key hash " : "",
               placer_snapshot_compat(s) ? cli_key_hash_name(s) : "",
               (unsigned long long)placer_snapshot_epoch(s), n, nz, nz == 1 ? "" : "s",
               placer_token_count(s), placer_snapshot_in_transition(s) ? ", in transition" : "");
        const char *over = replicas ? "masters" : "placed nodes";
        if (sampled)
            printf("share/target (sampled at %d positions) over %u %s: largest %.4f (", sampled,
                   placed, over, worst_ratio);
        else
            printf("share/target (exact) over %u %s: largest %.4f (", placed, over, worst_ratio);
        cli_print_name(stdout, placer_node_id(s, worst));
        printf("), smallest %.4f; raw shares: max/mean %.4f, min/mean %.4f, coefficient of "
               "variation %.4f\n",
               low_ratio, max / mean, min / mean, cv);
        printf("%-24s %-12s %8s %-9s %9s %9s %9s %8s%s\n", "node", "zone", "weight", "state", "tokens",
               "share", "target", "ratio", moving ? " next_target" : "");
        for (uint32_t k = 0; k < 2 * n; k++) { /* masters (every node), then replicas */
            uint32_t i = k % n;
            if (replica[i] != (k >= n))
                continue;
            if (k == n + first_replica(replica, n))
                printf("replicas (a master's copies: no slot of their own, not in the figures above):\n");
            /* padded by hand: escapes make the printed width differ from strlen */
            cli_print_name(stdout, placer_node_id(s, i));
            printf("%*s ", (int)(24 > strlen(placer_node_id(s, i)) ? 24 - strlen(placer_node_id(s, i)) : 0), "");
            cli_print_name(stdout, placer_node_zone(s, i));
            printf("%*s ", (int)(12 > strlen(placer_node_zone(s, i)) ? 12 - strlen(placer_node_zone(s, i)) : 0), "");
            printf("%8.3f %-9s %9u %8.4f%% %8.4f%% ", placer_node_weight(s, i),
                   states[placer_node_state(s, i)], placer_node_tokens(s, i), 100 * share[i],
                   100 * target[i]);
            if (target[i] > 0)
                printf("%8.4f", share[i] / target[i]);
            else
                printf("%8s", "-");
            if (moving)
                printf(" %10.4f%%", 100 * next_target(s, i, W_next));
            putchar('\n');
        }
        printf("zones:");
        for (uint32_t z = 0; z < n; z++) {
            if (zone_of[z] != z)
                continue;
            double zs = zone_share[z];
            uint32_t members = zone_nodes[z];
            putchar(' ');
            cli_print_name(stdout, *placer_node_zone(s, z) ? placer_node_zone(s, z) : "(none)");
            printf(" %.2f%% (%u node%s)", 100 * zs, members, members == 1 ? "" : "s");
        }
        printf("\n");
        if (cli_stats_datacenters(s, share, NULL))
            printf("datacenters: out of memory\n");
        printf("layout: %s", placer_snapshot_layout_name(s));
        if (has_dir && !strcmp(placer_snapshot_layout_name(s), "buckets"))
            printf(", 2^%u lines, %.1f%% of lines answer alone", dir_bits, 100 * one_read);
        else if (has_dir)
            printf(", 2^%u entries, %.1f%% of hashes answered by one entry", dir_bits,
                   100 * one_read);
        printf("; %zu bytes, %.2fx plain sorted tokens + owners\n", layout, vs_plain);
    }
    free(share);
    free(target);
    free(zone_of);
    free(replica);
    free(zone_share);
    free(zone_nodes);
    placer_snapshot_free(s);
    return rc;
}
