/* ngx_http_upstream_placer_watch.c -- each worker's router, and the timer
 * that follows the snapshot file without a reload.
 *
 * The router is made after fork (init_process), so no RCU state crosses a
 * fork; liburcu-bp registers the worker's thread on its first read-side
 * section. The timer is the worker's own: every `check` milliseconds the
 * file is stat'ed, and a changed file (device, inode, size or mtime) is
 * read, decoded, verified and matched to the servers -- by a thread of the
 * upstream's thread pool when it has one (nginx built --with-threads, the
 * default pool unless thread_pool= names another or says off), so a large
 * file never stalls the event loop -- and then, back in the event loop,
 * published. A refused file is logged with its reason and the snapshot in
 * force stays; it is not read again until it changes. One reading at a
 * time: a check that comes while a thread still reads is skipped.
 *
 * Following etcd (etcd=), every check reads the key in a thread of the
 * pool (etcd.c), and the snapshot when the key changed; the event loop
 * swaps it in the same way. A snapshot of the epoch in force (a worker's
 * first read) is dropped silently; a
 * failure (etcd unreachable, a value refused) is logged with its reason
 * when it differs from the last one logged, or once a minute while it
 * repeats, and the snapshot in force stays. */
#include "ngx_http_upstream_placer.h"

#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
/* An etcd fetch's outcome before the swap: 1 when it is a snapshot to go
 * on with, 0 when it was logged (or not, rate limited) and is done. */
static int etcd_outcome(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_log_t *log, uint64_t current)
{
    ngx_http_upstream_placer_job_t *job = pcf->job;

    if (job->rc == NGX_ERROR) {
        /* a value refused is read once (the key is not read again until it
         * changes), so it is said every time; etcd giving no value is said
         * when the error changes, else once a RELOG period */
        time_t now = ngx_time();
        if (job->unread != 0 && job->unread == pcf->unread &&
            now - pcf->said_at < NGX_HTTP_UPSTREAM_PLACER_ETCD_RELOG) {
            pcf->quiet++;
            return 0;
        }
        ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: %s", job->why);
        if (pcf->quiet > 0) {
            ngx_log_error(NGX_LOG_ERR, log, 0,
                          "placer_hash: epoch %uL kept (%ui more failures since the last "
                          "message)",
                          current, pcf->quiet);
        } else {
            ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: epoch %uL kept", current);
        }
        pcf->unread = job->unread;
        pcf->said_at = now;
        pcf->quiet = 0;
        return 0;
    }
    if (pcf->unread != 0) {
        ngx_log_error(NGX_LOG_NOTICE, log, 0, "placer_hash: \"%V\" read again from %V",
                      &pcf->source, &pcf->etcd);
        pcf->unread = 0;
        pcf->quiet = 0;
    }
    if (job->rc == NGX_DECLINED) { /* the key unchanged */
        return 0;
    }
    uint64_t epoch = job->map->epoch;
    /* the epoch in force again (the worker's first read, or the same
     * snapshot put again): nothing to say; an older one goes on to be
     * refused with its reason, once (the key is not read again until it
     * changes) */
    if (epoch == current) {
        placer_snapshot_free(job->snap);
        ngx_free(job->map);
        job->snap = NULL;
        job->map = NULL;
        return 0;
    }
    return 1;
}
#endif

static void swap_in(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_log_t *log)
{
    ngx_http_upstream_placer_job_t *job = pcf->job;
    uint64_t current = placer_router_epoch(pcf->router);

#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
    if (pcf->etcd.len > 0 && !etcd_outcome(pcf, log, current)) {
        return;
    }
#endif
    if (job->rc == NGX_DECLINED) {
        return;
    }
    if (job->rc != NGX_OK) {
        if (job->why[0] != '\0') {
            ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: %s", job->why);
            ngx_log_error(NGX_LOG_ERR, log, 0, "placer_hash: epoch %uL kept", current);
        }
        return;
    }
    placer_snapshot *s = job->snap;
    ngx_http_upstream_placer_map_t *map = job->map;
    job->snap = NULL;
    job->map = NULL;
    if (map->epoch <= current) {
        ngx_log_error(NGX_LOG_WARN, log, 0,
                      "placer_hash: \"%V\" refused: epoch %uL is not newer than %uL (kept)",
                      &pcf->source, (uint64_t)map->epoch, current);
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
                  &pcf->source, (uint64_t)map->epoch, current);
}

static void rearm(ngx_http_upstream_placer_srv_conf_t *pcf)
{
    if (!ngx_exiting && !ngx_quit && !ngx_terminate && !pcf->timer.timer_set) {
        ngx_add_timer(&pcf->timer, pcf->check);
    }
}

#if (NGX_THREADS)
/* In a thread of the pool: touches the job, the path and the peers' names
 * (which no one changes after the configuration), nothing else. */
static void fetch_in_thread(void *data, ngx_log_t *log)
{
    (void)log;
    ngx_http_upstream_placer_fetch(data);
}

#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
/* The same for etcd: the fetch also reads the connection settings and the
 * key, which no one changes after the configuration. */
static void etcd_fetch_in_thread(void *data, ngx_log_t *log)
{
    (void)log;
    ngx_http_upstream_placer_etcd_fetch(data);
}
#endif

/* Back in the event loop, the thread done. */
static void fetched(ngx_event_t *ev)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = ev->data;

    pcf->busy = 0;
    if (pcf->router != NULL) {
        swap_in(pcf, ev->log);
    }
}
#endif

static void on_timer(ngx_event_t *ev)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = ev->data;

    if (pcf->busy) {
        rearm(pcf);
        return;
    }
#if (NGX_THREADS)
    if (pcf->thread_pool != NULL) {
        pcf->task->event.data = pcf;
        pcf->task->event.handler = fetched;
        pcf->task->handler = fetch_in_thread;
#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
        if (pcf->etcd.len > 0) {
            /* every check goes to a thread: the fetch is network I/O */
            pcf->task->handler = etcd_fetch_in_thread;
        } else
#endif
        /* the stat that finds most checks unchanged stays here; a changed
         * file goes to a thread */
        if (ngx_http_upstream_placer_unchanged(pcf->job)) {
            rearm(pcf);
            return;
        }
        if (ngx_thread_task_post(pcf->thread_pool, pcf->task) == NGX_OK) {
            pcf->busy = 1;
        }
        /* else the pool's queue is full (logged by nginx): next check */
        rearm(pcf);
        return;
    }
#endif
    ngx_http_upstream_placer_fetch(pcf->job);
    swap_in(pcf, ev->log);
    rearm(pcf);
}

ngx_int_t ngx_http_upstream_placer_start(ngx_http_upstream_placer_srv_conf_t *pcf,
                                         ngx_cycle_t *cycle)
{
    ngx_http_upstream_placer_job_t *job;

#if (NGX_THREADS)
    if (pcf->thread_pool != NULL) {
        pcf->task = ngx_thread_task_alloc(cycle->pool, sizeof *job);
        if (pcf->task == NULL) {
            return NGX_ERROR;
        }
        job = pcf->task->ctx;
        pcf->task->event.log = cycle->log;
    } else
#endif
    {
        job = ngx_pcalloc(cycle->pool, sizeof *job);
        if (job == NULL) {
            return NGX_ERROR;
        }
    }
    /* the bytes the configuration was checked with: a worker starts from
     * what nginx -t accepted, and its timer takes any newer file */
    job->pcf = pcf;
    job->stamp = pcf->stamp;
    job->buf = pcf->file;
    job->len = pcf->file_len;
    if (ngx_http_upstream_placer_load(job) != NGX_OK) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "placer_hash: %s", job->why);
        return NGX_ERROR;
    }
    job->buf = NULL;
    pcf->job = job;
    pcf->busy = 0;
    pcf->router = placer_router_new(job->snap);
    job->snap = NULL;
    if (pcf->router == NULL) {
        ngx_free(job->map);
        ngx_log_error(NGX_LOG_EMERG, cycle->log, 0, "placer_hash: placer_router_new failed");
        return NGX_ERROR;
    }
    pcf->map = job->map;
    job->map = NULL;

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
    /* a thread still reading (busy) finishes on its own; what it made is
     * dropped with the process */
    placer_router_free(pcf->router);
    pcf->router = NULL;
    ngx_free(pcf->map);
    pcf->map = NULL;
}
