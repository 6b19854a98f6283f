/*
 * check.h -- the smallest test harness that says what failed: CHECK* macros
 * count passes and print each failure with file and line; check_done()
 * prints "<name>: N passed, N failed" and gives the exit status meson wants.
 */
#ifndef PLACER_TESTS_CHECK_H
#define PLACER_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static long check_passed_, check_failed_;

#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (cond) {                                                                      \
            check_passed_++;                                                             \
        } else {                                                                         \
            check_failed_++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);     \
        }                                                                                \
    } while (0)

#define CHECK_EQ(a, b)                                                                   \
    do {                                                                                 \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                 \
        if (a_ == b_) {                                                                  \
            check_passed_++;                                                             \
        } else {                                                                         \
            check_failed_++;                                                             \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (0x%" PRIx64 " != 0x%" PRIx64 \
                            ")\n",                                                       \
                    __FILE__, __LINE__, #a, #b, a_, b_);                                 \
        }                                                                                \
    } while (0)

/* Stop counting every element of a large loop: record the first failure only. */
#define CHECK_ALL(cond_expr, loop_desc)                                                  \
    do {                                                                                 \
        if (cond_expr) {                                                                 \
            check_passed_++;                                                             \
        } else {                                                                         \
            check_failed_++;                                                             \
            fprintf(stderr, "%s:%d: CHECK failed for %s\n", __FILE__, __LINE__, loop_desc); \
        }                                                                                \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, check_passed_, check_failed_);
    return check_failed_ ? 1 : 0;
}

/* splitmix64: a fixed-seed generator for test data. */
static inline uint64_t check_rand(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

#endif
