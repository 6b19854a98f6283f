/* ngx_http_upstream_placer_etcd.c -- the snapshot published under an etcd
 * key (docs/ETCD.md: a manifest and its chunks, or a raw snapshot value),
 * fetched through libplacer-control's etcd client (libcurl).
 *
 * Compiled only into a module built with libplacer-control
 * (NGX_HTTP_UPSTREAM_PLACER_ETCD); libplacer itself links nothing more.
 * placer_etcd_fetch_changed reads the key's value (the manifest) and, when
 * the key changed since the last read, the snapshot, and decodes it
 * (magic, CRC-32C, every count and offset, as for a file); the snapshot is
 * then matched to the servers by the file's own code, and swapped in by
 * the worker's event loop as a file's is (watch.c). A fetch blocks for up to etcd_timeout: the master
 * runs the first at configuration time, workers run theirs in a thread of
 * the upstream's thread pool, never in the event loop. */
#include "ngx_http_upstream_placer.h"

#include <placer_control.h>

static void free_config(void *data)
{
    placer_etcd_config_free(data);
}

ngx_int_t ngx_http_upstream_placer_etcd_init(ngx_conf_t *cf,
                                             ngx_http_upstream_placer_srv_conf_t *pcf)
{
    char why[256] = "";
    placer_etcd_config *c = NULL;
    int rc = placer_etcd_config_new((const char *)pcf->etcd.data, (long)pcf->etcd_timeout, &c);

    if (rc != 0) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0,
                      "placer_hash: etcd=\"%V\": %s (comma-separated URLs, each http:// or "
                      "https://)",
                      &pcf->etcd, placer_strerror(rc));
        return NGX_ERROR;
    }
    ngx_pool_cleanup_t *cln = ngx_pool_cleanup_add(cf->pool, 0);
    if (cln == NULL) {
        placer_etcd_config_free(c);
        return NGX_ERROR;
    }
    cln->handler = free_config;
    cln->data = c;
    pcf->etcd_config = c;

    /* as placer publish checks a key (docs/ETCD.md) but for UTF-8: control
     * characters would go into every message naming it */
    if (pcf->etcd_key.len > PLACER_MAX_ETCD_KEY) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: etcd_key= of %uz bytes (at most %ui)",
                      pcf->etcd_key.len, (ngx_uint_t)PLACER_MAX_ETCD_KEY);
        return NGX_ERROR;
    }
    for (size_t i = 0; i < pcf->etcd_key.len; i++) {
        u_char c = pcf->etcd_key.data[i];
        if (c < 0x20 || c == 0x7f) {
            ngx_log_error(NGX_LOG_EMERG, cf->log, 0,
                          "placer_hash: etcd_key= holds a control character (byte %uz)", i);
            return NGX_ERROR;
        }
    }
    placer_snapshot *s = NULL;
    rc = placer_etcd_fetch_ex(c, (const char *)pcf->etcd_key.data, &s, why, sizeof why);
    if (rc != 0) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: \"%V\" at %V not taken: %s (%s)",
                      &pcf->source, &pcf->etcd, placer_strerror(rc), why);
        return NGX_ERROR;
    }
    ngx_http_upstream_placer_job_t job;
    ngx_memzero(&job, sizeof job);
    job.pcf = pcf;
    if (ngx_http_upstream_placer_match(&job, s) != NGX_OK) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: %s", job.why);
        return NGX_ERROR;
    }
    ngx_free(job.map);
    /* the bytes each worker starts from, as a file's (workers decode them
     * again after fork: no snapshot crosses a fork) */
    void *bytes = NULL;
    size_t len = 0;
    rc = placer_snapshot_encode(job.snap, &bytes, &len);
    placer_snapshot_free(job.snap);
    if (rc != 0) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: \"%V\": encode: %s", &pcf->source,
                      placer_strerror(rc));
        return NGX_ERROR;
    }
    pcf->file = ngx_pnalloc(cf->pool, len);
    if (pcf->file != NULL) {
        ngx_memcpy(pcf->file, bytes, len);
        pcf->file_len = len;
    }
    placer_buffer_free(bytes);
    return pcf->file != NULL ? NGX_OK : NGX_ERROR;
}

void ngx_http_upstream_placer_etcd_fetch(ngx_http_upstream_placer_job_t *job)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = job->pcf;
    char why[256] = "";
    placer_snapshot *s = NULL;

    job->snap = NULL;
    job->map = NULL;
    job->why[0] = '\0';
    int rc = placer_etcd_fetch_changed(pcf->etcd_config, (const char *)pcf->etcd_key.data,
                                       &job->revision, &s, why, sizeof why);
    if (rc == 0 && s == NULL) {
        job->rc = NGX_DECLINED;
        return;
    }
    if (rc != 0) {
        /* "refused" for a value etcd gave, "not read" when it gave none
         * (the errors that leave job->revision as it was) */
        int value = rc != PLACER_EUNAVAIL && rc != PLACER_EMISSING && rc != PLACER_EAUTH &&
                    rc != PLACER_ECOMPACTED && rc != PLACER_ENOMEM;
        u_char *end = ngx_snprintf(job->why, sizeof job->why - 1, "\"%V\" at %V %s: %s (%s)",
                                   &pcf->source, &pcf->etcd, value ? "refused" : "not read",
                                   placer_strerror(rc), why);
        *end = '\0';
        job->unread = value ? 0 : rc;
        job->rc = NGX_ERROR;
        return;
    }
    job->unread = 0;
    job->rc = ngx_http_upstream_placer_match(job, s);
}
