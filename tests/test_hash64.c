/*
 * test_hash64.c -- quality and agreement of placer_hash64.
 *
 *  - known-answer vectors (hash64_vectors.h) on every path;
 *  - hardware == software on random keys, lengths and seeds;
 *  - no collision among 2^21 keys "key-0".. (and, to show the test has
 *    teeth, the same keys do collide ~512 times when only 32 bits are kept,
 *    and a two-lane CRC over the *same* words -- the trap -- collides too);
 *  - avalanche: for 8, 16, 32, 64-byte keys and 100,000 random keys each,
 *    flipping any input bit flips every output bit with p = 0.5 +/- 0.02;
 *  - uniformity: chi-square of the top 16 bits over 1,000,000 sequential keys
 *    below the 99.9% point of chi-square with 65535 degrees of freedom.
 */
#define PLACER_STATIC_LINKING_ONLY
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "crc32c.h"
#include "hash64_vectors.h"
#include "kernels.h"
#include "placer.h"

/* Re-print hash64_vectors.h with the hashes of the current implementation. */
static void print_hash64_vectors(void)
{
    static const char *seed_text[] = {"0", "1", "UINT64_C(0xDEADBEEFCAFEBABE)", "UINT64_MAX"};
    static const uint64_t seed_value[] = {0, 1, UINT64_C(0xDEADBEEFCAFEBABE), UINT64_MAX};
    printf("/*\n * hash64_vectors.h -- known answers of placer_hash64: changing any of them\n"
           " * remaps every key in every deployed ring, so a change here is a protocol\n"
           " * change and needs a new hash algorithm id. Regenerate only on purpose:\n"
           " * build/tests/test_hash64 --print-vectors > tests/hash64_vectors.h\n */\n"
           "#ifndef PLACER_TESTS_HASH64_VECTORS_H\n#define PLACER_TESTS_HASH64_VECTORS_H\n\n"
           "#include <stddef.h>\n#include <stdint.h>\n\nstruct hash64_vector {\n"
           "    uint64_t seed;\n    const char *key;\n    size_t len;\n    uint64_t hash;\n};\n\n"
           "static const struct hash64_vector hash64_vectors[] = {\n");
    for (size_t i = 0; i < sizeof hash64_vectors / sizeof hash64_vectors[0]; i++) {
        const struct hash64_vector *v = &hash64_vectors[i];
        size_t s = 0;
        while (seed_value[s] != v->seed)
            s++;
        printf("    {%s, \"%s\", %zu, UINT64_C(0x%016" PRIx64 ")},\n", seed_text[s], v->key,
               v->len, plc_kernels_sw()->hash64(v->seed, v->key, v->len));
    }
    printf("};\n\n#endif\n");
}

static void known_answers(plc_hash64_fn h, const char *path)
{
    long bad = 0;
    for (size_t i = 0; i < sizeof hash64_vectors / sizeof hash64_vectors[0]; i++) {
        const struct hash64_vector *v = &hash64_vectors[i];
        uint64_t got = h(v->seed, v->key, v->len);
        if (got != v->hash && bad++ < 5)
            fprintf(stderr, "%s: vector %zu: got 0x%016" PRIx64 " want 0x%016" PRIx64 "\n", path,
                    i, got, v->hash);
    }
    CHECK_ALL(bad == 0, "known-answer vectors");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t count_collisions(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t c = 0;
    for (size_t i = 1; i < n; i++)
        c += v[i] == v[i - 1];
    return c;
}

/* The trap the hash avoids: two CRC lanes over the same words, seeds differ. */
static uint64_t two_lane_same_words(const void *key, size_t len)
{
    uint32_t a = plc_crc32c_sw(0x1234567u, key, len), b = plc_crc32c_sw(0x89abcdefu, key, len);
    uint64_t h = ((uint64_t)a << 32) | b;
    h ^= h >> 33;
    h *= UINT64_C(0xFF51AFD7ED558CCD);
    return h ^ (h >> 33);
}

static void collisions(void)
{
    enum { N = 1 << 21 };
    uint64_t *full = malloc(N * sizeof *full), *top32 = malloc(N * sizeof *top32);
    uint64_t *trap = malloc(N * sizeof *trap);
    char key[32];
    for (size_t i = 0; i < N; i++) {
        int len = snprintf(key, sizeof key, "key-%zu", i);
        full[i] = placer_hash64(0, key, (size_t)len);
        top32[i] = full[i] >> 32;
        trap[i] = two_lane_same_words(key, (size_t)len);
    }
    size_t c64 = count_collisions(full, N), c32 = count_collisions(top32, N);
    size_t ctrap = count_collisions(trap, N);
    printf("collisions among 2^21 keys: 64-bit %zu, top 32 bits %zu (expect ~512), "
           "two CRC lanes over the same words %zu\n",
           c64, c32, ctrap);
    CHECK_EQ(c64, 0);
    CHECK(c32 > 350 && c32 < 700); /* the detector works: 2^42 / 2^33 = 512 expected */
    CHECK(ctrap > 100);            /* and would catch the linear trap */
    free(full);
    free(top32);
    free(trap);
}

/* Per input bit, count how often each output bit flips. Counts are kept in
 * byte lanes (8 output bits per uint64 add) and flushed every 255 samples. */
static void avalanche(size_t key_len)
{
    enum { SAMPLES = 100000 };
    size_t in_bits = key_len * 8;
    uint64_t (*lanes)[8] = calloc(in_bits, sizeof *lanes);
    uint32_t (*flips)[64] = calloc(in_bits, sizeof *flips);
    unsigned char key[64];
    uint64_t rng = 1000 + key_len;
    const uint64_t ones = UINT64_C(0x0101010101010101);
    for (int s = 1; s <= SAMPLES; s++) {
        for (size_t i = 0; i < key_len; i++)
            key[i] = (unsigned char)check_rand(&rng);
        uint64_t seed = check_rand(&rng);
        uint64_t h0 = placer_hash64(seed, key, key_len);
        for (size_t bit = 0; bit < in_bits; bit++) {
            key[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            uint64_t d = h0 ^ placer_hash64(seed, key, key_len);
            key[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            for (int k = 0; k < 8; k++)
                lanes[bit][k] += (d >> k) & ones; /* lane k byte j counts output bit 8j+k */
        }
        if (s % 255 == 0 || s == SAMPLES)
            for (size_t bit = 0; bit < in_bits; bit++)
                for (int k = 0; k < 8; k++) {
                    for (int j = 0; j < 8; j++)
                        flips[bit][8 * j + k] += (uint32_t)((lanes[bit][k] >> (8 * j)) & 0xff);
                    lanes[bit][k] = 0;
                }
    }
    double worst = 0;
    for (size_t bit = 0; bit < in_bits; bit++)
        for (int o = 0; o < 64; o++) {
            double dev = fabs((double)flips[bit][o] / SAMPLES - 0.5);
            worst = dev > worst ? dev : worst;
        }
    printf("avalanche, %zu-byte keys, %d samples per input bit: worst |p - 0.5| = %.4f\n", key_len,
           SAMPLES, worst);
    CHECK(worst <= 0.02);
    free(lanes);
    free(flips);
}

static double chi_square_top16(int strings)
{
    enum { N = 1000000, BINS = 1 << 16 };
    uint32_t *bins = calloc(BINS, sizeof *bins);
    char key[32];
    for (uint64_t i = 0; i < N; i++) {
        uint64_t h;
        if (strings) {
            int len = snprintf(key, sizeof key, "user:%" PRIu64, i);
            h = placer_hash64(0, key, (size_t)len);
        } else {
            h = placer_hash64(0, &i, sizeof i);
        }
        bins[h >> 48]++;
    }
    double expect = (double)N / BINS, chi = 0;
    for (int b = 0; b < BINS; b++)
        chi += ((double)bins[b] - expect) * ((double)bins[b] - expect) / expect;
    free(bins);
    return chi;
}

static void uniformity(void)
{
    /* Wilson-Hilferty: the p-quantile of chi-square(k) is about
     * k (1 - 2/(9k) + z sqrt(2/(9k)))^3; z(0.999) = 3.0902. */
    double k = 65535, z = 3.0902;
    double bound = k * pow(1 - 2 / (9 * k) + z * sqrt(2 / (9 * k)), 3);
    double chi_str = chi_square_top16(1), chi_int = chi_square_top16(0);
    printf("chi-square of top 16 bits, 1e6 sequential keys: strings %.0f, integers %.0f "
           "(99.9%% bound %.0f)\n",
           chi_str, chi_int, bound);
    CHECK(chi_str < bound);
    CHECK(chi_int < bound);
}

static void hardware_equals_software(void)
{
    const plc_kernels *cur = plc_kernels_get(), *sw = plc_kernels_sw();
    unsigned char buf[300];
    uint64_t rng = 5;
    long bad = 0;
    for (int i = 0; i < 200000; i++) {
        size_t len = check_rand(&rng) % sizeof buf;
        for (size_t j = 0; j < len; j++)
            buf[j] = (unsigned char)check_rand(&rng);
        size_t off = len ? check_rand(&rng) % 8 : 0;
        len -= off < len ? off : len;
        uint64_t seed = check_rand(&rng);
        bad += cur->hash64(seed, buf + off, len) != sw->hash64(seed, buf + off, len);
    }
    printf("hash64 paths compared: %s vs %s\n", cur->hash64_name, sw->hash64_name);
    CHECK_ALL(bad == 0, "hardware == software on 200000 random keys and seeds");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--print-vectors")) {
        print_hash64_vectors();
        return 0;
    }
    known_answers(plc_kernels_get()->hash64, plc_kernels_get()->hash64_name);
    known_answers(plc_kernels_sw()->hash64, "software");
    known_answers(placer_hash64, "placer_hash64");
    hardware_equals_software();
    CHECK_EQ(placer_hash64(0, NULL, 0), placer_hash64(0, "", 0));
    CHECK(placer_hash64(0, "a", 1) != placer_hash64(1, "a", 1));
    CHECK(placer_hash64(0, "ab", 2) != placer_hash64(0, "ab\0", 3));
    collisions();
    avalanche(8);
    avalanche(16);
    avalanche(32);
    avalanche(64);
    uniformity();
    return check_done("test_hash64");
}
