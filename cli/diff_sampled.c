/*
 * diff_sampled.c -- see diff_sampled.h. Generated keys have a stated
 * shape, "key:" and 16 hex digits of a fixed pseudo-random sequence
 * (splitmix64 from 0), so two runs sample the same keys. The interval is
 * Wilson's score interval at 95% (z = 1.96), which stays inside [0, 1]
 * and is honest for a fraction near 0 or 1 and small samples.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_sampled.h"

#define MAX_SAMPLE 100000000ull

typedef struct tally {
    uint64_t keys, moved, unplaced;
    uint64_t *gives, *receives; /* by a's and b's node index */
} tally;

static void one_key(const placer_snapshot *a, const placer_snapshot *b, const char *k, size_t n,
                    tally *t)
{
    int oa = placer_lookup(a, k, n), ob = placer_lookup(b, k, n);
    if (oa < 0 || ob < 0) {
        t->unplaced++; /* an imported map's missing owner, in either */
        return;
    }
    t->keys++;
    if (strcmp(placer_node_id(a, (uint32_t)oa), placer_node_id(b, (uint32_t)ob))) {
        t->moved++;
        t->gives[oa]++;
        t->receives[ob]++;
    }
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int sample(const placer_snapshot *a, const placer_snapshot *b, const cli_diff_sample *o,
                  tally *t)
{
    if (!o->key_file) {
        uint64_t s = 0;
        for (uint64_t i = 0; i < o->generated; i++) {
            char k[32];
            int n = snprintf(k, sizeof k, "key:%016llx", (unsigned long long)splitmix64(&s));
            one_key(a, b, k, (size_t)n, t);
        }
        return CLI_OK;
    }
    char *text;
    size_t len;
    int rc = cli_read_file("diff", o->key_file, &text, &len);
    if (rc)
        return rc;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len;
        one_key(a, b, text + at, end - at, t);
        at = end + 1;
    }
    free(text);
    return CLI_OK;
}

/* Wilson's 95% score interval of moved/keys. */
static void interval95(uint64_t moved, uint64_t keys, double *lo, double *hi)
{
    const double z = 1.96;
    if (!keys) {
        *lo = 0, *hi = 1;
        return;
    }
    double n = (double)keys, p = (double)moved / n, z2 = z * z;
    double mid = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    *lo = mid - half < 0 ? 0 : mid - half;
    *hi = mid + half > 1 ? 1 : mid + half;
}

static void row(const char *id, double give, double get, int json, json_t *nodes)
{
    if (json) {
        json_t *r = json_object();
        cli_json_put(r, "id", cli_json_str(id));
        cli_json_put(r, "gives", cli_json_num(give));
        cli_json_put(r, "receives", cli_json_num(get));
        cli_json_append(nodes, r);
    } else if (give > 0 || get > 0) {
        cli_print_name(stdout, id);
        size_t n = strlen(id);
        printf("%*s %9.4f%% %9.4f%%\n", (int)(n < 24 ? 24 - n : 0), "", 100 * give, 100 * get);
    }
}

int cli_diff_sampled(const placer_snapshot *a, const placer_snapshot *b, const cli_diff_sample *o)
{
    uint32_t na = placer_node_count(a), nb = placer_node_count(b);
    tally t = {0, 0, 0, calloc(na + 1, sizeof(uint64_t)), calloc(nb + 1, sizeof(uint64_t))};
    json_t *b_ids = json_object(); /* b's id -> index, to pair nodes by id */
    int rc = t.gives && t.receives && b_ids ? CLI_OK : CLI_FAILURE;
    for (uint32_t j = 0; !rc && j < nb; j++)
        if (json_object_set_new(b_ids, placer_node_id(b, j), json_integer(j)))
            rc = CLI_FAILURE;
    if (rc)
        fprintf(stderr, "placer diff: %s\n", placer_strerror(PLACER_ENOMEM));
    if (!rc)
        rc = sample(a, b, o, &t);
    if (!rc && !t.keys) {
        fprintf(stderr, "placer diff: no keys to sample%s\n",
                t.unplaced ? " (none has an owner in both snapshots)" : "");
        rc = CLI_BADINPUT;
    }
    if (rc) {
        free(t.gives), free(t.receives);
        json_decref(b_ids);
        return rc;
    }
    double n = (double)t.keys, moved = (double)t.moved / n, lo, hi;
    interval95(t.moved, t.keys, &lo, &hi);
    char shape[300];
    if (o->key_file)
        snprintf(shape, sizeof shape, "key file");
    else
        snprintf(shape, sizeof shape, "generated \"key:\" + 16 hex digits");
    json_t *doc = NULL, *s = NULL, *nodes = NULL;
    if (o->json) {
        doc = cli_json_doc();
        s = json_object();
        nodes = json_array();
        cli_json_put(doc, "moved", cli_json_num(moved));
        cli_json_put(doc, "exact", json_false());
        cli_json_put(s, "keys", cli_json_u64(t.keys));
        cli_json_put(s, "moved", cli_json_num(moved));
        cli_json_put(s, "moved_keys", cli_json_u64(t.moved));
        json_t *iv = json_array();
        cli_json_append(iv, cli_json_num(lo));
        cli_json_append(iv, cli_json_num(hi));
        cli_json_put(s, "interval95", iv);
        cli_json_put(s, "unplaced", cli_json_u64(t.unplaced));
        cli_json_put(s, "source", cli_json_str(o->key_file ? "key_file" : "generated"));
    } else {
        printf("moved: %.4f%% of %llu sampled keys (%s%s%s; 95%% interval %.4f%% .. %.4f%%)\n",
               100 * moved, (unsigned long long)t.keys, shape, o->key_file ? " " : "",
               o->key_file ? o->key_file : "", 100 * lo, 100 * hi);
        if (t.unplaced)
            printf("%llu keys without an owner in one snapshot were left out\n",
                   (unsigned long long)t.unplaced);
        printf("%-24s %10s %10s\n", "node", "gives", "receives");
    }
    /* a's nodes (with what b's node of that id receives), then b's others */
    for (uint32_t i = 0; i < na; i++) {
        const json_t *j = json_object_get(b_ids, placer_node_id(a, i));
        double get = j ? (double)t.receives[json_integer_value(j)] / n : 0;
        row(placer_node_id(a, i), (double)t.gives[i] / n, get, o->json, nodes);
        if (j)
            json_object_set_new(b_ids, placer_node_id(a, i), json_integer(-1));
    }
    for (uint32_t j = 0; j < nb; j++)
        if (json_integer_value(json_object_get(b_ids, placer_node_id(b, j))) >= 0)
            row(placer_node_id(b, j), 0, (double)t.receives[j] / n, o->json, nodes);
    if (o->json) {
        cli_json_put(s, "nodes", nodes);
        cli_json_put(doc, "sampled", s);
        rc = cli_json_emit("diff", doc);
    }
    free(t.gives);
    free(t.receives);
    json_decref(b_ids);
    return rc;
}
