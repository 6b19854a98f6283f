/* stats_datacenters.c -- `placer stats`' datacenters: for a snapshot whose
 * nodes name one (placer_node_datacenter), each datacenter's share of the
 * keys, its nodes and racks, and its NetworkTopologyStrategy factor
 * (placer_node_replication), as a JSON array or one text line. Nodes are
 * sorted by datacenter and zone, so many datacenters stay O(n log n). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const placer_snapshot *dc_snapshot; /* qsort has no context argument */

static int by_dc_zone(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int c = strcmp(placer_node_datacenter(dc_snapshot, a), placer_node_datacenter(dc_snapshot, b));
    if (!c)
        c = strcmp(placer_node_zone(dc_snapshot, a), placer_node_zone(dc_snapshot, b));
    return c ? c : (a > b) - (a < b);
}

int cli_stats_datacenters(const placer_snapshot *s, const double *share, json_t *doc)
{
    uint32_t n = placer_node_count(s), named = 0;
    for (uint32_t i = 0; i < n; i++)
        named |= *placer_node_datacenter(s, i) != '\0';
    if (!named)
        return 0;
    uint32_t *order = malloc((size_t)n * sizeof *order);
    json_t *list = doc ? json_array() : NULL;
    if (!order || (doc && !list)) {
        free(order);
        json_decref(list);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    dc_snapshot = s;
    qsort(order, n, sizeof *order, by_dc_zone);
    if (!doc)
        printf("datacenters:");
    for (uint32_t k = 0; k < n;) {
        const char *dc = placer_node_datacenter(s, order[k]);
        uint32_t nodes = 0, racks = 0, rf = placer_node_replication(s, order[k]);
        double sum = 0;
        for (; k < n && !strcmp(placer_node_datacenter(s, order[k]), dc); k++, nodes++) {
            racks += !nodes || strcmp(placer_node_zone(s, order[k]), placer_node_zone(s, order[k - 1]));
            sum += share[order[k]];
        }
        if (doc) {
            json_t *o = json_object();
            cli_json_put(o, "datacenter", cli_json_str(dc));
            cli_json_put(o, "share", cli_json_num(sum));
            cli_json_put(o, "nodes", json_integer(nodes));
            cli_json_put(o, "racks", json_integer(racks));
            cli_json_put(o, "replication", json_integer(rf));
            cli_json_append(list, o);
        } else {
            putchar(' ');
            cli_print_name(stdout, *dc ? dc : "(none)");
            printf(" %.2f%% (%u node%s, %u rack%s", 100 * sum, nodes, nodes == 1 ? "" : "s", racks,
                   racks == 1 ? "" : "s");
            if (rf)
                printf(", replication factor %u", rf);
            putchar(')');
        }
    }
    if (doc)
        cli_json_put(doc, "datacenters", list);
    else
        putchar('\n');
    free(order);
    return 0;
}
