/* cmd_lookup.c -- `placer lookup FILE.snap KEY...`: owner, replicas, zones
 * and epoch of keys (from the arguments, or standard input one a line). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lookup_json.h"

void cmd_lookup_usage(FILE *out)
{
    fprintf(out,
            "usage: placer lookup [OPTIONS] FILE.snap [KEY...]\n"
            "\n"
            "Print the owner of each key (and its replicas, zones, the next owner while a\n"
            "node joins or drains, and the partition of partition snapshots), with the\n"
            "snapshot's epoch. Without KEY arguments, keys are read from standard input,\n"
            "one a line (the line's bytes, without its newline, are the key). A key holding\n"
            "a NUL byte is refused (exit status 2): give binary keys with --hex. A key may\n"
            "be at most 65,536 bytes (PLACER_LOOKUP_KEY_MAX; with --hex, once decoded): a\n"
            "longer one is refused (exit status 2) and the next line is read.\n"
            "\n"
            "  --replicas R   replica set size, owner included (default 1, at most 8)\n"
            "  --hex          keys are hex-encoded (two hex digits a byte), for binary keys;\n"
            "                 the key column echoes them as hex (\"key_hex\" in JSON); the\n"
            "                 bytes are hashed as given (as --raw)\n"
            "  --raw          hash each key's bytes as given, without the snapshot's key rule\n"
            "  --header       text output starts with a line naming the columns\n"
            "  --json         one JSON object a key (\"key\", or \"key_base64\" when the key\n"
            "                 is not UTF-8)\n"
            "  -q, --quiet    no progress on stderr (shown only when stderr is a terminal\n"
            "                 and keys come from standard input)\n"
            "  -h, --help     this help\n"
            "  --             the end of options: every argument after it is a key\n"
            "\n"
            "Text output, tab-separated: key, owner, owner's zone, replicas (comma-separated),\n"
            "distinct zones, epoch[, next owner][, partition][, token], addresses (the\n"
            "replicas', comma-separated, in the replicas' order; \"-\" for a node without\n"
            "one). token: a snapshot with the cassandra-murmur3 key hash prints the key's\n"
            "Murmur3Partitioner token as Cassandra does (signed decimal; \"token\" in JSON)\n"
            "and refuses an empty key (exit status 2) as CQL does. Control characters and\n"
            "backslashes in keys, ids and addresses are escaped as\n"
            "\\xNN and \\\\. A key whose owner is missing (an imported map's -1) prints \"-\"\n"
            "and makes the exit status 2.\n"
            "\n"
            "A Kafka snapshot (placer import-kafka): the owner is the key's partition's\n"
            "leader (\"-\" when Kafka shows Leader: none), the replicas that partition's\n"
            "(--replicas 8 for all), the partition column where the producer's partitioner\n"
            "sends the key. An empty key under consistent_random is sent to a random (or\n"
            "sticky) partition by a real producer: said on stderr (\"scattered\" in JSON).\n"
            "\n"
            "The key rule: a haproxy snapshot may carry its backend's balance rule\n"
            "(placer import-haproxy writes it; \"key_rule\" in a membership file), and each\n"
            "key is then what a user sees of a request, turned into the bytes haproxy 2.6\n"
            "hashes (docs/COMPAT.md):\n"
            "  source                 a dotted IPv4 or an IPv6 address (10.1.2.3, 2001:db8::7):\n"
            "                         its 4 or 16 bytes in network order\n"
            "  uri [whole] [path-only] [len N] [depth N]\n"
            "                         the request target as sent (/a/b?x=1, or absolute\n"
            "                         http://h/a/b?x=1): up to '?' unless whole; path-only\n"
            "                         drops scheme and authority; len N keeps N bytes, then\n"
            "                         depth N stops before the (N+1)-th '/'\n"
            "  url_param NAME         a request target: the value of NAME after the '?', as sent\n"
            "  hdr(NAME) [use_domain_only]\n"
            "                         the header's value: its first comma-separated element,\n"
            "                         trimmed; use_domain_only keeps the domain's main part\n"
            "                         (www.example.com -> example)\n"
            "A request with no key under the rule (not an address, no such parameter, an\n"
            "empty header) is refused (exit status 2): haproxy sends it round robin. nginx\n"
            "hashes its evaluated key string as given (type the values of its variables:\n"
            "$request_uri is /p?x=1, $binary_remote_addr is --hex 7f000001); twemproxy's\n"
            "hash_tag and Redis' {tag} apply to every key, --raw or not.\n");
}

/* The longest key lookup takes: keys are ids, paths, URLs; a line of
 * gigabytes is a mistake (or an attack) and must not cost gigabytes. */
#define PLACER_LOOKUP_KEY_MAX 65536

enum { OPT_REPLICAS = 256, OPT_JSON, OPT_HEX, OPT_HEADER, OPT_RAW };

static const struct option options[] = {
    {"replicas", required_argument, NULL, OPT_REPLICAS},
    {"json", no_argument, NULL, OPT_JSON},
    {"hex", no_argument, NULL, OPT_HEX},
    {"header", no_argument, NULL, OPT_HEADER},
    {"raw", no_argument, NULL, OPT_RAW},
    {"quiet", no_argument, NULL, 'q'},
    CLI_HELP_OPTION,
    {0},
};

typedef struct opts {
    uint32_t replicas;
    int json, hex, quiet, header, raw;
    int cassandra; /* the Cassandra key hash: the token column, an empty key refused */
    const char *rule; /* the snapshot's key rule, applied when not raw; NULL: none */
    char *hashed;     /* the bytes the rule makes of a key (PLACER_LOOKUP_KEY_MAX + 16) */
    const lookup_json *lines; /* --json: the snapshot's names as JSON */
} opts;

static const char *address_or_dash(const placer_snapshot *s, uint32_t node)
{
    const char *a = placer_node_address(s, node);
    return a && *a ? a : "-";
}

/* The key as --hex gave it: two lowercase hex digits a byte. */
static void print_hex(const unsigned char *key, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        putchar(digits[key[i] >> 4]);
        putchar(digits[key[i] & 15]);
    }
}

/* --header: the columns one() prints, named. */
static void header(const placer_snapshot *s)
{
    printf("key\towner\tzone\treplicas\tzones\tepoch%s%s%s\taddresses\n",
           placer_snapshot_in_transition(s) ? "\tnext_owner" : "",
           cli_strategy_traits(placer_snapshot_strategy(s)).traits & PLACER_TRAIT_PARTITIONS
               ? "\tpartition" : "",
           placer_snapshot_key_hash(s) == PLACER_HASH_CASSANDRA_MURMUR3 ? "\ttoken" : "");
}

/* key (as typed: printed) and hk (its bytes under the key rule: hashed) */
static int one(const placer_snapshot *s, const opts *o, const char *key, size_t len,
               const char *hk, size_t hlen)
{
    uint32_t set[8], owner = 0, next = 0;
    placer_replica_report rep = {.size = sizeof rep};
    int k = placer_replicas_ex(s, hk, hlen, set, o->replicas, &rep);
    int err = placer_lookup_handoff(s, hk, hlen, &owner, &next);
    int part = cli_strategy_traits(placer_snapshot_strategy(s)).traits & PLACER_TRAIT_PARTITIONS
                   ? placer_partition(s, hk, hlen) : -1;
    int64_t token = 0; /* as Cassandra prints it: signed decimal */
    if (o->cassandra && placer_cassandra_token(hk, hlen, &token) != 0)
        return CLI_BADINPUT; /* key_in refused the empty key already */
    if (k < 0)
        k = 0;
    if (placer_compat_key_scatters(s, hk, hlen))
        fprintf(stderr, "placer lookup: an empty key: a producer with %s sends it to a random "
                        "(or its sticky) partition; shown: where the key's hash would go\n",
                placer_snapshot_compat_key_hash(s));
    if (o->json) {
        lookup_answer a = {key, len, hk, hlen, o->hex, err, k, part, owner, next, set, &rep,
                           o->cassandra, token};
        int rc = lookup_json_line(o->lines, s, &a);
        return rc ? rc : err ? CLI_BADINPUT : CLI_OK;
    }
    if (o->hex)
        print_hex((const unsigned char *)key, len);
    else
        cli_print_text(stdout, key, len);
    putchar('\t');
    cli_print_name(stdout, err ? "-" : placer_node_id(s, owner));
    putchar('\t');
    cli_print_name(stdout, err ? "-" : placer_node_zone(s, owner));
    putchar('\t');
    for (int i = 0; i < k; i++) {
        if (i)
            putchar(',');
        cli_print_name(stdout, placer_node_id(s, set[i]));
    }
    printf("\t%u\t%llu", rep.zones, (unsigned long long)placer_snapshot_epoch(s));
    if (!err && placer_snapshot_in_transition(s)) {
        putchar('\t');
        cli_print_name(stdout, placer_node_id(s, next));
    }
    if (part >= 0)
        printf("\t%d", part);
    if (o->cassandra)
        printf("\t%lld", (long long)token);
    putchar('\t');
    for (int i = 0; i < k; i++) {
        if (i)
            putchar(',');
        cli_print_name(stdout, address_or_dash(s, set[i]));
    }
    if (!k)
        putchar('-');
    putchar('\n');
    return err ? CLI_BADINPUT : CLI_OK;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* Decode len hex digits at text in place; the byte count, or -1. */
static long unhex(char *text, size_t len)
{
    if (len % 2)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        int hi = hex_digit(text[i]), lo = hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        text[i / 2] = (char)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

/* One key as given (argument or line `where`): checked, decoded, looked up. */
static int key_in(const placer_snapshot *s, const opts *o, char *text, size_t len,
                  const char *where)
{
    if (len > (o->hex ? 2 : 1) * (size_t)PLACER_LOOKUP_KEY_MAX) {
        fprintf(stderr, "placer lookup: %s: the key is longer than the %d-byte cap "
                        "(PLACER_LOOKUP_KEY_MAX)\n", where, PLACER_LOOKUP_KEY_MAX);
        return CLI_BADINPUT;
    }
    if (o->hex) {
        long n = unhex(text, len);
        if (n < 0) {
            fprintf(stderr, "placer lookup: %s: not hex (--hex wants two hex digits a byte)\n", where);
            return CLI_BADINPUT;
        }
        len = (size_t)n;
    } else if (memchr(text, '\0', len)) {
        fprintf(stderr, "placer lookup: %s: the key holds a NUL byte (give binary keys with --hex)\n",
                where);
        return CLI_BADINPUT;
    }
    if (o->cassandra && !len) {
        fprintf(stderr, "placer lookup: %s: an empty partition key (Cassandra refuses it: "
                        "\"Key may not be empty\")\n", where);
        return CLI_BADINPUT;
    }
    if (!o->rule)
        return one(s, o, text, len, text, len);
    size_t n;
    if (placer_key_from_request(s, text, len, o->hashed, len + 16, &n) != 0) {
        const char *why = !strcmp(o->rule, "source") ? "not a dotted IPv4 or an IPv6 address"
                          : !strncmp(o->rule, "url_param", 9)
                              ? "no such parameter after a '?': haproxy sends it round robin"
                              : "an empty header value: haproxy sends it round robin";
        fprintf(stderr, "placer lookup: %s: no key under the snapshot's key rule \"%s\": %s "
                        "(--raw hashes the bytes as given)\n", where, o->rule, why);
        return CLI_BADINPUT;
    }
    return one(s, o, text, len, o->hashed, n);
}

static int from_stdin(const placer_snapshot *s, const opts *o)
{
    int show = !o->quiet && isatty(STDERR_FILENO), shown = 0, worst = CLI_OK;
    double last = 0; /* the first count shows at 65,536 keys, then twice a second at most */
    char *line, where[48];
    size_t n;
    unsigned long long lines = 0;
    cli_lines in;
    if (cli_lines_open(&in, stdin, (o->hex ? 2 : 1) * (size_t)PLACER_LOOKUP_KEY_MAX)) {
        fprintf(stderr, "placer lookup: out of memory\n");
        return CLI_FAILURE;
    }
    int got;
    while ((got = cli_lines_next(&in, &line, &n)) != CLI_LINE_END && got != CLI_LINE_ERROR) {
        lines++;
        snprintf(where, sizeof where, "standard input line %llu", lines);
        int r;
        if (got == CLI_LINE_TOO_LONG) {
            fprintf(stderr, "placer lookup: %s: the key is longer than the %d-byte cap "
                            "(PLACER_LOOKUP_KEY_MAX)\n", where, PLACER_LOOKUP_KEY_MAX);
            r = CLI_BADINPUT;
        } else {
            r = key_in(s, o, line, n, where);
        }
        worst = r > worst ? r : worst;
        if (r == CLI_FAILURE)
            break;
        if (show && !(lines & 0xffff) && cli_now() - last > 0.5) {
            fprintf(stderr, "\rplacer lookup: %llu keys", lines);
            last = cli_now();
            shown = 1;
        }
    }
    if (shown)
        fprintf(stderr, "\rplacer lookup: %llu keys\n", lines);
    if (got == CLI_LINE_ERROR) {
        fprintf(stderr, "placer lookup: standard input: read error\n");
        worst = CLI_FAILURE;
    }
    cli_lines_close(&in);
    return worst;
}

int cmd_lookup(int argc, char **argv)
{
    opts o = {1, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL};
    int c;
    uint64_t r;
    while ((c = cli_getopt("lookup", argc, argv, options, cmd_lookup_usage)) != -1) {
        switch (c) {
        case OPT_REPLICAS:
            if (cli_parse_u64("lookup", "--replicas", optarg, 1, PLACER_MAX_REPLICAS, &r))
                return CLI_USAGE;
            o.replicas = (uint32_t)r;
            break;
        case OPT_JSON:
            o.json = 1;
            break;
        case OPT_HEX:
            o.hex = 1;
            break;
        case OPT_HEADER:
            o.header = 1;
            break;
        case OPT_RAW:
            o.raw = 1;
            break;
        case 'q':
            o.quiet = 1;
            break;
        default:
            return c == CLI_OPT_HELP ? CLI_OK : CLI_USAGE;
        }
    }
    if (optind == argc) {
        cli_usage_error("lookup", "no snapshot file");
        return CLI_USAGE;
    }
    if (o.header && o.json) {
        cli_usage_error("lookup", "--header is for text output (JSON names every field)");
        return CLI_USAGE;
    }
    /* A line a key: into a 64 KiB buffer, one write() when it fills (not
     * one a key), unless a person reads the terminal as keys come. */
    static char out_buf[1 << 16]; /* glibc ignores the size without a buffer */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    placer_snapshot *s;
    int rc = cli_load_snapshot("lookup", argv[optind], &s);
    if (rc)
        return rc;
    o.cassandra = placer_snapshot_key_hash(s) == PLACER_HASH_CASSANDRA_MURMUR3;
    if (!o.raw && !o.hex && *placer_snapshot_key_rule(s)) {
        o.rule = placer_snapshot_key_rule(s);
        o.hashed = malloc((size_t)PLACER_LOOKUP_KEY_MAX + 16);
        if (!o.hashed) {
            fprintf(stderr, "placer lookup: out of memory\n");
            placer_snapshot_free(s);
            return CLI_FAILURE;
        }
    }
    lookup_json lines;
    if (o.json) {
        if (lookup_json_open(&lines, s)) {
            fprintf(stderr, "placer lookup: out of memory\n");
            lookup_json_close(&lines);
            free(o.hashed);
            placer_snapshot_free(s);
            return CLI_FAILURE;
        }
        o.lines = &lines;
    }
    if (o.header)
        header(s);
    int worst = CLI_OK;
    if (optind + 1 < argc) {
        char where[48];
        for (int i = optind + 1; i < argc && worst != CLI_FAILURE; i++) {
            snprintf(where, sizeof where, "key argument %d", i - optind);
            int k = key_in(s, &o, argv[i], strlen(argv[i]), where);
            worst = k > worst ? k : worst;
        }
    } else {
        worst = from_stdin(s, &o);
    }
    /* a failure already said (cli_json_emit's) is not said twice */
    if (fflush(stdout) != 0 && worst != CLI_FAILURE) {
        fprintf(stderr, "placer lookup: standard output: write error\n");
        worst = CLI_FAILURE;
    }
    free(o.hashed);
    if (o.json)
        lookup_json_close(&lines);
    placer_snapshot_free(s);
    return worst;
}
