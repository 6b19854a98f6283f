/*
 * simulate_compat.c -- see simulate_compat.h. Each placement is the
 * membership document built as `placer build` builds it; the join and the
 * removal are the same document with one node more (id
 * "simulated-join", the mean weight rounded, a documentation address) or
 * the first node fewer, so they are the placements the program would have
 * after that configuration change.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "simulate_compat.h"

int cli_sim_is_compat(const char *text, size_t len)
{
    json_t *doc = json_loadb(text, len, 0, NULL);
    int yes = json_object_get(doc, "compat") != NULL;
    json_decref(doc);
    return yes;
}

static int build_doc(const json_t *doc, const char *file, placer_snapshot **out)
{
    char *text = json_dumps(doc, 0);
    if (!text)
        return PLACER_ENOMEM;
    placer_builder *b = NULL;
    uint64_t epoch = 0;
    char why[512];
    int err = placer_membership_parse(text, strlen(text), file, &b, &epoch, why, sizeof why);
    free(text);
    if (err < 0) {
        if (err == PLACER_EFORMAT)
            fprintf(stderr, "placer simulate: %s\n", why);
        return err;
    }
    err = placer_builder_build(b, epoch, out);
    if (err)
        fprintf(stderr, "placer simulate: %s: %s\n", file, placer_builder_error(b));
    placer_builder_free(b);
    return err;
}

/* Each key's owner in s, by id in base's numbering (-1: none there). */
static int owners(const placer_snapshot *s, const placer_snapshot *base, const plc_keys *k,
                  int32_t *out)
{
    uint32_t ns = placer_node_count(s), nb = placer_node_count(base);
    int32_t *map = malloc(((size_t)ns + 1) * sizeof *map);
    if (!map)
        return PLACER_ENOMEM;
    for (uint32_t i = 0; i < ns; i++) {
        map[i] = -1;
        for (uint32_t j = 0; j < nb && map[i] < 0; j++)
            if (!strcmp(placer_node_id(s, i), placer_node_id(base, j)))
                map[i] = (int32_t)j;
    }
    for (uint64_t i = 0; i < k->n; i++) {
        int o = placer_lookup(s, k->bytes + k->offsets[i], (size_t)(k->offsets[i + 1] - k->offsets[i]));
        out[i] = o < 0 ? -2 : map[o];
    }
    free(map);
    return 0;
}

typedef struct load {
    double max_mean, min_mean, cv;
} load;

static load load_of(const double *sum, const placer_snapshot *s)
{
    uint32_t n = placer_node_count(s);
    double total = 0, W = 0, max = 0, min = INFINITY, s1 = 0, s2 = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += sum[i];
        W += placer_node_weight(s, i);
    }
    for (uint32_t i = 0; i < n; i++) {
        double r = total > 0 ? (sum[i] / total) / (placer_node_weight(s, i) / W) : 0;
        max = fmax(max, r);
        min = fmin(min, r);
        s1 += r;
        s2 += r * r;
    }
    double mean = s1 / n;
    return (load){max / mean, min / mean, sqrt(fmax(0, s2 / n - mean * mean)) / mean};
}

static json_t *load_json(load l)
{
    json_t *o = json_object();
    cli_json_put(o, "max_mean", cli_json_num(l.max_mean));
    cli_json_put(o, "min_mean", cli_json_num(l.min_mean));
    cli_json_put(o, "cv", cli_json_num(l.cv));
    return o;
}

/* The moved fraction from before[] to the placement of doc (-1: n/a). */
static int change(const json_t *doc, const char *file, const placer_snapshot *base,
                  const plc_keys *k, const int32_t *before, int32_t *after, double *moved)
{
    placer_snapshot *s = NULL;
    int err = build_doc(doc, file, &s);
    if (!err)
        err = owners(s, base, k, after);
    placer_snapshot_free(s);
    if (err)
        return err;
    uint64_t m = 0;
    for (uint64_t i = 0; i < k->n; i++)
        m += before[i] != after[i];
    *moved = (double)m / (double)k->n;
    return 0;
}

int cli_simulate_compat(const char *text, size_t len, const char *file, const plc_workload *work,
                        int json)
{
    json_t *doc = json_loadb(text, len, 0, NULL);
    placer_snapshot *s0 = NULL;
    plc_keys k = {0};
    int32_t *before = NULL, *after = NULL;
    double *acc = NULL;
    int err = doc ? build_doc(doc, file, &s0) : PLACER_EFORMAT;
    if (!err)
        err = plc_workload_generate(work, &k);
    uint32_t N = s0 ? placer_node_count(s0) : 0;
    if (!err) {
        before = malloc(k.n * sizeof *before);
        after = malloc(k.n * sizeof *after);
        acc = calloc(3 * ((size_t)N + 1), sizeof *acc);
        err = before && after && acc ? owners(s0, s0, &k, before) : PLACER_ENOMEM;
    }
    double join = -1, removal = -1, W = 0;
    const json_t *nodes = json_object_get(doc, "nodes");
    /* Redis' "slots" and Kafka's partition rows: a node more or fewer has no place in the map */
    int redis_slots = json_object_get(doc, "slots") || json_is_array(json_object_get(doc, "partitions"));
    for (uint32_t i = 0; i < N; i++)
        W += placer_node_weight(s0, i);
    if (!err && !redis_slots) {
        json_t *j = json_deep_copy(doc);
        json_t *node = json_pack("{s:s, s:s}", "id", "simulated-join", "address",
                                 "192.0.2.250:11211");
        if (!j || !node) {
            json_decref(node);
            err = PLACER_ENOMEM;
        } else {
            if (round(W / N) > 1) /* weight 1 is the default, and all Redis and Kafka take */
                json_object_set_new(node, "weight", json_integer((json_int_t)round(W / N)));
            json_array_append_new(json_object_get(j, "nodes"), node);
            err = change(j, file, s0, &k, before, after, &join);
        }
        json_decref(j);
    }
    if (!err && !redis_slots && json_array_size(nodes) > 1) {
        json_t *r = json_deep_copy(doc);
        err = r ? 0 : PLACER_ENOMEM;
        if (!err) {
            json_array_remove(json_object_get(r, "nodes"), 0);
            err = change(r, file, s0, &k, before, after, &removal);
        }
        json_decref(r);
    }
    int rc = CLI_OK;
    if (err) {
        if (err != PLACER_EFORMAT && err != PLACER_EINVAL)
            fprintf(stderr, "placer simulate: %s\n", placer_strerror(err));
        rc = err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    } else {
        double *keys = acc, *bytes = acc + N + 1, *qps = bytes + N + 1;
        for (uint64_t i = 0; i < k.n; i++)
            if (before[i] >= 0) {
                keys[before[i]] += 1;
                bytes[before[i]] += k.size[i];
                qps[before[i]] += k.qps[i];
            }
        load lk = load_of(keys, s0), lb = load_of(bytes, s0), lq = load_of(qps, s0);
        char name[64];
        double join_ideal = 1.0 / (N + 1), removal_ideal = N ? placer_node_weight(s0, 0) / W : 0;
        if (json) {
            json_t *o = cli_json_doc();
            cli_json_put(o, "compat", cli_json_str(placer_compat_name(placer_snapshot_compat(s0))));
            const char *dist = placer_snapshot_compat_distribution(s0);
            cli_json_put(o, "distribution", dist ? cli_json_str(dist) : json_null());
            cli_json_put(o, "key_hash", cli_json_str(placer_snapshot_compat_key_hash(s0)));
            cli_json_put(o, "keys", cli_json_u64(k.n));
            cli_json_put(o, "nodes", json_integer(N));
            cli_json_put(o, "load", json_pack("{s:o, s:o, s:o}", "keys", load_json(lk), "bytes",
                                              load_json(lb), "qps", load_json(lq)));
            cli_json_put(o, "join", join < 0 ? json_null()
                                             : json_pack("{s:o, s:o}", "moved", cli_json_num(join),
                                                         "ideal", cli_json_num(join_ideal)));
            cli_json_put(o, "remove_first", removal < 0 ? json_null()
                                 : json_pack("{s:o, s:o}", "moved", cli_json_num(removal), "ideal",
                                             cli_json_num(removal_ideal)));
            rc = cli_json_emit("simulate", o);
        } else {
            printf("%s (the program's own placement), %u nodes, %llu keys\n",
                   cli_placement_name(s0, name, sizeof name), N, (unsigned long long)k.n);
            printf("load max/mean: keys %.4f, bytes %.4f, qps %.4f (cv of keys %.4f)\n",
                   lk.max_mean, lb.max_mean, lq.max_mean, lk.cv);
            if (join >= 0)
                printf("join of one node: %.4f%% of keys move (ideal %.4f%%)\n", 100 * join,
                       100 * join_ideal);
            if (removal >= 0)
                printf("removal of %s: %.4f%% of keys move (ideal %.4f%%)\n",
                       placer_node_id(s0, 0), 100 * removal, 100 * removal_ideal);
            if (redis_slots)
                printf("join and removal: not simulated (the %s map says where every one "
                       "goes)\n", json_object_get(doc, "slots") ? "\"slots\"" : "\"partitions\"");
        }
    }
    free(before);
    free(after);
    free(acc);
    plc_keys_free(&k);
    placer_snapshot_free(s0);
    json_decref(doc);
    return rc;
}
