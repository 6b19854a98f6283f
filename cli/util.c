/* util.c -- small helpers shared by the subcommands. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

int cli_parse_u64(const char *cmd, const char *what, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+') {
        fprintf(stderr, "placer %s: %s: expected an unsigned integer, got '%s'\n", cmd, what,
                text ? text : "");
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end) {
        fprintf(stderr, "placer %s: %s: '%s' is not an unsigned integer\n", cmd, what, text);
        return -1;
    }
    if (v < min || v > max) {
        fprintf(stderr, "placer %s: %s: %llu is outside %" PRIu64 "..%" PRIu64 "\n", cmd, what, v,
                min, max);
        return -1;
    }
    *out = v;
    return 0;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
