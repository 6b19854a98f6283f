/*
 * fuzz_import_cassandra.c -- arbitrary bytes as a keyspace's replication
 * map and the text of nodetool ring for placer_cassandra_membership: the
 * input up to its first NUL byte is the map (none: a fixed
 * NetworkTopologyStrategy map), the rest the ring. Never a crash, a leak or
 * undefined behaviour; a refusal is PLACER_EFORMAT with a reason; what is
 * accepted is a membership document that parses and builds, and whose
 * snapshot answers a replica set and encodes, decodes and encodes again to
 * the same bytes.
 */
#include "fuzz.h"
#include "placer_control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char fixed[] = "{'class': 'NetworkTopologyStrategy', 'dc1': '3'}";
    const uint8_t *nul = memchr(data, '\0', size);
    char *map = malloc(nul ? (size_t)(nul - data) + 1 : sizeof fixed);
    FUZZ_ASSERT(map != NULL);
    const char *ring = (const char *)data;
    size_t len = size;
    if (nul) {
        memcpy(map, data, (size_t)(nul - data));
        map[nul - data] = '\0';
        ring = (const char *)nul + 1;
        len = size - (size_t)(nul - data) - 1;
    } else {
        memcpy(map, fixed, sizeof fixed);
    }
    char *doc = NULL, why[512];
    size_t doc_len = 0;
    int err = placer_cassandra_membership(ring, len, map, &doc, &doc_len, why, sizeof why);
    FUZZ_ASSERT(err == 0 || err == PLACER_EFORMAT || err == PLACER_ENOMEM);
    FUZZ_ASSERT(err != PLACER_EFORMAT || (why[0] && doc == NULL));
    if (!err) {
        FUZZ_ASSERT(doc && strlen(doc) == doc_len);
        placer_builder *b = NULL;
        uint64_t epoch = 0;
        int got = placer_membership_parse(doc, doc_len, "import", &b, &epoch, why, sizeof why);
        FUZZ_ASSERT(got >= 0 || got == PLACER_ENOMEM);
        if (got >= 0) {
            placer_snapshot *s = NULL;
            int built = placer_builder_build(b, epoch, &s);
            FUZZ_ASSERT(built == 0 || built == PLACER_ETOOMANY || built == PLACER_ENOMEM ||
                        built == PLACER_ENONODES);
            if (s) {
                uint32_t set[8];
                int n = placer_replicas(s, "key", 3, set, 8);
                FUZZ_ASSERT(n >= 1 && n <= 8);
                /* datacenters and factors survive the codec, byte for byte */
                void *buf = NULL, *again = NULL;
                size_t blen = 0, alen = 0;
                placer_snapshot *back = NULL;
                if (placer_snapshot_encode(s, &buf, &blen) == 0) {
                    int dec = placer_snapshot_decode_ex(buf, blen, &back, why, sizeof why);
                    FUZZ_ASSERT(dec == 0 || dec == PLACER_ENOMEM);
                    if (back && placer_snapshot_encode(back, &again, &alen) == 0)
                        FUZZ_ASSERT(alen == blen && !memcmp(buf, again, blen));
                }
                placer_buffer_free(again);
                placer_buffer_free(buf);
                placer_snapshot_free(back);
            }
            placer_snapshot_free(s);
        }
        placer_builder_free(b);
    }
    placer_mem_free(doc);
    free(map);
    return 0;
}
