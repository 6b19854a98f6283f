/*
 * fuzz_import.c -- arbitrary bytes into the imports of other programs'
 * configurations: by the first byte mod 4, a nutcracker.yml
 * (placer_twemproxy_membership, libyaml underneath; 0 and 2), the text of
 * CLUSTER NODES (placer_redis_membership; 1), a haproxy.cfg
 * (placer_haproxy_membership, backend "b"; 3). Never a crash, a leak or undefined
 * behaviour; a refusal is PLACER_EFORMAT with a reason; what an import
 * accepts is a membership document that parses, and builds unless past
 * the token cap or out of memory.
 */
#include "fuzz.h"
#include "placer_control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int redis = (data[0] & 3) == 1, haproxy = (data[0] & 3) == 3;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    char *doc = NULL, why[512];
    size_t doc_len = 0;
    /* a pool by name (the first of the file's when the byte says so) */
    const char *pool = data[0] & 2 ? NULL : "gamma";
    int err = redis     ? placer_redis_membership(text, len, &doc, &doc_len, why, sizeof why)
              : haproxy ? placer_haproxy_membership(text, len, "b", &doc, &doc_len, why, sizeof why)
                        : placer_twemproxy_membership(text, len, pool, &doc, &doc_len, why, sizeof why);
    FUZZ_ASSERT(err == 0 || err == PLACER_EFORMAT || err == PLACER_ENOMEM);
    FUZZ_ASSERT(err != PLACER_EFORMAT || (why[0] && doc == NULL));
    FUZZ_ASSERT(strlen(why) < sizeof why);
    if (!err) {
        FUZZ_ASSERT(doc && strlen(doc) == doc_len);
        placer_builder *b = NULL;
        uint64_t epoch = 0;
        int got = placer_membership_parse(doc, doc_len, "import", &b, &epoch, why, sizeof why);
        /* what the import wrote is a membership placer takes (twemproxy's
         * ketama may still refuse a name too long for its 86 bytes, with
         * its place) */
        FUZZ_ASSERT(got >= 0 || got == PLACER_ENOMEM ||
                    (got == PLACER_EFORMAT && strstr(why, "too long for twemproxy")));
        if (got >= 0) {
            placer_snapshot *s = NULL;
            int built = placer_builder_build(b, epoch, &s);
            FUZZ_ASSERT(built == 0 || built == PLACER_ETOOMANY || built == PLACER_ENOMEM);
            placer_snapshot_free(s);
        }
        placer_builder_free(b);
    }
    placer_mem_free(doc);
    return 0;
}
