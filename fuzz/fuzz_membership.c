/*
 * fuzz_membership.c -- arbitrary text into placer_membership_parse (and
 * the Couchbase import): never a crash, a leak or undefined behaviour; a
 * rejection is PLACER_EFORMAT with a "NAME:LINE:COLUMN: ..." message; an
 * accepted membership builds or fails with a documented error, and what it
 * builds survives an encode/decode round trip.
 */
#include "fuzz.h"
#include "placer_control.h"

/* 1 when the input holds a number of three characters or more ("100",
 * "1e9", "0x10"): such documents are parsed but not built, so that an
 * execution costs microseconds -- shapes find the paths, not bulk. (A
 * campaign found {"nodes":[{"id":"a","weight":755}]}: 193,280 ring tokens
 * at the default vnodes, 25 s on a starved core.) */
static int has_big_number(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; i++) {
        if (data[i] < '0' || data[i] > '9' || (i && data[i - 1] >= '0' && data[i - 1] <= '9'))
            continue;
        size_t n = 0;
        while (i + n < size && strchr("0123456789abcdefABCDEFxX.+-", data[i + n]) && data[i + n])
            n++;
        if (n > 2)
            return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    placer_builder *b = NULL;
    uint64_t epoch = 0;
    char why[512];
    int got = placer_membership_parse((const char *)data, size, "fuzz.json", &b, &epoch, why,
                                      sizeof why);
    if (got < 0) {
        FUZZ_ASSERT(got == PLACER_EFORMAT || got == PLACER_ENOMEM);
        FUZZ_ASSERT(b == NULL && (got != PLACER_EFORMAT || strncmp(why, "fuzz.json:", 10) == 0));
    } else if (has_big_number(data, size)) {
        FUZZ_ASSERT(b != NULL && (got == 0 || got == 1));
        placer_builder_free(b);
    } else {
        FUZZ_ASSERT(b != NULL && (got == 0 || got == 1));
        placer_snapshot *s = NULL;
        int err = placer_builder_build(b, epoch, &s);
        /* what the builder would refuse for its content (no owner left,
         * partitions or a Maglev size out of range, jump buckets clashing)
         * the parser refuses first, with the place: only the token cap
         * and memory remain */
        /* and a keyed document's missing secret: it comes from the command
         * line (--secret-file), never from the file, so only the build can
         * tell it is missing */
        FUZZ_ASSERT(err == 0 || err == PLACER_ETOOMANY || err == PLACER_ENOMEM ||
                    (err == PLACER_EINVAL && memmem(data, size, "siphash13", 9) != NULL));
        if (!err) {
            void *buf;
            size_t len;
            placer_snapshot *d = NULL;
            FUZZ_ASSERT(placer_snapshot_encode(s, &buf, &len) == 0);
            FUZZ_ASSERT(placer_snapshot_decode(buf, len, &d) == 0);
            FUZZ_ASSERT(placer_lookup(d, "k", 1) == placer_lookup(s, "k", 1));
            placer_snapshot_free(d);
            placer_buffer_free(buf);
            placer_snapshot_free(s);
        }
        placer_builder_free(b);
    }
    placer_snapshot *c = NULL;
    int err = placer_couchbase_import((const char *)data, size, &c);
    FUZZ_ASSERT(err == 0 || err == PLACER_EFORMAT || err == PLACER_ENOMEM);
    placer_snapshot_free(c);
    return 0;
}
