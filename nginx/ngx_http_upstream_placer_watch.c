/* ngx_http_upstream_placer_watch.c -- each worker's router, and the timer
 * that follows the snapshot file without a reload.
 *
 * The router is made after fork (init_process), so no RCU state crosses a
 * fork; liburcu-bp registers the worker's thread on its first read-side
 * section. The timer is the worker's own: every `check` milliseconds it
 * stats the file, and a changed file (device, inode, size or mtime) is read,
 * decoded, verified against the servers and published. A refused file is
 * logged with its reason and the snapshot in force stays; it is not read
 * again until it changes. Reading happens in the event loop: snapshots of a
 * few MB read in well under a millisecond from the page cache. */
#include "ngx_http_upstream_placer.h"

static void swap_in(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_log_t *log, u_char *buf,
                    size_t len)
{
    placer_snapshot *s;
    ngx_http_upstream_placer_map_t *map;
    uint64_t current = placer_router_epoch(pcf->router);

    if (ngx_http_upstream_placer_load(pcf, log, NGX_LOG_ERR, buf, len, &s, &map) != NGX_OK) {
        ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: epoch %uL kept", current);
        return;
    }
    if (map->epoch <= current) {
        ngx_log_error(NGX_LOG_WARN, log, 0,
                      "placer_hash: \"%V\" refused: epoch %uL is not newer than %uL (kept)",
                      &pcf->path, (uint64_t)map->epoch, current);
        placer_snapshot_free(s);
        ngx_free(map);
        return;
    }
    /* The worker is one thread: no request reads pcf->map between these two
     * lines, and requests keep only peer indices, never the map. */
    if (placer_router_publish(pcf->router, s) != 0) {
        ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: publish of epoch %uL failed (kept %uL)",
                      (uint64_t)map->epoch, current);
        ngx_free(map);
        return;
    }
    ngx_free(pcf->map);
    pcf->map = map;
    ngx_log_error(NGX_LOG_NOTICE, log, 0, "placer_hash: \"%V\": epoch %uL in force (was %uL)",
                  &pcf->path, (uint64_t)map->epoch, current);
}

static void on_timer(ngx_event_t *ev)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = ev->data;
    u_char *buf;
    size_t len;

    if (ngx_http_upstream_placer_read(&pcf->path, ev->log, &pcf->stamp, &buf, &len) == NGX_OK) {
        swap_in(pcf, ev->log, buf, len);
        ngx_free(buf);
    }
    if (!ngx_exiting && !ngx_quit && !ngx_terminate) {
        ngx_add_timer(ev, pcf->check);
    }
}

ngx_int_t ngx_http_upstream_placer_start(ngx_http_upstream_placer_srv_conf_t *pcf,
                                         ngx_cycle_t *cycle)
{
    placer_snapshot *s;
    ngx_http_upstream_placer_map_t *map;

    /* the bytes the configuration was checked with: a worker starts from
     * what nginx -t accepted, and its timer takes any newer file */
    if (ngx_http_upstream_placer_load(pcf, cycle->log, NGX_LOG_EMERG, pcf->file, pcf->file_len,
                                      &s, &map) != NGX_OK) {
        return NGX_ERROR;
    }
    pcf->router = placer_router_new(s);
    if (pcf->router == NULL) {
        ngx_free(map);
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "placer_hash: placer_router_new failed");
        return NGX_ERROR;
    }
    pcf->map = map;

    ngx_memzero(&pcf->timer, sizeof pcf->timer);
    pcf->timer.handler = on_timer;
    pcf->timer.data = pcf;
    pcf->timer.log = cycle->log;
    pcf->timer.cancelable = 1;
    ngx_add_timer(&pcf->timer, pcf->check);
    return NGX_OK;
}

void ngx_http_upstream_placer_stop(ngx_http_upstream_placer_srv_conf_t *pcf)
{
    placer_router_free(pcf->router);
    pcf->router = NULL;
    ngx_free(pcf->map);
    pcf->map = NULL;
}
