/* ngx_http_upstream_placer_peer.c -- the balancer: a request's key, its
 * owner and replicas under the snapshot in force, and the first of them
 * nginx may use.
 *
 * The candidates are fixed once a request (init_peer), from one snapshot:
 * a swap during the request changes nothing for it, and its epoch is the
 * one $placer_epoch logs. A candidate is skipped as nginx's round robin
 * skips a peer: marked down, tried already by this request, failed
 * max_fails times within fail_timeout, or at max_conns. The failure and
 * connection accounting is round robin's own (its free function, through
 * rrp.current), so proxy_next_upstream, max_fails and fail_timeout mean
 * what they mean for every other balancer. When every candidate is
 * skipped the request gets nginx's "no live upstreams" (502). */
#include "ngx_http_upstream_placer.h"

typedef struct {
    ngx_http_upstream_rr_peer_data_t rrp; /* first: round robin's data */
    ngx_http_upstream_placer_ctx_t *ctx;
    ngx_uint_t next;
    ngx_uint_t n;
    ngx_uint_t cand[NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS];
} placer_peer_data_t;

static int usable(ngx_http_upstream_rr_peer_t *peer, time_t now)
{
    if (peer->down) {
        return 0;
    }
    if (peer->max_fails && peer->fails >= peer->max_fails && now - peer->checked <= peer->fail_timeout) {
        return 0;
    }
    if (peer->max_conns && peer->conns >= peer->max_conns) {
        return 0;
    }
    return 1;
}

static ngx_int_t get_peer(ngx_peer_connection_t *pc, void *data)
{
    placer_peer_data_t *pd = data;
    ngx_http_upstream_rr_peers_t *peers = pd->rrp.peers;
    time_t now = ngx_time();

    pc->cached = 0;
    pc->connection = NULL;

    ngx_http_upstream_rr_peers_rlock(peers);
    for (; pd->next < pd->n; pd->next++) {
        ngx_uint_t i = pd->cand[pd->next];
        uintptr_t bit = (uintptr_t)1 << i % (8 * sizeof(uintptr_t));
        ngx_uint_t word = i / (8 * sizeof(uintptr_t));
        ngx_http_upstream_rr_peer_t *peer = &peers->peer[i];

        if (pd->rrp.tried[word] & bit) {
            continue;
        }
        ngx_http_upstream_rr_peer_lock(peers, peer);
        if (!usable(peer, now)) {
            ngx_http_upstream_rr_peer_unlock(peers, peer);
            continue;
        }
        if (now - peer->checked > peer->fail_timeout) {
            peer->checked = now;
        }
        pc->sockaddr = peer->sockaddr;
        pc->socklen = peer->socklen;
        pc->name = &peer->name;
        peer->conns++;
        ngx_http_upstream_rr_peer_unlock(peers, peer);
        ngx_http_upstream_rr_peers_unlock(peers);

        pd->rrp.current = peer;
        pd->rrp.tried[word] |= bit;
        pd->ctx->role = pd->next == 0 ? NGX_HTTP_PLACER_OWNER : NGX_HTTP_PLACER_REPLICA;
        pd->next++;
        return NGX_OK;
    }
    ngx_http_upstream_rr_peers_unlock(peers);

    pc->name = peers->name;
    return NGX_BUSY;
}

ngx_int_t ngx_http_upstream_placer_init_peer(ngx_http_request_t *r,
                                             ngx_http_upstream_srv_conf_t *us)
{
    ngx_http_upstream_placer_srv_conf_t *pcf =
        ngx_http_conf_upstream_srv_conf(us, ngx_http_upstream_placer_module);
    ngx_str_t key;

    if (pcf->router == NULL || pcf->map == NULL) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "placer_hash: no router in this process for upstream \"%V\"",
                      &us->host);
        return NGX_ERROR;
    }
    placer_peer_data_t *pd = ngx_palloc(r->pool, sizeof *pd);
    ngx_http_upstream_placer_ctx_t *ctx = ngx_http_get_module_ctx(r, ngx_http_upstream_placer_module);
    if (ctx == NULL) {
        ctx = ngx_pcalloc(r->pool, sizeof *ctx);
    }
    if (pd == NULL || ctx == NULL) {
        return NGX_ERROR;
    }
    ngx_http_set_ctx(r, ctx, ngx_http_upstream_placer_module);

    r->upstream->peer.data = &pd->rrp;
    if (ngx_http_upstream_init_round_robin_peer(r, us) != NGX_OK) {
        return NGX_ERROR;
    }
    r->upstream->peer.get = get_peer;

    if (ngx_http_complex_value(r, &pcf->key, &key) != NGX_OK) {
        return NGX_ERROR;
    }

    uint32_t nodes[NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS];
    const placer_snapshot *s = placer_router_acquire(pcf->router);
    int n = placer_replicas(s, key.data, key.len, nodes, (uint32_t)pcf->replicas);
    uint64_t epoch = placer_snapshot_epoch(s);
    placer_router_release(pcf->router, s);

    /* pcf->map belongs to the router's current snapshot: both are swapped
     * in one step of this (single-threaded) worker */
    pd->ctx = ctx;
    pd->next = 0;
    pd->n = 0;
    ctx->epoch = epoch;
    ctx->role = NGX_HTTP_PLACER_NONE;
    for (int i = 0; i < n; i++) {
        if (nodes[i] < pcf->map->nodes) {
            pd->cand[pd->n++] = pcf->map->peer[nodes[i]];
        }
    }
    return NGX_OK;
}
