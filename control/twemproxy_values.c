/*
 * twemproxy_values.c -- see twemproxy_values.h. Numbers are nc_atoi's
 * (digits only, so no sign), booleans exactly "true" or "false", listen
 * conf_set_listen's "host:port" (cut at the last ':') or "/socket/path
 * [octal permissions]". nutcracker also resolves a listen host name;
 * placer does not look names up (placement does not depend on them), so a
 * name that does not resolve is imported here and refused there
 * (docs/COMPAT.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "twemproxy_values.h"

#define UNIX_PATH_MAX 108 /* sizeof sockaddr_un.sun_path: nc_resolve_unix's limit */

static const char *const numbers[] = {"timeout", "backlog", "client_connections", "redis_db",
                                      "server_connections", "server_retry_timeout",
                                      "server_failure_limit", NULL};
static const char *const booleans[] = {"redis", "tcpkeepalive", "preconnect", "auto_eject_hosts",
                                       NULL};

static int listed(const char *key, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(key, names[i]))
            return 1;
    return 0;
}

/* nc_atoi: 0 .. INT_MAX from digits only, else -1. */
static long long atoi_nc(const char *s, size_t n)
{
    long long v = 0;
    if (!n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
        if (v > 2147483647)
            return -1;
    }
    return v;
}

static int refuse(char *why, size_t n, const char *text)
{
    if (why && n)
        snprintf(why, n, "%s", text);
    return 1;
}

static int listen_refused(const char *v, size_t len, char *why, size_t n)
{
    if (v[0] == '/') {
        const char *sp = NULL;
        for (size_t i = len; i-- > 0;)
            if (v[i] == ' ') {
                sp = v + i;
                break;
            }
        size_t path = sp ? (size_t)(sp - v) : len;
        if (sp) {
            /* strtol as nutcracker calls it: base 8, what follows ignored */
            errno = 0;
            long perm = strtol(sp + 1, NULL, 8);
            if (errno || perm < 0 || perm > 0777)
                return refuse(why, n, "an invalid file permission in \"socket_path permission\" "
                                      "(nutcracker refuses it)");
        }
        if (path >= UNIX_PATH_MAX)
            return refuse(why, n, "a socket path of 108 bytes or more (nutcracker cannot "
                                  "listen on it)");
        return 0;
    }
    const char *colon = NULL;
    for (size_t i = len; i-- > 0;)
        if (v[i] == ':') {
            colon = v + i;
            break;
        }
    if (!colon)
        return refuse(why, n, "expected \"hostname:port\" or \"/socket/path [permissions]\"");
    if (colon == v)
        return refuse(why, n, "no host before the port (nutcracker cannot resolve it)");
    long long port = atoi_nc(colon + 1, len - (size_t)(colon + 1 - v));
    if (port < 1 || port > 65535)
        return refuse(why, n, "the port must be from 1 to 65535 (nutcracker refuses it)");
    return 0;
}

int tw_value_refused(const char *key, const char *v, size_t len, tw_pool *pool, char *why,
                     size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (listed(key, numbers)) {
        long long num = atoi_nc(v, len);
        if (num < 0)
            return refuse(why, why_len, "not a number (nutcracker takes digits only)");
        if (num == 0 && !strcmp(key, "server_connections"))
            return refuse(why, why_len, "cannot be 0 (nutcracker refuses it)");
        return 0;
    }
    if (listed(key, booleans)) {
        int yes = len == 4 && !memcmp(v, "true", 4), no = len == 5 && !memcmp(v, "false", 5);
        if (!yes && !no)
            return refuse(why, why_len, "not \"true\" or \"false\" (nutcracker takes no other "
                                        "spelling)");
        if (!strcmp(key, "redis"))
            pool->redis = yes;
        return 0;
    }
    if (!strcmp(key, "redis_auth")) {
        pool->redis_auth = 1;
        return 0;
    }
    if (!strcmp(key, "listen"))
        return listen_refused(v, len, why, why_len);
    return 0;
}
