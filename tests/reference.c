/* reference.c -- see reference.h. */
#include "reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

uint32_t ref_crc32c(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
    }
    return ~crc;
}

uint32_t ref_crc32(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
    }
    return ~crc;
}

/* -1, 0, 1 as (token, id, vnode) of a is below, equal to, above b's. */
static uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

static void sipround(uint64_t v[4])
{
    v[0] += v[1], v[1] = rotl(v[1], 13), v[1] ^= v[0], v[0] = rotl(v[0], 32);
    v[2] += v[3], v[3] = rotl(v[3], 16), v[3] ^= v[2];
    v[0] += v[3], v[3] = rotl(v[3], 21), v[3] ^= v[0];
    v[2] += v[1], v[1] = rotl(v[1], 17), v[1] ^= v[2], v[2] = rotl(v[2], 32);
}

static uint64_t le_word(const unsigned char *p, size_t n)
{
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++)
        w |= (uint64_t)p[i] << (8 * i);
    return w;
}

uint64_t ref_siphash(int c_rounds, int d_rounds, const unsigned char key[16], const void *msg,
                     size_t len)
{
    const unsigned char *m = msg;
    uint64_t k0 = le_word(key, 8), k1 = le_word(key + 8, 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575u, k1 ^ 0x646f72616e646f6du,
                     k0 ^ 0x6c7967656e657261u, k1 ^ 0x7465646279746573u};
    /* ceil((len + 1) / 8) words; the last holds len mod 256 in its top byte. */
    for (size_t at = 0; at <= len; at += 8) {
        size_t n = len - at < 8 ? len - at : 8;
        uint64_t w = le_word(m + at, n);
        if (n < 8)
            w |= (uint64_t)(len & 0xff) << 56;
        v[3] ^= w;
        for (int i = 0; i < c_rounds; i++)
            sipround(v);
        v[0] ^= w;
        if (n < 8)
            break;
    }
    v[2] ^= 0xff;
    for (int i = 0; i < d_rounds; i++)
        sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The raw CRC-32C register update over one word's 8 bytes, bit by bit. */
static uint32_t crc_word_bits(uint32_t c, uint64_t w)
{
    for (int byte = 0; byte < 8; byte++) {
        c ^= (uint32_t)(w >> (8 * byte)) & 0xff;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return c;
}

/* high ^ low of x * y, schoolbook on 32-bit halves. */
static uint64_t mul_fold(uint64_t x, uint64_t y)
{
    uint64_t xl = x & 0xffffffffu, xh = x >> 32, yl = y & 0xffffffffu, yh = y >> 32;
    uint64_t ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return hi ^ lo;
}

uint64_t ref_hash64_v2(uint64_t seed, const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t s = rotl(seed, 29) ^ 0xA0761D6478BD642Fu;
    uint32_t a = (uint32_t)seed ^ (uint32_t)(seed >> 32);
    uint64_t b = seed ^ 0x9E3779B97F4A7C15u ^ len;
    size_t words = (len + 7) / 8;
    for (size_t i = 0; i < words; i += 2) {
        uint64_t w0 = le_word(p + 8 * i, len - 8 * i < 8 ? len - 8 * i : 8);
        uint64_t w1 = i + 1 < words ? le_word(p + 8 * i + 8, len - 8 * i - 8 < 8 ? len - 8 * i - 8 : 8) : 0;
        a = crc_word_bits(crc_word_bits(a, w0), w1);
        uint64_t x = w0 ^ b, y = w1 ^ s;
        b = mul_fold(x, y) + x;
    }
    return mul_fold(b, a ^ s ^ 0xD6E8FEB86659FD93u);
}

static int order(const ref_token *a, const ref_token *b, const char *const *ids)
{
    if (a->token != b->token)
        return a->token < b->token ? -1 : 1;
    int c = strcmp(ids[a->node], ids[b->node]);
    if (c)
        return c < 0 ? -1 : 1;
    if (a->vnode != b->vnode)
        return a->vnode < b->vnode ? -1 : 1;
    return 0;
}

uint32_t ref_ring_owner(const ref_token *t, size_t n, const char *const *ids, uint64_t h)
{
    const ref_token *best = NULL, *smallest = &t[0];
    for (size_t i = 0; i < n; i++) {
        if (order(&t[i], smallest, ids) < 0)
            smallest = &t[i];
        if (t[i].token >= h && (!best || order(&t[i], best, ids) < 0))
            best = &t[i];
    }
    return best ? best->node : smallest->node;
}

uint32_t ref_lower_bound_wrap(const uint64_t *tokens, uint32_t n, uint64_t h)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tokens[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == n ? 0 : lo;
}

int ref_in_moves(const placer_move *m, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].lo < m[i].hi ? (h > m[i].lo && h <= m[i].hi) : (h > m[i].lo || h <= m[i].hi))
            return 1;
    return 0;
}

int32_t ref_jump_hash(uint64_t key, int32_t buckets)
{
    int64_t b = -1, j = 0;
    while (j < buckets) {
        b = j;
        key = key * 2862933555777941757ULL + 1;
        j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
    }
    return (int32_t)b;
}

static uint64_t range_start(uint32_t i, uint32_t n)
{
    return (uint64_t)((((unsigned __int128)i << 64) + n - 1) / n);
}

uint32_t ref_range_slot(uint64_t h, uint32_t n)
{
    uint32_t lo = 0, hi = n; /* the last i with start(i) <= h */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (range_start(mid, n) <= h)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint32_t ref_rendezvous_owner(const placer_snapshot *s, uint64_t h)
{
    uint32_t best = UINT32_MAX;
    double best_score = -1;
    for (uint32_t i = 0; i < placer_node_count(s); i++) {
        if (placer_node_state(s, i) == PLACER_NODE_JOINING)
            continue;
        const char *id = placer_node_id(s, i);
        uint64_t x = h ^ placer_snapshot_hash(s, id, strlen(id)); /* the snapshot's key hash of the id */
        x ^= x >> 33;
        x *= UINT64_C(0xff51afd7ed558ccd);
        x ^= x >> 33;
        x *= UINT64_C(0xc4ceb9fe1a85ec53);
        x ^= x >> 33;
        double u = (double)((x >> 11) | 1) / 9007199254740992.0;
        double score = -placer_node_weight(s, i) / log(u);
        if (score > best_score) {
            best_score = score;
            best = i;
        }
    }
    return best;
}

uint32_t ref_owner(const placer_snapshot *s, uint64_t h)
{
    uint64_t tok;
    uint32_t o, n = placer_token_count(s);
    switch (placer_snapshot_strategy(s)) {
    case PLACER_JUMP:
        placer_token_at(s, (uint32_t)ref_jump_hash(h, (int32_t)n), &tok, &o);
        return o;
    case PLACER_PARTITIONS:
    case PLACER_MAGLEV:
        /* Redis (a compat key hash): positions are slots, not ranges */
        placer_token_at(s,
                        placer_snapshot_key_hash(s) >= PLACER_HASH_COMPAT_FIRST
                            ? (uint32_t)(h % n) : ref_range_slot(h, n),
                        &tok, &o);
        return o;
    case PLACER_RENDEZVOUS:
        return ref_rendezvous_owner(s, h);
    case PLACER_EMULATED: /* a program's table: hash % n; its ring: as placer's, */
        if (strcmp(placer_snapshot_layout_name(s), "table") == 0) {
            placer_token_at(s, (uint32_t)(h % n), &tok, &o);
            return o;
        }
        h = (uint64_t)(uint32_t)h << 32; /* its 32-bit hash h at h << 32, as its tokens */
        /* fall through */
    default:
        for (uint32_t i = 0; i < n; i++) {
            placer_token_at(s, i, &tok, &o);
            if (tok >= h)
                return o;
        }
        placer_token_at(s, 0, &tok, &o);
        return o;
    }
}

uint32_t ref_bounded_owner(const uint64_t *tokens, const uint32_t *owners, uint32_t n,
                           const int *states, uint32_t nnodes, const uint32_t *loads,
                           uint64_t total, double c, uint64_t h)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < nnodes; i++)
        m += states[i] == PLACER_NODE_ACTIVE || states[i] == PLACER_NODE_DRAINING;
    if (!m || !n)
        return PLACER_NO_NODE;
    /* the capacity: the least integer k with k * m >= c * (total + 1), c in
     * millionths, found from the double estimate by exact comparisons */
    unsigned __int128 pc = (uint64_t)floor((c < 4294967296.0 ? c : 4294967296.0) * 1e6 + 0.5);
    unsigned __int128 need = pc * ((unsigned __int128)total + 1), unit = (unsigned __int128)m * 1000000;
    double est = floor(c * ((double)total + 1) / m);
    unsigned __int128 cap_k = est >= 18446744073709551616.0 ? (unsigned __int128)UINT64_MAX : (unsigned __int128)est;
    while (cap_k > 0 && (cap_k - 1) * unit >= need)
        cap_k--;
    while (cap_k * unit < need)
        cap_k++;
    double cap = cap_k > UINT64_MAX ? 18446744073709551616.0 : (double)(uint64_t)cap_k;
    uint32_t first = 0;
    while (first < n && tokens[first] < h)
        first++;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t o = owners[(first + k) % n];
        if ((states[o] == PLACER_NODE_ACTIVE || states[o] == PLACER_NODE_DRAINING) &&
            (double)loads[o] < cap)
            return o;
    }
    return PLACER_NO_NODE;
}

/* Was a node of zone z (by name) taken among out[0..count)? */
static int ref_zone_taken(const placer_snapshot *s, const uint32_t *out, uint32_t count,
                          const char *z)
{
    for (uint32_t j = 0; j < count; j++)
        if (!strcmp(placer_node_zone(s, out[j]), z))
            return 1;
    return 0;
}

uint32_t ref_ring_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want)
{
    uint32_t n = placer_token_count(s), count = 0, zones_total = 0;
    if (!n || !want)
        return 0;
    uint64_t *tok = malloc(n * sizeof *tok);
    uint32_t *own = malloc(n * sizeof *own), *zone_of = malloc(n * sizeof *zone_of);
    if (!tok || !own || !zone_of)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        placer_token_at(s, i, &tok[i], &own[i]);
        /* a zone counts once: at its first token */
        zone_of[zones_total] = own[i];
        zones_total += !ref_zone_taken(s, zone_of, zones_total, placer_node_zone(s, own[i]));
    }
    uint32_t start = ref_lower_bound_wrap(tok, n, h), zones = 1;
    out[count++] = own[start];
    for (uint32_t step = 1; step < n && count < want && zones < zones_total; step++) {
        uint32_t o = own[(start + step) % n];
        if (!ref_zone_taken(s, out, count, placer_node_zone(s, o))) { /* so a new node too */
            out[count++] = o;
            zones++;
        }
    }
    for (uint32_t step = 1; step < n && count < want; step++) {
        uint32_t o = own[(start + step) % n], dup = 0;
        for (uint32_t j = 0; j < count; j++)
            dup |= out[j] == o;
        if (!dup)
            out[count++] = o;
    }
    free(tok);
    free(own);
    free(zone_of);
    return count;
}

/* Are nodes a and b in one datacenter (by name)? In one rack (the
 * datacenter and the zone)? */
static int ref_same_dc(const placer_snapshot *s, uint32_t a, uint32_t b)
{
    return !strcmp(placer_node_datacenter(s, a), placer_node_datacenter(s, b));
}

static int ref_same_rack(const placer_snapshot *s, uint32_t a, uint32_t b)
{
    return ref_same_dc(s, a, b) && !strcmp(placer_node_zone(s, a), placer_node_zone(s, b));
}

uint32_t ref_nts_replicas(const placer_snapshot *s, uint64_t h, uint32_t *out, uint32_t want)
{
    uint32_t n = placer_token_count(s), nn = placer_node_count(s), count = 0;
    if (!n || !want)
        return 0;
    uint64_t *tok = malloc(n * sizeof *tok);
    uint32_t *own = malloc(n * sizeof *own), *dc = malloc(nn * sizeof *dc);
    int *owns = calloc(nn, sizeof *owns), *left = calloc(nn, sizeof *left);
    int *repeats = calloc(nn, sizeof *repeats), *taken = calloc(nn, sizeof *taken);
    if (!tok || !own || !dc || !owns || !left || !repeats || !taken)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        placer_token_at(s, i, &tok[i], &own[i]);
        owns[own[i]] = 1;
    }
    /* each datacenter of the ring, as its first node owning tokens: its
     * hosts and racks owning tokens, what is left of its factor (up to its
     * hosts) and the repeats of a rack it may take (factor - racks) */
    for (uint32_t o = 0; o < nn; o++) {
        if (!owns[o])
            continue;
        dc[o] = o;
        for (uint32_t r = 0; r < o; r++)
            if (owns[r] && ref_same_dc(s, r, o)) {
                dc[o] = r;
                break;
            }
        if (dc[o] != o)
            continue;
        int hosts = 0, racks = 0, rf = (int)placer_node_replication(s, o);
        for (uint32_t x = 0; x < nn; x++) {
            if (!owns[x] || !ref_same_dc(s, x, o))
                continue;
            hosts++;
            int first = 1;
            for (uint32_t y = 0; y < x; y++)
                first &= !(owns[y] && ref_same_rack(s, x, y));
            racks += first;
        }
        left[o] = rf < hosts ? rf : hosts;
        repeats[o] = rf - racks;
    }
    uint32_t start = ref_lower_bound_wrap(tok, n, h);
    for (uint32_t step = 0; step < n && count < want; step++) {
        uint32_t o = own[(start + step) % n], d = dc[o];
        if (!left[d] || taken[o])
            continue;
        int new_rack = 1;
        for (uint32_t j = 0; j < count; j++)
            new_rack &= !ref_same_rack(s, out[j], o);
        if (!new_rack && repeats[d]-- <= 0)
            continue;
        taken[o] = 1;
        out[count++] = o;
        left[d]--;
    }
    free(tok);
    free(own);
    free(dc);
    free(owns);
    free(left);
    free(repeats);
    free(taken);
    return count;
}
