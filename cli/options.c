/*
 * options.c -- every subcommand parses its options with getopt_long through
 * cli_getopt: one table per command gives the long names, and an entry
 * whose value is a printable character is also that short option. GNU
 * getopt permutes, so options may follow operands; "--" ends the options
 * and every argument after it is an operand, in order.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    /* the message quotes argv: escaped (placer_escape) before the terminal */
    char raw[1024], shown[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    cli_escaped(shown, sizeof shown, raw);
    fprintf(stderr, "placer %s: %s (see 'placer %s --help')\n", cmd, shown, cmd);
}

/* The short-option string getopt_long wants, from the table: ":" first
 * (a missing value returns ':'), then each printable val, with ':' when it
 * takes a value. */
static void short_options(const struct option *opts, char *buf, size_t cap)
{
    size_t n = 0;
    buf[n++] = ':';
    for (; opts->name && n + 3 < cap; opts++)
        if (opts->val > 0 && opts->val < 128 && isalnum(opts->val)) {
            buf[n++] = (char)opts->val;
            if (opts->has_arg == required_argument)
                buf[n++] = ':';
        }
    buf[n] = '\0';
}

static const struct option *by_val(const struct option *opts, int val)
{
    for (; opts->name; opts++)
        if (opts->val == val)
            return opts;
    return NULL;
}

int cli_getopt(const char *cmd, int argc, char **argv, const struct option *opts,
               void (*usage)(FILE *))
{
    char shorts[64];
    short_options(opts, shorts, sizeof shorts);
    opterr = 0; /* the messages below name the command and point at --help */
    int c = getopt_long(argc, argv, shorts, opts, NULL);
    if (c == 'h' && by_val(opts, 'h')) {
        usage(stdout);
        return CLI_OPT_HELP;
    }
    if (c != ':' && c != '?')
        return c;
    /* getopt_long has stepped past the offending element */
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    int is_long = arg[0] == '-' && arg[1] == '-';
    int name_len = (int)strcspn(arg, "=");
    const struct option *o = optopt ? by_val(opts, optopt) : NULL;
    if (c == ':' && is_long)
        cli_usage_error(cmd, "option '%.*s' needs a value", name_len, arg);
    else if (c == ':')
        cli_usage_error(cmd, "option '-%c' needs a value", optopt);
    else if (is_long && o && o->has_arg == no_argument && arg[name_len])
        cli_usage_error(cmd, "option '--%s' takes no value", o->name);
    else if (is_long)
        cli_usage_error(cmd, "unknown or ambiguous option '%.*s'", name_len, arg);
    else
        cli_usage_error(cmd, "unknown option '-%c'", optopt);
    return CLI_OPT_BAD;
}

int cli_parse_u64(const char *cmd, const char *what, const char *text, uint64_t min, uint64_t max,
                  uint64_t *out)
{
    size_t len = text ? strlen(text) : 0;
    int err = placer_parse_u64(text, len, min, max, out);
    if (err == PLACER_ERANGE)
        cli_usage_error(cmd, "%s: '%s' is outside %" PRIu64 "..%" PRIu64, what, text, min, max);
    else if (err)
        cli_usage_error(cmd, "%s: '%s': %s", what, text ? text : "",
                        placer_parse_u64_reason(text, len, err));
    return err ? -1 : 0;
}
