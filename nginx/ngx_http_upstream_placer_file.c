/* ngx_http_upstream_placer_file.c -- a snapshot file read, decoded,
 * verified and matched to the upstream's servers.
 *
 * Every refusal names its reason: the file's (stat, open, read, size),
 * the decoder's (placer_snapshot_decode_ex checks magic, CRC-32C and every
 * count and offset in bounded work), or the first node no server matches. */
#include "ngx_http_upstream_placer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void stamp_of(const struct stat *st, ngx_http_upstream_placer_stamp_t *out)
{
    out->dev = st->st_dev;
    out->ino = st->st_ino;
    out->size = st->st_size;
    out->mtime = st->st_mtim.tv_sec;
    out->mtime_nsec = st->st_mtim.tv_nsec;
    out->err = 0;
}

static int stamp_equal(const ngx_http_upstream_placer_stamp_t *a,
                       const ngx_http_upstream_placer_stamp_t *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime == b->mtime &&
           a->mtime_nsec == b->mtime_nsec && a->err == b->err;
}

/* A failed stat or open is logged once, not at every check. */
static ngx_int_t failed(ngx_str_t *path, ngx_log_t *log, ngx_http_upstream_placer_stamp_t *stamp,
                        const char *what, int err)
{
    if (stamp->err != err) {
        ngx_log_error(NGX_LOG_ERR, log, err, "placer_hash: %s \"%V\" failed", what, path);
    }
    ngx_memzero(stamp, sizeof *stamp);
    stamp->err = err;
    return NGX_ERROR;
}

ngx_int_t ngx_http_upstream_placer_read(ngx_str_t *path, ngx_log_t *log,
                                        ngx_http_upstream_placer_stamp_t *stamp, u_char **buf,
                                        size_t *len)
{
    struct stat st;
    ngx_http_upstream_placer_stamp_t now;

    /* stat first: the common case, an unchanged file, opens nothing */
    if (stat((const char *)path->data, &st) != 0) {
        return failed(path, log, stamp, "stat()", errno);
    }
    stamp_of(&st, &now);
    if (stamp_equal(&now, stamp)) {
        return NGX_DECLINED;
    }

    int fd = open((const char *)path->data, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return failed(path, log, stamp, "open()", errno);
    }
    /* the stamp of what is read: the file may have been renamed over
     * between stat and open */
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return failed(path, log, stamp, "fstat()", err);
    }
    stamp_of(&st, stamp);
    if (st.st_size <= 0 || st.st_size > NGX_HTTP_UPSTREAM_PLACER_MAX_FILE) {
        close(fd);
        ngx_log_error(NGX_LOG_ERR, log, 0,
                      "placer_hash: \"%V\" refused: %O bytes (a snapshot has 1 to %d)", path,
                      st.st_size, NGX_HTTP_UPSTREAM_PLACER_MAX_FILE);
        return NGX_ERROR;
    }

    size_t want = (size_t)st.st_size, got = 0;
    u_char *p = ngx_alloc(want, log);
    if (p == NULL) {
        close(fd);
        return NGX_ERROR;
    }
    while (got < want) {
        ssize_t n = read(fd, p + got, want - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            ngx_log_error(NGX_LOG_ERR, log, n < 0 ? errno : 0,
                          "placer_hash: read() \"%V\" failed after %uz of %uz bytes", path, got,
                          want);
            ngx_free(p);
            close(fd);
            return NGX_ERROR;
        }
        got += (size_t)n;
    }
    close(fd);
    *buf = p;
    *len = want;
    return NGX_OK;
}

static int str_is(const ngx_str_t *s, const char *c)
{
    size_t n = c ? strlen(c) : 0;
    return n > 0 && s->len == n && ngx_strncmp(s->data, c, n) == 0;
}

/* The peer a node is: its address against each peer's resolved address
 * ("127.0.0.1:8081") and the server as written, then its id against the
 * server as written. NGX_ERROR when none matches. */
static ngx_int_t match_node(ngx_http_upstream_rr_peers_t *peers, const placer_snapshot *s,
                            uint32_t node)
{
    const char *address = placer_node_address(s, node);
    const char *id = placer_node_id(s, node);

    for (ngx_uint_t i = 0; i < peers->number; i++) {
        if (str_is(&peers->peer[i].name, address) || str_is(&peers->peer[i].server, address)) {
            return (ngx_int_t)i;
        }
    }
    for (ngx_uint_t i = 0; i < peers->number; i++) {
        if (str_is(&peers->peer[i].server, id)) {
            return (ngx_int_t)i;
        }
    }
    return NGX_ERROR;
}

ngx_int_t ngx_http_upstream_placer_load(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_log_t *log,
                                        ngx_uint_t level, const u_char *buf, size_t len,
                                        placer_snapshot **snap,
                                        ngx_http_upstream_placer_map_t **map)
{
    char why[256] = "";
    placer_snapshot *s = NULL;
    int rc = placer_snapshot_decode_ex(buf, len, &s, why, sizeof why);

    if (rc != 0) {
        ngx_log_error(level, log, 0, "placer_hash: \"%V\" refused: %s (%s)", &pcf->path,
                      placer_strerror(rc), why);
        return NGX_ERROR;
    }

    uint32_t nodes = placer_node_count(s);
    ngx_http_upstream_placer_map_t *m =
        ngx_alloc(sizeof *m + (nodes ? nodes - 1 : 0) * sizeof m->peer[0], log);
    if (m == NULL) {
        placer_snapshot_free(s);
        return NGX_ERROR;
    }
    m->epoch = placer_snapshot_epoch(s);
    m->nodes = nodes;
    for (uint32_t i = 0; i < nodes; i++) {
        ngx_int_t peer = match_node(pcf->peers, s, i);
        if (peer == NGX_ERROR) {
            const char *address = placer_node_address(s, i);
            ngx_log_error(level, log, 0,
                          "placer_hash: \"%V\" refused: epoch %uL: node \"%s\" (address "
                          "\"%s\") matches no server of upstream \"%V\"",
                          &pcf->path, (uint64_t)m->epoch, placer_node_id(s, i),
                          address ? address : "", &pcf->upstream->host);
            ngx_free(m);
            placer_snapshot_free(s);
            return NGX_ERROR;
        }
        m->peer[i] = (ngx_uint_t)peer;
    }
    *snap = s;
    *map = m;
    return NGX_OK;
}
