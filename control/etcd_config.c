/*
 * etcd_config.c -- placer_etcd_config: endpoints, timeout, TLS files and
 * etcd credentials, copied in and handed to every client made from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_alloc.h"
#include "etcd_client.h"

/* Overwrite then free a secret (volatile: the stores are not elided). */
static void free_secret(char *s)
{
    if (!s)
        return;
    for (volatile char *p = s; *p; p++)
        *p = '\0';
    placer_mem_free(s);
}

/* Replace *slot by a copy of value (NULL clears it). 0 or PLACER_ENOMEM. */
static int set_copy(char **slot, const char *value, int secret)
{
    char *copy = NULL;
    if (value && !(copy = plc_ctl_strdup(value)))
        return PLACER_ENOMEM;
    if (secret)
        free_secret(*slot);
    else
        placer_mem_free(*slot);
    *slot = copy;
    return 0;
}

int placer_etcd_config_new(const char *endpoints, long timeout_ms, placer_etcd_config **out)
{
    if (!endpoints || !out)
        return PLACER_ENULL;
    /* every endpoint must parse: the same rules as the client's */
    plc_etcd *probe;
    int err = plc_etcd_new(endpoints, timeout_ms, &probe);
    if (err)
        return err;
    plc_etcd_free(probe);
    placer_etcd_config *c = placer_mem_calloc(1, sizeof *c);
    if (!c || !(c->endpoints = plc_ctl_strdup(endpoints))) {
        placer_mem_free(c);
        return PLACER_ENOMEM;
    }
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : 5000;
    *out = c;
    return 0;
}

void placer_etcd_config_free(placer_etcd_config *c)
{
    if (!c)
        return;
    placer_mem_free(c->endpoints);
    placer_mem_free(c->cacert);
    placer_mem_free(c->cert);
    placer_mem_free(c->cert_key);
    placer_mem_free(c->user);
    free_secret(c->password);
    placer_mem_free(c);
}

/* 0 when path opens for reading; else PLACER_EINVAL with why. */
static int readable(const char *what, const char *path, char *why, size_t why_len)
{
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (path && !f) {
        plc_say(why, why_len, "cannot read the %s file '%s'", what, path);
        return PLACER_EINVAL;
    }
    if (f)
        fclose(f);
    return 0;
}

int placer_etcd_config_set_tls(placer_etcd_config *c, const char *cacert, const char *cert,
                               const char *cert_key, char *why, size_t why_len)
{
    if (why && why_len)
        why[0] = '\0';
    if (!c)
        return PLACER_ENULL;
    if (!cert != !cert_key) {
        plc_say(why, why_len, "%s", "a client certificate needs its key, and a key its certificate");
        return PLACER_EINVAL;
    }
    if (cacert || cert) {
        /* TLS files on a cleartext endpoint would be ignored without a word,
         * and the caller would believe the traffic protected */
        plc_etcd *probe;
        const char *url;
        int err = plc_etcd_new(c->endpoints, c->timeout_ms, &probe);
        if (err)
            return err;
        if (plc_etcd_cleartext(probe, &url)) {
            plc_say(why, why_len, "TLS files apply to https:// endpoints only; '%s' is http://", url);
            plc_etcd_free(probe);
            return PLACER_EINVAL;
        }
        plc_etcd_free(probe);
    }
    int err = readable("CA certificate", cacert, why, why_len);
    if (!err)
        err = readable("client certificate", cert, why, why_len);
    if (!err)
        err = readable("client key", cert_key, why, why_len);
    if (err)
        return err;
    placer_etcd_config copy = *c; /* all or nothing */
    copy.cacert = copy.cert = copy.cert_key = NULL;
    if (set_copy(&copy.cacert, cacert, 0) || set_copy(&copy.cert, cert, 0) ||
        set_copy(&copy.cert_key, cert_key, 0)) {
        placer_mem_free(copy.cacert);
        placer_mem_free(copy.cert);
        placer_mem_free(copy.cert_key);
        return PLACER_ENOMEM;
    }
    placer_mem_free(c->cacert);
    placer_mem_free(c->cert);
    placer_mem_free(c->cert_key);
    c->cacert = copy.cacert;
    c->cert = copy.cert;
    c->cert_key = copy.cert_key;
    return 0;
}

int placer_etcd_config_set_user(placer_etcd_config *c, const char *user, const char *password)
{
    if (!c || !user || !password)
        return PLACER_ENULL;
    if (!*user || !*password)
        return PLACER_EINVAL;
    char *u = NULL, *p = NULL;
    if (set_copy(&u, user, 0) || set_copy(&p, password, 1)) {
        placer_mem_free(u);
        return PLACER_ENOMEM;
    }
    placer_mem_free(c->user);
    free_secret(c->password);
    c->user = u;
    c->password = p;
    return 0;
}

int placer_etcd_config_allow_cleartext_secret(placer_etcd_config *c, int allow)
{
    if (!c)
        return PLACER_ENULL;
    c->allow_cleartext_secret = allow != 0;
    return 0;
}
