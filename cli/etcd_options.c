/*
 * etcd_options.c -- the connection options publish and watch share:
 * --etcd, --timeout, TLS files and etcd's user, whose password comes from
 * a file or the environment (PLACER_ETCD_PASSWORD), never from argv, where
 * any user of the machine can read it (ps, /proc/PID/cmdline).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_etcd_usage(FILE *out)
{
    fprintf(out,
            "  --etcd URLS          comma-separated etcd client URLs (http:// or https://)\n"
            "  --timeout MS         how long one call keeps trying members (default 5000)\n"
            "  --cacert FILE        PEM file of the CAs that sign the members' certificates\n"
            "  --cert FILE          PEM client certificate (members with --client-cert-auth)\n"
            "  --cert-key FILE      PEM private key of --cert\n"
            "                       (TLS files with an http:// endpoint: a usage error)\n"
            "  --user NAME          etcd user; the password is read from --password-file or\n"
            "                       from the environment variable PLACER_ETCD_PASSWORD\n"
            "  --password-file F    the first line of F is the password\n"
            "Refused credentials, certificates or permissions exit 3 with etcd's reason.\n");
}

int cli_etcd_option(const char *cmd, int c, const char *arg, cli_etcd *o)
{
    switch (c) {
    case CLI_OPT_ETCD: o->urls = arg; break;
    case CLI_OPT_CACERT: o->cacert = arg; break;
    case CLI_OPT_CERT: o->cert = arg; break;
    case CLI_OPT_CERT_KEY: o->cert_key = arg; break;
    case CLI_OPT_USER: o->user = arg; break;
    case CLI_OPT_PASSWORD_FILE: o->password_file = arg; break;
    case CLI_OPT_PASSWORD:
        /* (getopt_long would otherwise take --password as an abbreviation
         * of --password-file, and the password as a file name) */
        cli_usage_error(cmd, "no --password: a password on the command line is visible to "
                             "every user of the machine; use --password-file F or "
                             "PLACER_ETCD_PASSWORD");
        return -1;
    default: return cli_parse_u64(cmd, "--timeout", arg, 1, 3600000, &o->timeout);
    }
    return 0;
}

/* The password: the first line of the file, or the environment's. */
static char *password(const char *cmd, const cli_etcd *o)
{
    if (!o->password_file) {
        const char *env = getenv("PLACER_ETCD_PASSWORD");
        if (!env || !*env) {
            cli_usage_error(cmd, "--user needs a password: --password-file F or "
                                 "PLACER_ETCD_PASSWORD in the environment");
            return NULL;
        }
        char *p = strdup(env);
        if (!p)
            fprintf(stderr, "placer %s: out of memory\n", cmd);
        return p;
    }
    char *buf;
    size_t len;
    if (cli_read_file(cmd, o->password_file, &buf, &len))
        return NULL;
    size_t line = strcspn(buf, "\r\n");
    if (!line || memchr(buf, '\0', len)) {
        fprintf(stderr, "placer %s: %s: the first line must hold the password (no NUL)\n", cmd,
                o->password_file);
        memset(buf, 0, len);
        free(buf);
        return NULL;
    }
    memset(buf + line, 0, len - line);
    return buf;
}

/* The first http:// URL of the comma-separated list (its length in *len),
 * or NULL. */
static const char *cleartext_url(const char *urls, int *len)
{
    for (const char *p = urls; *p;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, ",");
        if (n >= 7 && !strncmp(p, "http://", 7)) {
            *len = (int)(n < 200 ? n : 200);
            return p;
        }
        p += n + (p[n] == ',');
    }
    return NULL;
}

int cli_etcd_cleartext(const cli_etcd *o)
{
    int len;
    return cleartext_url(o->urls, &len) != NULL;
}

int cli_etcd_config(const char *cmd, const cli_etcd *o, placer_etcd_config **out)
{
    int ulen;
    const char *url;
    if ((o->cacert || o->cert || o->cert_key) && (url = cleartext_url(o->urls, &ulen))) {
        cli_usage_error(cmd, "--cacert, --cert and --cert-key apply to https:// endpoints only; "
                             "'%.*s' is http:// (no TLS: the files would be ignored)", ulen, url);
        return CLI_USAGE;
    }
    if (o->password_file && !o->user) {
        cli_usage_error(cmd, "--password-file needs --user");
        return CLI_USAGE;
    }
    if (!o->cert != !o->cert_key) {
        cli_usage_error(cmd, "--cert and --cert-key go together");
        return CLI_USAGE;
    }
    placer_etcd_config *c;
    int err = placer_etcd_config_new(o->urls, (long)(o->timeout ? o->timeout : 5000), &c);
    if (err) {
        fprintf(stderr, "placer %s: --etcd '%s': %s (URLs start with http:// or https://)\n", cmd,
                o->urls, placer_strerror(err));
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_USAGE;
    }
    char why[300] = "";
    if ((o->cacert || o->cert) &&
        (err = placer_etcd_config_set_tls(c, o->cacert, o->cert, o->cert_key, why, sizeof why))) {
        fprintf(stderr, "placer %s: %s%s%s\n", cmd, placer_strerror(err), *why ? ": " : "", why);
        placer_etcd_config_free(c);
        return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_BADINPUT;
    }
    if (o->user) {
        char *pw = password(cmd, o);
        err = pw ? placer_etcd_config_set_user(c, o->user, pw) : PLACER_EINVAL;
        if (pw) {
            memset(pw, 0, strlen(pw));
            free(pw);
        }
        if (err) {
            if (pw)
                fprintf(stderr, "placer %s: --user: %s\n", cmd, placer_strerror(err));
            placer_etcd_config_free(c);
            return err == PLACER_ENOMEM ? CLI_FAILURE : CLI_USAGE;
        }
    }
    *out = c;
    return CLI_OK;
}

int cli_etcd_exit(int err)
{
    return err == PLACER_EINVAL ? CLI_BADINPUT : CLI_FAILURE;
}
