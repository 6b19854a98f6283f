/*
 * cli.h -- what the subcommands of `placer` share. Each subcommand lives in
 * its own cmd_*.c and is listed once in main.c's table.
 *
 * Exit status, the same in every command (placer --help, placer(1), README):
 *   0 ok; 1 usage error; 2 bad input (a file, key or value placer cannot
 *   accept, including a watch that rejected every snapshot it saw and
 *   accepted none); 3 the environment failed (etcd unreachable,
 *   authentication refused, I/O error, out of memory); 4 a publish whose
 *   epoch is not newer than the one stored (stale, or a race lost).
 *
 * Options: each cmd_*.c has one `struct option` table and a loop over
 * cli_getopt (options.c); its usage text lists every option, and its man
 * page (cli/man/placer-CMD.1) must name each one (tests/test_man.sh checks).
 */
#ifndef PLACER_CLI_H
#define PLACER_CLI_H

#include <getopt.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "placer_control.h"

#define CLI_OK 0
#define CLI_USAGE 1
#define CLI_BADINPUT 2
#define CLI_FAILURE 3
#define CLI_STALE 4

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    void (*usage)(FILE *out);
} cli_command;

int cmd_demo(int argc, char **argv);
void cmd_demo_usage(FILE *out);
int cmd_version(int argc, char **argv);
void cmd_version_usage(FILE *out);

int cmd_build(int argc, char **argv);
void cmd_build_usage(FILE *out);
int cmd_lookup(int argc, char **argv);
void cmd_lookup_usage(FILE *out);
int cmd_stats(int argc, char **argv);
void cmd_stats_usage(FILE *out);
int cmd_diff(int argc, char **argv);
void cmd_diff_usage(FILE *out);
int cmd_verify(int argc, char **argv);
void cmd_verify_usage(FILE *out);
int cmd_publish(int argc, char **argv);
void cmd_publish_usage(FILE *out);
int cmd_watch(int argc, char **argv);
void cmd_watch_usage(FILE *out);
int cmd_simulate(int argc, char **argv);
void cmd_simulate_usage(FILE *out);
int cmd_import_couchbase(int argc, char **argv);
void cmd_import_couchbase_usage(FILE *out);
int cmd_import_twemproxy(int argc, char **argv);
void cmd_import_twemproxy_usage(FILE *out);
int cmd_import_haproxy(int argc, char **argv);
void cmd_import_haproxy_usage(FILE *out);
int cmd_import_nginx(int argc, char **argv);
void cmd_import_nginx_usage(FILE *out);
int cmd_import_redis(int argc, char **argv);
int cmd_import_cassandra(int argc, char **argv);
void cmd_import_cassandra_usage(FILE *out);
void cmd_import_redis_usage(FILE *out);
int cmd_import_kafka(int argc, char **argv);
void cmd_import_kafka_usage(FILE *out);
/* 1 when s is a Kafka topic's snapshot (its keys' partitions, no 32-bit
 * hash to show; cmd_import_kafka.c, Kafka's module), else 0. */
int cli_kafka_snapshot(const placer_snapshot *s);

/* ---- options (options.c) ---- */

/* The table entry every command has: -h, --help. */
#define CLI_HELP_OPTION {"help", no_argument, NULL, 'h'}
/* cli_getopt's results besides an option's val and -1 (no more options). */
#define CLI_OPT_HELP (-2) /* the usage was printed on stdout: exit CLI_OK */
#define CLI_OPT_BAD (-3)  /* a one-line error was printed: exit CLI_USAGE */

/* The next option of argv (argv[0] is the subcommand) by getopt_long over
 * opts (ended by a zeroed entry; a printable val is also a short option).
 * Returns the option's val (optarg holds its value), -1 when the options
 * are over (operands are argv[optind..argc-1], in order; "--" ends the
 * options), CLI_OPT_HELP or CLI_OPT_BAD. */
int cli_getopt(const char *cmd, int argc, char **argv, const struct option *opts,
               void (*usage)(FILE *));

/* One line on stderr: "placer CMD: MESSAGE (see 'placer CMD --help')". */
void cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parse text strictly (placer_parse_u64: decimal or 0x hex, no sign, no
 * space, no octal) as an integer in [min, max]. Returns 0 and sets *out, or
 * prints a usage error naming `what` and returns -1. */
int cli_parse_u64(const char *cmd, const char *what, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out);

/* ---- stats (stats_datacenters.c) ---- */

/* When some node of s names a datacenter: each datacenter's share of the
 * keys (the sum of share[node]), nodes, racks and factor, as
 * doc["datacenters"] (doc not NULL) or a "datacenters: ..." line on
 * stdout. Returns 0, or -1 out of memory. */
int cli_stats_datacenters(const placer_snapshot *s, const double *share, json_t *doc);

/* ---- output (output.c) ---- */

/* The JSON schema version every document and line carries as "format". */
#define CLI_JSON_FORMAT 1

/* A new JSON object holding "format": CLI_JSON_FORMAT. */
json_t *cli_json_doc(void);
/* obj[name] = value, taking value; a failed allocation (value NULL) is
 * remembered and makes cli_json_emit fail. */
void cli_json_put(json_t *obj, const char *name, json_t *value);
/* Append value to arr, taking it; failures as cli_json_put. */
void cli_json_append(json_t *arr, json_t *value);
/* A JSON string of s; bytes that are not UTF-8 become U+FFFD. */
json_t *cli_json_str(const char *s);
/* v as a JSON integer up to 2^53 (exact in every JSON reader), above that
 * as a string of decimal digits. */
json_t *cli_json_u64(uint64_t v);
/* v as a JSON number, null when NaN or infinite. */
json_t *cli_json_num(double v);
/* obj["key"] = the key when it is UTF-8 without NUL, else
 * obj["key_base64"] = its base64 (RFC 4648, padded): lossless either way. */
void cli_json_put_key(json_t *obj, const void *key, size_t len);
/* Print doc compact on one line of cli_report_stream() and free it. Returns CLI_OK, or
 * CLI_FAILURE after saying why (out of memory, write error). */
int cli_json_emit(const char *cmd, json_t *doc);
/* RFC 4648 base64 with padding of n bytes into out (4 * ceil(n / 3) + 1 bytes). */
void cli_base64(const void *data, size_t n, char *out);
/* 1 when the len bytes at text are valid UTF-8. */
int cli_utf8_valid(const void *text, size_t len);
/* Text output of bytes from files: control characters as \xNN, backslash
 * as \\, everything else as is. */
void cli_print_text(FILE *out, const void *text, size_t len);
void cli_print_name(FILE *out, const char *name);
/* text escaped as cli_print_text does (placer_escape) into buf, for a
 * message that quotes input; cut with "..." when it does not fit. */
const char *cli_escaped(char *buf, size_t cap, const char *text);

/* The whole of a file ("-": standard input) into *buf (free() it) and
 * *len, NUL-terminated for convenience. Returns CLI_OK, or prints
 * "placer CMD: PATH: reason" and returns CLI_BADINPUT (or CLI_FAILURE when
 * out of memory). */
int cli_read_file(const char *cmd, const char *path, char **buf, size_t *len);

/* Write len bytes to path crash-safe and hijack-safe (safe_write.c): "-"
 * is standard output; a symlink is followed (not one another user planted
 * in a sticky directory); a device, FIFO, socket or directory there, or a
 * file this run read (cli_note_input), is refused before anything is
 * written (CLI_USAGE). Otherwise a new file made with mkstemp (O_EXCL) in
 * the resolved path's directory, written, fsync'ed, given `mode` under the
 * umask, renamed over it, and the directory fsync'ed. A failure removes
 * the temporary file and leaves the target as it was. Returns CLI_OK, or
 * prints "placer CMD: PATH: reason" and returns CLI_USAGE or CLI_FAILURE. */
int cli_write_file_mode(const char *cmd, const char *path, const void *buf, size_t len,
                        mode_t mode);
/* What cli_write_file_mode checks first, for a command to check all its
 * outputs before writing any: CLI_OK, or the refusal said and its status. */
int cli_output_check(const char *cmd, const char *path);
/* A file this run reads (an open descriptor, or a path opened to look):
 * its inode is never an output. cli_read_file and cli_read_secret note
 * theirs. */
void cli_note_input(int fd);
void cli_note_input_path(const char *path);
/* Where summaries go: standard output, or standard error once an output
 * was written there ("-o -"). */
FILE *cli_report_stream(void);
/* cli_write_file_mode with 0666: the mode a plain create gives. Files that
 * hold a secret use 0600. */
int cli_write_file(const char *cmd, const char *path, const void *buf, size_t len);

/* Read and decode a snapshot file. Returns CLI_OK, or prints the error and
 * the decoder's reason and returns CLI_BADINPUT / CLI_FAILURE. */
int cli_load_snapshot(const char *cmd, const char *path, placer_snapshot **out);

/* Read the 128-bit placement secret from path (secret_file.c): 16 raw
 * bytes or 32 hex digits (and one newline), in a regular file that only
 * its owner may access. Returns CLI_OK, or prints why and returns
 * CLI_BADINPUT. */
int cli_read_secret(const char *cmd, const char *path, unsigned char secret[16]);
/* Why the membership document (text, len bytes) takes no secret: the
 * compat program it names, else key_hash "couchbase"; into out. */
void cli_why_no_secret(const char *text, size_t len, char *out, size_t cap);

/* previous_seed.c: does the membership document name a top-level "seed"?
 * And `build --previous`'s seed rule: without "seed" the builder takes
 * prev's seed; with another seed than prev's the build is refused (the
 * message on stderr, CLI_BADINPUT); keyed prev: nothing to do. */
int cli_membership_names_seed(const char *text, size_t len);
int cli_previous_seed(const char *cmd, const char *in, const char *prev_path, int names_seed,
                      placer_builder *b, const placer_snapshot *prev);

/* Encode s and write it to path (cli_write_file; mode 0600 when s holds a
 * secret). */
int cli_save_snapshot(const char *cmd, const char *path, const placer_snapshot *s);

/* Sampling where a strategy has no ranges (jump, rendezvous): positions
 * evenly spaced over the hash space, as many as fit a budget of
 * CLI_SAMPLE_BUDGET node scorings (rendezvous scores every node per
 * lookup, about 70 ns each on a 100,000-node snapshot on Zen 3; the others
 * count as 64), a power of two from CLI_SAMPLE_LEAST to `most`. b may be
 * NULL (one snapshot). So a diff or stats of 100,000 rendezvous nodes takes
 * about a second (128 positions), and says how many it looked at. */
#define CLI_SAMPLE_BUDGET 16777216.0 /* 2^24 */
#define CLI_SAMPLE_LEAST 64u
uint32_t cli_sample_size(const placer_snapshot *a, const placer_snapshot *b, uint32_t most);

/* What the registry says of a strategy (placer_strategy_describe): every
 * field 0 for an unknown id. The command asks this instead of comparing
 * strategy ids. */
placer_strategy_traits cli_strategy_traits(int strategy);

/* Half the width of the 95% confidence interval of a fraction p measured
 * at n positions (normal approximation; never below 1/n). */
double cli_confidence95(double p, uint32_t n);

/* A node's share of each key in s: exact for the range strategies (ring,
 * compat rings and tables, whose tokens sit in the same 64-bit space,
 * partitions with placer's hash, Maglev), counted over partitions for
 * Couchbase hashing, over buckets for jump, and measured at
 * cli_sample_size(s, NULL, 2^16) evenly spaced positions for rendezvous.
 * share[] has placer_node_count(s) entries. Returns the number of positions
 * measured (sampled), or 0 when the shares are exact. */
int cli_node_shares(const placer_snapshot *s, double *share);

/* The arguments of a command that takes one file and --json: CLI_OK,
 * CLI_OPT_HELP (usage printed) or CLI_USAGE after printing why. */
int cli_file_and_json(const char *cmd, int argc, char **argv, void (*usage)(FILE *),
                      const char **path, int *json);

/* ---- imports into compatibility modes (import_compat.c) ---- */

/* What an import command (import-twemproxy, -redis, -haproxy, -nginx) was
 * asked. */
typedef struct cli_import {
    const char *input, *output, *membership_out, *pool;
    const char *env_file; /* import-haproxy --env-file */
    const char *partitioner; /* import-kafka --partitioner */
    int resolve;          /* import-nginx --resolve */
    const char *doc_name; /* what messages call the membership the import wrote */
    uint64_t epoch;
    int has_epoch, json;
} cli_import;

enum {
    CLI_OPT_IMPORT_EPOCH = 768,
    CLI_OPT_IMPORT_MEMBERSHIP,
    CLI_OPT_IMPORT_JSON,
    CLI_OPT_IMPORT_POOL,
    CLI_OPT_IMPORT_ENV_FILE,
    CLI_OPT_IMPORT_RESOLVE,
    CLI_OPT_IMPORT_PARTITIONER,
};

/* The options every import takes; a command adds its NAME option (with
 * CLI_OPT_IMPORT_POOL) and {0}. */
#define CLI_IMPORT_OPTIONS                                                    \
    {"output", required_argument, NULL, 'o'},                                 \
        {"epoch", required_argument, NULL, CLI_OPT_IMPORT_EPOCH},             \
        {"membership-out", required_argument, NULL, CLI_OPT_IMPORT_MEMBERSHIP}, \
        {"json", no_argument, NULL, CLI_OPT_IMPORT_JSON}, CLI_HELP_OPTION

/* Their options (-o, --epoch, --membership-out, --json) and the one input
 * file into *im. Returns CLI_OK, CLI_OPT_HELP (usage printed) or
 * CLI_USAGE after saying why. */
int cli_import_options(const char *cmd, int argc, char **argv, const struct option *opts,
                       void (*usage)(FILE *), cli_import *im);

/* The membership document an import wrote (len bytes): saved to
 * --membership-out when asked, then, with -o, built as `placer build`
 * builds it (at --epoch, else the document's), saved and summarised.
 * Returns an exit status. */
int cli_import_membership(const char *cmd, const cli_import *im, const char *doc, size_t len);

/* The summary line (or --json document) of an imported snapshot. */
int cli_import_summary(const char *cmd, const cli_import *im, const placer_snapshot *s);

/* One import command: its library call, which writes the membership
 * document of the input (text, len: the file's contents; NULL, 0 when
 * by_path: the call reads im->input itself) with notes or the error in why. */
typedef struct cli_importer {
    const char *cmd;         /* "import-haproxy" */
    const char *doc_name;    /* what messages call the document */
    const char *name_option; /* "--backend": a required NAME; NULL: optional */
    int by_path;             /* the call takes the path (nginx: includes are relative to it) */
    const struct option *options;
    void (*usage)(FILE *);
    int (*membership)(const cli_import *im, const char *text, size_t len, char **doc,
                      size_t *doc_len, char *why, size_t why_len);
    /* optional: the snapshot straight from the input, used when no
     * --membership-out asks for the document's text */
    int (*import)(const cli_import *im, const char *text, size_t len, placer_snapshot **out,
                  char *why, size_t why_len);
} cli_importer;

/* The whole command: options, the input, the call; its error (with the
 * input's name unless by_path: the call's messages name their file) or
 * its notes on standard error; then cli_import_membership. Returns an exit
 * status. */
int cli_import_run(const cli_importer *imp, int argc, char **argv);

/* ---- how a snapshot places keys, in words (compat_output.c) ---- */

/* "ring", "partitions"...; for a compatibility mode the program and its
 * distribution ("twemproxy ketama", "redis"), written into buf. */
const char *cli_placement_name(const placer_snapshot *s, char *buf, size_t n);
/* The key hash's name: the program's own in a compatibility mode. */
const char *cli_key_hash_name(const placer_snapshot *s);
/* For a compat snapshot, "compat" and "distribution" (null when the
 * program has one) into a JSON document; nothing otherwise. */
void cli_compat_json(json_t *doc, const placer_snapshot *s);

/* Whether s is a program of fixed slots whose nodes may hold them only as
 * later copies (masters and replicas: Redis Cluster), as the program's
 * fields say (placer_compat_describe). */
int cli_compat_has_slots(const placer_snapshot *s);

/* ---- the etcd connection options of publish and watch (etcd_options.c) ---- */

typedef struct cli_etcd {
    const char *urls, *cacert, *cert, *cert_key, *user, *password_file;
    uint64_t timeout; /* ms; 0: the default */
} cli_etcd;

enum {
    CLI_OPT_ETCD = 512,
    CLI_OPT_TIMEOUT,
    CLI_OPT_CACERT,
    CLI_OPT_CERT,
    CLI_OPT_CERT_KEY,
    CLI_OPT_USER,
    CLI_OPT_PASSWORD_FILE,
    CLI_OPT_PASSWORD, /* refused: never from argv */
    CLI_OPT_ETCD_END
};

/* Their entries, for a command's struct option table. */
#define CLI_ETCD_OPTIONS                                                   \
    {"etcd", required_argument, NULL, CLI_OPT_ETCD},                       \
    {"timeout", required_argument, NULL, CLI_OPT_TIMEOUT},                 \
    {"cacert", required_argument, NULL, CLI_OPT_CACERT},                   \
    {"cert", required_argument, NULL, CLI_OPT_CERT},                       \
    {"cert-key", required_argument, NULL, CLI_OPT_CERT_KEY},               \
    {"user", required_argument, NULL, CLI_OPT_USER},                       \
    {"password-file", required_argument, NULL, CLI_OPT_PASSWORD_FILE},     \
    {"password", optional_argument, NULL, CLI_OPT_PASSWORD}

/* Their lines for a usage text. */
void cli_etcd_usage(FILE *out);

/* Take option c (CLI_OPT_ETCD .. CLI_OPT_ETCD_END-1) with its value arg.
 * Returns 0, or -1 after a one-line usage error (a bad --timeout). */
int cli_etcd_option(const char *cmd, int c, const char *arg, cli_etcd *o);

/* A config from the options (o->urls must be set), reading the password
 * from --password-file or PLACER_ETCD_PASSWORD (never argv). Returns
 * CLI_OK and *out (placer_etcd_config_free it), or prints why and returns
 * an exit status. */
int cli_etcd_config(const char *cmd, const cli_etcd *o, placer_etcd_config **out);

/* 1 when one of the --etcd URLs is http:// (no TLS). */
int cli_etcd_cleartext(const cli_etcd *o);

/* The exit status for an etcd error: CLI_BADINPUT for a key placer
 * refuses (PLACER_EINVAL), CLI_FAILURE for the environment (no member
 * answered, credentials or a certificate refused, permission denied). */
int cli_etcd_exit(int err);

/* ---- lines of standard input with a length cap (key_lines.c) ---- */

typedef struct cli_lines {
    FILE *f;
    char *buf;
    size_t cap, max, start, end;
    int eof, err;
} cli_lines;

/* What cli_lines_next found. */
#define CLI_LINE 1           /* *line, *len: the line without its newline, NUL-ended */
#define CLI_LINE_END 0       /* no more input */
#define CLI_LINE_TOO_LONG -1 /* a line longer than max bytes, skipped whole */
#define CLI_LINE_ERROR -2    /* a read error */

/* Read f's lines of at most max bytes (newline excluded) with one buffer
 * of max + 2 bytes or 1 MiB. Returns 0, or -1 when out of memory. */
int cli_lines_open(cli_lines *r, FILE *f, size_t max);
int cli_lines_next(cli_lines *r, char **line, size_t *len);
void cli_lines_close(cli_lines *r);

/* Seconds on a monotonic clock. */
double cli_now(void);

#endif
