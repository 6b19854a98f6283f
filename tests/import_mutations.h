/*
 * import_mutations.h -- what test_import_haproxy.c and test_import_nginx.c
 * share for their mutated configurations: 1 to 4 random edits of a base
 * text (a byte from the given set, or the text cut short), and the verdict
 * every mutant must get: imported, and the document builds, or refused
 * with a reason; never a crash (the sanitizer build runs these too).
 */
#ifndef PLACER_TESTS_IMPORT_MUTATIONS_H
#define PLACER_TESTS_IMPORT_MUTATIONS_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "placer_control.h"

/* base (len bytes) into buf, edited with bytes from `bytes`; its length. */
static size_t mutate(char *buf, const char *base, size_t len, const char *bytes, uint64_t *rng)
{
    memcpy(buf, base, len);
    size_t n = len, nbytes = strlen(bytes);
    for (int e = 0; e < 1 + (int)(check_rand(rng) % 4) && n > 1; e++) {
        size_t at = check_rand(rng) % n;
        if (check_rand(rng) % 2)
            buf[at] = bytes[check_rand(rng) % nbytes];
        else
            n = at + 1;
    }
    return n;
}

/* The verdict on one mutant: err and doc from the membership call, why
 * its message (reused for the build's). */
static void check_mutant(int err, const char *doc, char *why, size_t why_len)
{
    CHECK_ALL(err == 0 || (err == PLACER_EFORMAT && *why), "mutations: imported or refused with a reason");
    if (err)
        return;
    placer_builder *b = NULL;
    uint64_t epoch;
    int got = placer_membership_parse(doc, strlen(doc), "doc", &b, &epoch, why, why_len);
    placer_snapshot *s = NULL;
    CHECK_ALL(got >= 0 && placer_builder_build(b, epoch, &s) == 0, "mutations: the document builds");
    if (got < 0)
        fprintf(stderr, "%s\n%s\n", why, doc);
    placer_snapshot_free(s);
    placer_builder_free(b);
}

#endif
