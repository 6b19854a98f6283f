/* ngx_http_upstream_placer.h -- what the files of the placer upstream
 * module share: the upstream's configuration and per-worker state, the
 * node-to-peer map of one snapshot, the per-request balancer data.
 *
 * Each worker process owns a placer_router per upstream (made after fork,
 * in init_process), and a timer that rereads the snapshot file or fetches
 * the snapshot published under an etcd key (etcd.c, when the module is
 * built with libplacer-control: NGX_HTTP_UPSTREAM_PLACER_ETCD). A worker
 * is one thread: the map of the router's current snapshot is swapped in
 * the same event-loop step as the publish, so a request always reads a
 * snapshot and the map made for it together. */
#ifndef NGX_HTTP_UPSTREAM_PLACER_H
#define NGX_HTTP_UPSTREAM_PLACER_H

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <sys/stat.h>
#if (NGX_THREADS)
#include <ngx_thread_pool.h>
#endif

#include <placer.h>

/* At most this many candidates a request: the owner and its replicas. */
#define NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS 8
/* A snapshot file larger than this is refused before it is read. */
#define NGX_HTTP_UPSTREAM_PLACER_MAX_FILE (256 * 1024 * 1024)

/* Which file was read last: a changed device, inode, size or mtime is a
 * new file (an atomic rename changes the inode). */
typedef struct {
    dev_t dev;
    ino_t ino;
    off_t size;
    time_t mtime;
    long mtime_nsec;
    int err; /* errno of the last failed stat or open, 0 otherwise */
} ngx_http_upstream_placer_stamp_t;

/* Node index -> index in the upstream's peer array, for one snapshot. */
typedef struct {
    uint64_t epoch;
    uint32_t nodes;
    ngx_uint_t peer[1]; /* nodes entries */
} ngx_http_upstream_placer_map_t;

typedef struct ngx_http_upstream_placer_srv_conf_s ngx_http_upstream_placer_srv_conf_t;
typedef struct ngx_http_upstream_placer_job_s ngx_http_upstream_placer_job_t;
/* libplacer-control's connection settings (placer_control.h), opaque here
 * so that a module built without it compiles this header. */
struct placer_etcd_config;

/* etcd giving no value is logged again after this long when it lasts. */
#define NGX_HTTP_UPSTREAM_PLACER_ETCD_RELOG 60

struct ngx_http_upstream_placer_srv_conf_s {
    ngx_http_complex_value_t key;
    ngx_str_t path;  /* snapshot=FILE, or empty when following etcd */
    ngx_str_t source; /* what messages name: the file, or "etcd KEY" */
    ngx_msec_t check;
    /* etcd=URLS etcd_key=KEY etcd_timeout=TIME: the snapshot published
     * under KEY (docs/ETCD.md), fetched through libplacer-control */
    ngx_str_t etcd, etcd_key;
    ngx_msec_t etcd_timeout;
    struct placer_etcd_config *etcd_config;
    ngx_uint_t replicas;
    ngx_http_upstream_srv_conf_t *upstream;
    ngx_http_upstream_rr_peers_t *peers;
    /* the file as nginx -t and the master read it, decoded again in each
     * worker */
    u_char *file;
    size_t file_len;
    ngx_http_upstream_placer_stamp_t stamp;
#if (NGX_THREADS)
    /* where a changed file is read, decoded and matched: a thread of this
     * pool (NULL: the event loop, thread_pool=off) */
    ngx_thread_pool_t *thread_pool;
    ngx_thread_task_t *task;
#endif
    /* per worker, after fork */
    placer_router *router;
    ngx_http_upstream_placer_map_t *map;
    ngx_http_upstream_placer_job_t *job;
    ngx_uint_t busy; /* a thread is reading the file */
    ngx_event_t timer;
    /* etcd giving no value (unreachable, key missing, ...): logged when
     * the error changes, or once a RELOG period while it lasts */
    int unread;       /* the error of the last fetch that read nothing, 0: none */
    time_t said_at;   /* when it was last logged */
    ngx_uint_t quiet; /* failures not logged since */
};

/* One reading of the file: what the timer (or a thread of the pool) fills
 * and the event loop then logs and swaps in. */
struct ngx_http_upstream_placer_job_s {
    ngx_http_upstream_placer_srv_conf_t *pcf;
    ngx_http_upstream_placer_stamp_t stamp; /* of the last file read */
    ngx_int_t rc;
    /* an etcd fetch's error when etcd gave no value (unreachable, key
     * missing, credentials), 0 when it gave one (refused or taken) */
    int unread;
    /* etcd's modification revision of the key as last read (0: not yet):
     * an unchanged key is not read again (placer_etcd_fetch_changed) */
    int64_t revision;
    u_char *buf;
    size_t len;
    placer_snapshot *snap;
    ngx_http_upstream_placer_map_t *map;
    u_char why[512];
};

typedef enum { NGX_HTTP_PLACER_NONE, NGX_HTTP_PLACER_OWNER, NGX_HTTP_PLACER_REPLICA } ngx_http_upstream_placer_role_e;

/* The request's answer, for $placer_epoch and $placer_role. */
typedef struct {
    uint64_t epoch;
    ngx_http_upstream_placer_role_e role;
} ngx_http_upstream_placer_ctx_t;

extern ngx_module_t ngx_http_upstream_placer_module;

/* ngx_http_upstream_placer_file.c. Each function writes the reason of a
 * refusal into job->why and logs nothing itself, so a thread of a thread
 * pool can run it; the caller logs why (empty: nothing new to say). */

/* 1 when the file's stat() gives job->stamp again (or the error already
 * reported): no need to read it. */
int ngx_http_upstream_placer_unchanged(const ngx_http_upstream_placer_job_t *job);

/* Read job->pcf->path into job->buf, job->len (ngx_free it) and fill
 * job->stamp from the opened file. Returns NGX_OK, NGX_DECLINED when the
 * file's stamp equals job->stamp (nothing read), or NGX_ERROR. */
ngx_int_t ngx_http_upstream_placer_read(ngx_http_upstream_placer_job_t *job);

/* Decode and verify job->buf: a placer snapshot whose every node matches a
 * server of the upstream (by address, then by id). On NGX_OK job->snap and
 * job->map are the caller's (placer_snapshot_free, ngx_free). */
ngx_int_t ngx_http_upstream_placer_load(ngx_http_upstream_placer_job_t *job);

/* Match a decoded snapshot s (taken: freed on refusal, job->snap on
 * NGX_OK) to the upstream's servers and make its map (job->map): what a
 * file and an etcd fetch share after decoding. */
ngx_int_t ngx_http_upstream_placer_match(ngx_http_upstream_placer_job_t *job, placer_snapshot *s);

/* Read, then load when the file changed; job->rc tells which (NGX_OK: a
 * snapshot and map to swap in). job->buf is freed. */
void ngx_http_upstream_placer_fetch(ngx_http_upstream_placer_job_t *job);

#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
/* ngx_http_upstream_placer_etcd.c. The connection settings for the
 * upstream (freed with cf's pool), then the snapshot under the key fetched
 * now, encoded into pcf->file: what nginx -t and the master check, and
 * what each worker starts from. NGX_OK, or NGX_ERROR logged. */
ngx_int_t ngx_http_upstream_placer_etcd_init(ngx_conf_t *cf,
                                             ngx_http_upstream_placer_srv_conf_t *pcf);

/* Fetch the snapshot under the key (blocking: a thread of the pool runs
 * it) when the key changed, verify it and match it: job->rc NGX_OK
 * (job->snap, job->map), NGX_DECLINED (the key unchanged) or NGX_ERROR
 * with job->why and job->unread. */
void ngx_http_upstream_placer_etcd_fetch(ngx_http_upstream_placer_job_t *job);
#endif

/* ngx_http_upstream_placer_watch.c: the worker's router and file timer. */
ngx_int_t ngx_http_upstream_placer_start(ngx_http_upstream_placer_srv_conf_t *pcf,
                                         ngx_cycle_t *cycle);
void ngx_http_upstream_placer_stop(ngx_http_upstream_placer_srv_conf_t *pcf);

/* ngx_http_upstream_placer_peer.c: the balancer. */
ngx_int_t ngx_http_upstream_placer_init_peer(ngx_http_request_t *r,
                                             ngx_http_upstream_srv_conf_t *us);

#endif
