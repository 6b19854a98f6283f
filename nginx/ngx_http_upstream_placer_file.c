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

/* job->why, formatted as ngx_log_error formats (%V, %uz, ...). */
static void say(ngx_http_upstream_placer_job_t *job, const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    u_char *end = ngx_vslprintf(job->why, job->why + sizeof job->why - 1, fmt, args);
    va_end(args);
    *end = '\0';
}

/* Writes why into job->why (a thread pool thread may run this: it logs
 * nothing itself). A failed stat or open is reported once, not at every
 * check: the same error again leaves why empty. */
static ngx_int_t failed(ngx_http_upstream_placer_job_t *job, const char *what, int err)
{
    if (job->stamp.err != err) {
        u_char msg[NGX_MAX_ERROR_STR];
        u_char *end = ngx_strerror(err, msg, sizeof msg - 1);
        *end = '\0';
        say(job, "%s \"%V\" failed (%d: %s)", what,
                     &job->pcf->path, err, msg);
    }
    ngx_memzero(&job->stamp, sizeof job->stamp);
    job->stamp.err = err;
    return NGX_ERROR;
}

int ngx_http_upstream_placer_unchanged(const ngx_http_upstream_placer_job_t *job)
{
    struct stat st;
    ngx_http_upstream_placer_stamp_t now;

    if (stat((const char *)job->pcf->path.data, &st) != 0) {
        return errno == job->stamp.err;
    }
    stamp_of(&st, &now);
    return stamp_equal(&now, &job->stamp);
}

ngx_int_t ngx_http_upstream_placer_read(ngx_http_upstream_placer_job_t *job)
{
    struct stat st;
    ngx_http_upstream_placer_stamp_t now;
    const char *path = (const char *)job->pcf->path.data;

    job->why[0] = '\0';
    /* stat first: the common case, an unchanged file, opens nothing */
    if (stat(path, &st) != 0) {
        return failed(job, "stat()", errno);
    }
    stamp_of(&st, &now);
    if (stamp_equal(&now, &job->stamp)) {
        return NGX_DECLINED;
    }

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return failed(job, "open()", errno);
    }
    /* the stamp of what is read: the file may have been renamed over
     * between stat and open */
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return failed(job, "fstat()", err);
    }
    stamp_of(&st, &job->stamp);
    if (st.st_size <= 0 || st.st_size > NGX_HTTP_UPSTREAM_PLACER_MAX_FILE) {
        close(fd);
        say(job,
                     "\"%V\" refused: %O bytes (a snapshot has 1 to %d)", &job->pcf->path,
                     st.st_size, NGX_HTTP_UPSTREAM_PLACER_MAX_FILE);
        return NGX_ERROR;
    }

    size_t want = (size_t)st.st_size, got = 0;
    u_char *p = ngx_alloc(want, ngx_cycle->log);
    if (p == NULL) {
        close(fd);
        say(job, "\"%V\": no memory for %uz bytes",
                     &job->pcf->path, want);
        return NGX_ERROR;
    }
    while (got < want) {
        ssize_t n = read(fd, p + got, want - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            say(job,
                         "read() \"%V\" failed after %uz of %uz bytes (%d)", &job->pcf->path,
                         got, want, n < 0 ? errno : 0);
            ngx_free(p);
            close(fd);
            return NGX_ERROR;
        }
        got += (size_t)n;
    }
    close(fd);
    job->buf = p;
    job->len = want;
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

ngx_int_t ngx_http_upstream_placer_load(ngx_http_upstream_placer_job_t *job)
{
    char why[256] = "";
    placer_snapshot *s = NULL;
    int rc = placer_snapshot_decode_ex(job->buf, job->len, &s, why, sizeof why);

    if (rc != 0) {
        say(job, "\"%V\" refused: %s (%s)", &job->pcf->source,
                     placer_strerror(rc), why);
        return NGX_ERROR;
    }
    return ngx_http_upstream_placer_match(job, s);
}

ngx_int_t ngx_http_upstream_placer_match(ngx_http_upstream_placer_job_t *job, placer_snapshot *s)
{
    uint32_t nodes = placer_node_count(s);
    ngx_http_upstream_placer_map_t *m =
        ngx_alloc(sizeof *m + (nodes ? nodes - 1 : 0) * sizeof m->peer[0], ngx_cycle->log);
    if (m == NULL) {
        placer_snapshot_free(s);
        say(job, "\"%V\": no memory for the map",
                     &job->pcf->source);
        return NGX_ERROR;
    }
    m->epoch = placer_snapshot_epoch(s);
    m->nodes = nodes;
    for (uint32_t i = 0; i < nodes; i++) {
        ngx_int_t peer = match_node(job->pcf->peers, s, i);
        if (peer == NGX_ERROR) {
            const char *address = placer_node_address(s, i);
            say(job,
                         "\"%V\" refused: epoch %uL: node \"%s\" (address \"%s\") matches no "
                         "server of upstream \"%V\"",
                         &job->pcf->source, (uint64_t)m->epoch, placer_node_id(s, i),
                         address ? address : "", &job->pcf->upstream->host);
            ngx_free(m);
            placer_snapshot_free(s);
            return NGX_ERROR;
        }
        m->peer[i] = (ngx_uint_t)peer;
    }
    job->snap = s;
    job->map = m;
    return NGX_OK;
}

void ngx_http_upstream_placer_fetch(ngx_http_upstream_placer_job_t *job)
{
    job->snap = NULL;
    job->map = NULL;
    job->buf = NULL;
    job->rc = ngx_http_upstream_placer_read(job);
    if (job->rc == NGX_OK) {
        job->rc = ngx_http_upstream_placer_load(job);
        ngx_free(job->buf);
        job->buf = NULL;
    }
}
