/* ngx_http_upstream_placer.h -- what the files of the placer upstream
 * module share: the upstream's configuration and per-worker state, the
 * node-to-peer map of one snapshot, the per-request balancer data.
 *
 * Each worker process owns a placer_router per upstream (made after fork,
 * in init_process), and a timer that rereads the snapshot file. A worker
 * is one thread: the map of the router's current snapshot is swapped in
 * the same event-loop step as the publish, so a request always reads a
 * snapshot and the map made for it together. */
#ifndef NGX_HTTP_UPSTREAM_PLACER_H
#define NGX_HTTP_UPSTREAM_PLACER_H

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <sys/stat.h>

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

typedef struct {
    ngx_http_complex_value_t key;
    ngx_str_t path;
    ngx_msec_t check;
    ngx_uint_t replicas;
    ngx_http_upstream_srv_conf_t *upstream;
    ngx_http_upstream_rr_peers_t *peers;
    /* the file as nginx -t and the master read it, decoded again in each
     * worker */
    u_char *file;
    size_t file_len;
    ngx_http_upstream_placer_stamp_t stamp;
    /* per worker, after fork */
    placer_router *router;
    ngx_http_upstream_placer_map_t *map;
    ngx_event_t timer;
} ngx_http_upstream_placer_srv_conf_t;

typedef enum { NGX_HTTP_PLACER_NONE, NGX_HTTP_PLACER_OWNER, NGX_HTTP_PLACER_REPLICA } ngx_http_upstream_placer_role_e;

/* The request's answer, for $placer_epoch and $placer_role. */
typedef struct {
    uint64_t epoch;
    ngx_http_upstream_placer_role_e role;
} ngx_http_upstream_placer_ctx_t;

extern ngx_module_t ngx_http_upstream_placer_module;

/* ngx_http_upstream_placer_file.c: read path into a malloc'ed buffer
 * (*buf, *len; ngx_free it) and fill *stamp from the opened file. Returns
 * NGX_OK, NGX_DECLINED when the file's stamp equals *stamp (nothing read),
 * or NGX_ERROR with the reason logged. */
ngx_int_t ngx_http_upstream_placer_read(ngx_str_t *path, ngx_log_t *log,
                                        ngx_http_upstream_placer_stamp_t *stamp, u_char **buf,
                                        size_t *len);

/* Decode and verify buf: a placer snapshot whose every node matches a
 * server of the upstream (by address, then by id). On NGX_OK *snap and
 * *map are the caller's (placer_snapshot_free, ngx_free); NGX_ERROR logs
 * why at level. */
ngx_int_t ngx_http_upstream_placer_load(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_log_t *log,
                                        ngx_uint_t level, const u_char *buf, size_t len,
                                        placer_snapshot **snap,
                                        ngx_http_upstream_placer_map_t **map);

/* ngx_http_upstream_placer_watch.c: the worker's router and file timer. */
ngx_int_t ngx_http_upstream_placer_start(ngx_http_upstream_placer_srv_conf_t *pcf,
                                         ngx_cycle_t *cycle);
void ngx_http_upstream_placer_stop(ngx_http_upstream_placer_srv_conf_t *pcf);

/* ngx_http_upstream_placer_peer.c: the balancer. */
ngx_int_t ngx_http_upstream_placer_init_peer(ngx_http_request_t *r,
                                             ngx_http_upstream_srv_conf_t *us);

#endif
