/*
 * fuzz_import_nginx.c -- arbitrary bytes as an nginx.conf for
 * placer_nginx_membership (upstream "u"), which reads files: the input is
 * written to nginx.conf in a private temporary directory that also holds
 * inc.conf (an upstream "u"), so relative includes, globs and include
 * loops are fuzzed too. Inputs that could include files outside it (an
 * "include" and a '/') are skipped. Never a crash, a leak or undefined
 * behaviour; a refusal is PLACER_EFORMAT with a reason; what is accepted
 * is a membership document that parses and builds.
 */
#include <unistd.h>

#include "fuzz.h"
#include "placer_control.h"

static char dir[64], conf[96];

static void cleanup(void)
{
    char inc[96];
    snprintf(inc, sizeof inc, "%s/inc.conf", dir);
    unlink(inc);
    unlink(conf);
    rmdir(dir);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/placer-fuzz-nginx-XXXXXX");
    FUZZ_ASSERT(mkdtemp(dir) != NULL);
    char inc[96];
    snprintf(inc, sizeof inc, "%s/inc.conf", dir);
    FILE *f = fopen(inc, "w");
    FUZZ_ASSERT(f != NULL);
    fputs("upstream u {\n  hash $arg_k consistent;\n  server 127.0.0.1:8001 weight=2;\n"
          "  server 127.0.0.1:8002 down;\n}\n", f);
    fclose(f);
    snprintf(conf, sizeof conf, "%s/nginx.conf", dir);
    atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!*dir)
        setup();
    if (memmem(data, size, "include", 7) && memchr(data, '/', size))
        return 0;
    FILE *f = fopen(conf, "wb");
    FUZZ_ASSERT(f != NULL);
    FUZZ_ASSERT(fwrite(data, 1, size, f) == size);
    fclose(f);
    char *doc = NULL, why[512];
    size_t doc_len = 0;
    int err = placer_nginx_membership(conf, "u", &doc, &doc_len, why, sizeof why);
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
            FUZZ_ASSERT(built == 0 || built == PLACER_ETOOMANY || built == PLACER_ENOMEM);
            placer_snapshot_free(s);
        }
        placer_builder_free(b);
    }
    placer_mem_free(doc);
    return 0;
}
