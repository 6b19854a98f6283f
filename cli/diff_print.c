/*
 * diff_print.c -- see diff_print.h. Nodes are matched by id through a
 * sorted index (O(log n) each: snapshots of 100,000 nodes too).
 */
#include "diff_print.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MATRIX_MOST 8 /* nodes a side up to which the full matrix is printed */

/* Nodes of a snapshot sorted by id, to find one by id in O(log n). */
typedef struct id_index {
    const placer_snapshot *s;
    uint32_t *order;
} id_index;

static const placer_snapshot *sorting; /* qsort has no context argument */

static int by_id(const void *x, const void *y)
{
    return strcmp(placer_node_id(sorting, *(const uint32_t *)x),
                  placer_node_id(sorting, *(const uint32_t *)y));
}

static int index_ids(id_index *ix, const placer_snapshot *s)
{
    uint32_t n = placer_node_count(s);
    ix->s = s;
    ix->order = malloc(((size_t)n + 1) * sizeof *ix->order);
    if (!ix->order)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        ix->order[i] = i;
    sorting = s;
    qsort(ix->order, n, sizeof *ix->order, by_id);
    return 0;
}

/* Index of node id in ix's snapshot, or -1 (ids are unique). */
static int find_id(const id_index *ix, const char *id)
{
    size_t lo = 0, hi = placer_node_count(ix->s);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(placer_node_id(ix->s, ix->order[mid]), id);
        if (!c)
            return (int)ix->order[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* The weight of the nodes that own keys now (all but joining ones). */
static double placed_weight(const placer_snapshot *s)
{
    double W = 0;
    for (uint32_t j = 0; j < placer_node_count(s); j++)
        W += placer_node_state(s, j) != PLACER_NODE_JOINING ? placer_node_weight(s, j) : 0;
    return W;
}

static double weight_share(const placer_snapshot *s, double W, uint32_t i)
{
    return placer_node_state(s, i) != PLACER_NODE_JOINING ? placer_node_weight(s, i) / W : 0;
}

double cli_diff_ideal(const placer_snapshot *a, const placer_snapshot *b)
{
    id_index ia;
    if (index_ids(&ia, a))
        return -1;
    double ideal = 0, Wa = placed_weight(a), Wb = placed_weight(b);
    for (uint32_t j = 0; j < placer_node_count(b); j++) {
        int i = find_id(&ia, placer_node_id(b, j));
        double gain = weight_share(b, Wb, j) - (i >= 0 ? weight_share(a, Wa, (uint32_t)i) : 0);
        ideal += gain > 0 ? gain : 0;
    }
    free(ia.order);
    return ideal;
}

static const char *node_or_dash(const placer_snapshot *s, uint32_t node)
{
    return node < placer_node_count(s) ? placer_node_id(s, node) : "-";
}

static const char *method_name(const cli_diff_out *o)
{
    switch (o->key_file ? 0 : o->r->method) {
    case PLACER_DIFF_RANGES: return "ranges";
    case PLACER_DIFF_HASHES: return "hashes";
    case PLACER_DIFF_SAMPLED: return "sampled";
    default: return "key_file";
    }
}

static void print_padded(const char *id, int width)
{
    cli_print_name(stdout, id);
    size_t n = strlen(id);
    printf("%*s", (int)(n < (size_t)width ? (size_t)width - n : 0), "");
}

static void headline(const cli_diff_out *o, double ideal)
{
    const placer_diff_report *r = o->r;
    if (o->key_file) {
        printf("moved: %.4f%% of the %llu keys of ", 100 * r->moved, (unsigned long long)r->keys);
        cli_print_name(stdout, o->key_file);
        printf(" (each looked up in both)");
    } else if (r->method == PLACER_DIFF_RANGES) {
        printf("moved: %.4f%% of keys (exact ranges)", 100 * r->moved);
    } else if (r->method == PLACER_DIFF_HASHES) {
        printf("moved: %.4f%% of keys (exact: all %llu values of the key hash counted)",
               100 * r->moved, (unsigned long long)r->hash_values);
    } else {
        printf("moved: %.4f%% of keys (sampled: %llu generated keys, 95%% interval %.4f%% .. "
               "%.4f%%)",
               100 * r->moved, (unsigned long long)r->keys, 100 * r->low95, 100 * r->high95);
    }
    printf("; ideal %.4f%%", 100 * ideal);
    if (ideal > 0)
        printf(", %.2fx the ideal", r->moved / ideal);
    printf("\n");
    if (r->unplaced)
        printf("%llu keys without an owner in one snapshot were left out\n",
               (unsigned long long)r->unplaced);
    if (o->bd)
        printf("expected from the buckets: %.4f%% of keys (%u -> %u buckets in use: %u removed, "
               "%u added, %u given to another node)\n",
               100 * o->bd->expected, o->bd->old_buckets, o->bd->new_buckets, o->bd->removed,
               o->bd->added, o->bd->reassigned);
}

/* The share of keys from a's node i to b's node j, from the pairs. */
static double pair_share(const placer_diff_report *r, uint32_t i, uint32_t j)
{
    for (size_t k = 0; k < r->npairs; k++)
        if (r->pairs[k].from == i && r->pairs[k].to == j)
            return r->pairs[k].share;
    return 0;
}

static void matrix(const cli_diff_out *o)
{
    uint32_t na = placer_node_count(o->a), nb = placer_node_count(o->b);
    printf("from \\ to (share of keys)\n%-16s", "");
    for (uint32_t j = 0; j < nb; j++) { /* right-aligned over the figures */
        size_t len = strlen(placer_node_id(o->b, j));
        printf(" %*s", (int)(len < 10 ? 10 - len : 0), "");
        cli_print_name(stdout, placer_node_id(o->b, j));
    }
    printf("\n");
    for (uint32_t i = 0; i < na; i++) {
        print_padded(placer_node_id(o->a, i), 16);
        for (uint32_t j = 0; j < nb; j++) {
            if (!strcmp(placer_node_id(o->a, i), placer_node_id(o->b, j)))
                printf(" %10s", "-");
            else
                printf(" %9.4f%%", 100 * pair_share(o->r, i, j));
        }
        printf("\n");
    }
}

static void text_pairs(const cli_diff_out *o)
{
    const placer_diff_report *r = o->r;
    if (!r->npairs)
        return;
    printf("from -> to, largest first:\n");
    for (size_t k = 0; k < r->npairs && k < o->show_pairs; k++) {
        printf("  ");
        cli_print_name(stdout, node_or_dash(o->a, r->pairs[k].from));
        printf(" -> ");
        cli_print_name(stdout, node_or_dash(o->b, r->pairs[k].to));
        printf(" %.4f%%\n", 100 * r->pairs[k].share);
    }
    if (r->npairs > o->show_pairs)
        printf("  (%zu pairs in all; --pairs N lists more)\n", r->npairs);
    if (placer_node_count(o->a) <= MATRIX_MOST && placer_node_count(o->b) <= MATRIX_MOST)
        matrix(o);
}

static json_t *json_pairs(const cli_diff_out *o)
{
    json_t *ps = json_array();
    for (size_t k = 0; k < o->r->npairs && k < o->show_pairs; k++) {
        json_t *p = json_object();
        cli_json_put(p, "from", cli_json_str(node_or_dash(o->a, o->r->pairs[k].from)));
        cli_json_put(p, "to", cli_json_str(node_or_dash(o->b, o->r->pairs[k].to)));
        cli_json_put(p, "share", cli_json_num(o->r->pairs[k].share));
        cli_json_append(ps, p);
    }
    return ps;
}

static void json_head(const cli_diff_out *o, double ideal, json_t *doc)
{
    const placer_diff_report *r = o->r;
    cli_json_put(doc, "moved", cli_json_num(r->moved));
    cli_json_put(doc, "ideal", cli_json_num(ideal));
    cli_json_put(doc, "exact", json_boolean(r->method == PLACER_DIFF_RANGES ||
                                            r->method == PLACER_DIFF_HASHES));
    cli_json_put(doc, "method", json_string(method_name(o)));
    if (r->method == PLACER_DIFF_HASHES)
        cli_json_put(doc, "hash_values", cli_json_u64(r->hash_values));
    if (r->method == PLACER_DIFF_SAMPLED || o->key_file) {
        cli_json_put(doc, "sample_size", cli_json_u64(r->keys));
        cli_json_put(doc, "unplaced", cli_json_u64(r->unplaced));
    }
    if (o->key_file)
        cli_json_put(doc, "key_file", cli_json_str(o->key_file));
    if (r->method == PLACER_DIFF_SAMPLED) {
        json_t *iv = json_array();
        cli_json_append(iv, cli_json_num(r->low95));
        cli_json_append(iv, cli_json_num(r->high95));
        cli_json_put(doc, "interval95", iv);
    }
    cli_json_put(doc, "ranges", cli_json_u64(o->nranges));
    if (o->bd) {
        json_t *b = json_object();
        cli_json_put(b, "expected", cli_json_num(o->bd->expected));
        cli_json_put(b, "old", json_integer(o->bd->old_buckets));
        cli_json_put(b, "new", json_integer(o->bd->new_buckets));
        cli_json_put(b, "removed", json_integer(o->bd->removed));
        cli_json_put(b, "added", json_integer(o->bd->added));
        cli_json_put(b, "reassigned", json_integer(o->bd->reassigned));
        cli_json_put(doc, "buckets", b);
    }
    cli_json_put(doc, "pair_count", cli_json_u64(r->npairs));
    cli_json_put(doc, "pairs", json_pairs(o));
}

static void node_row(const char *id, double give, double get, const char *const *names,
                     json_t *nodes)
{
    if (nodes) {
        json_t *n = json_object();
        cli_json_put(n, "id", cli_json_str(id));
        cli_json_put(n, names[0], cli_json_num(give));
        cli_json_put(n, names[1], cli_json_num(get));
        cli_json_append(nodes, n);
    } else {
        print_padded(id, 24);
        printf(" %9.4f%% %9.4f%%\n", 100 * give, 100 * get);
    }
}

/* Every node: a's (with what b's node of that id receives), then b's
 * others; names: the two columns. */
static int node_rows(const placer_snapshot *a, const placer_snapshot *b,
                     const placer_diff_report *r, const char *const *names, json_t *nodes)
{
    id_index ia, ib;
    if (index_ids(&ia, a))
        return -1;
    if (index_ids(&ib, b)) {
        free(ia.order);
        return -1;
    }
    if (!nodes)
        printf("%-24s %10s %10s\n", "node", names[0], names[1]);
    for (uint32_t i = 0; i < placer_node_count(a); i++) {
        int j = find_id(&ib, placer_node_id(a, i));
        node_row(placer_node_id(a, i), r->gives[i], j >= 0 ? r->receives[j] : 0, names, nodes);
    }
    for (uint32_t j = 0; j < placer_node_count(b); j++)
        if (find_id(&ia, placer_node_id(b, j)) < 0)
            node_row(placer_node_id(b, j), 0, r->receives[j], names, nodes);
    free(ia.order);
    free(ib.order);
    return 0;
}

static void ranges(const cli_diff_out *o, json_t *first)
{
    for (size_t r = 0; r < o->nranges && r < o->show_ranges; r++) {
        const char *from = node_or_dash(o->a, o->m[r].from), *to = node_or_dash(o->b, o->m[r].to);
        if (first) {
            /* hash positions are 64-bit: decimal strings, exact everywhere */
            char lo[24], hi[24];
            snprintf(lo, sizeof lo, "%llu", (unsigned long long)o->m[r].lo);
            snprintf(hi, sizeof hi, "%llu", (unsigned long long)o->m[r].hi);
            json_t *x = json_object();
            cli_json_put(x, "lo", json_string(lo));
            cli_json_put(x, "hi", json_string(hi));
            cli_json_put(x, "from", cli_json_str(from));
            cli_json_put(x, "to", cli_json_str(to));
            cli_json_append(first, x);
        } else {
            printf("(%016llx, %016llx] ", (unsigned long long)o->m[r].lo,
                   (unsigned long long)o->m[r].hi);
            cli_print_name(stdout, from);
            printf(" -> ");
            cli_print_name(stdout, to);
            printf("\n");
        }
    }
    if (!first && o->m)
        printf("%zu moved range%s%s\n", o->nranges, o->nranges == 1 ? "" : "s",
               o->nranges > o->show_ranges ? " (--ranges N lists them)" : "");
}

int cli_diff_print(const cli_diff_out *o, json_t *doc)
{
    double ideal = cli_diff_ideal(o->a, o->b);
    if (ideal < 0)
        return -1;
    json_t *nodes = doc ? json_array() : NULL, *first = doc ? json_array() : NULL;
    if (doc) {
        json_head(o, ideal, doc);
    } else {
        headline(o, ideal);
        text_pairs(o);
    }
    static const char *const names[2] = {"gives", "receives"};
    int err = node_rows(o->a, o->b, o->r, names, nodes);
    ranges(o, first);
    if (doc) {
        cli_json_put(doc, "nodes", nodes);
        cli_json_put(doc, "first_ranges", first);
    }
    return err;
}

int cli_diff_print_replicas(const placer_snapshot *a, const placer_snapshot *b, uint32_t R,
                            const placer_diff_report *r, json_t *doc)
{
    static const char *const names[2] = {"loses", "receives"};
    json_t *o = doc ? json_object() : NULL, *nodes = doc ? json_array() : NULL;
    if (o) {
        json_t *iv = json_array();
        cli_json_put(o, "size", json_integer(R));
        cli_json_put(o, "changed", cli_json_num(r->moved));
        cli_json_put(o, "sample_size", cli_json_u64(r->keys));
        cli_json_put(o, "unplaced", cli_json_u64(r->unplaced));
        cli_json_append(iv, cli_json_num(r->low95));
        cli_json_append(iv, cli_json_num(r->high95));
        cli_json_put(o, "interval95", iv);
    } else {
        printf("replica sets of %u: %.4f%% of keys change members (sampled: %llu generated keys, "
               "95%% interval %.4f%% .. %.4f%%); per node, the share of keys whose set drops it "
               "and whose set gains it (a copy to receive)\n",
               R, 100 * r->moved, (unsigned long long)r->keys, 100 * r->low95, 100 * r->high95);
    }
    int err = node_rows(a, b, r, names, nodes);
    if (o) {
        cli_json_put(o, "nodes", nodes);
        cli_json_put(doc, "replicas", o);
    }
    return err;
}
