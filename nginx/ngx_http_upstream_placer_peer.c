/* ngx_http_upstream_placer_peer.c -- the balancer: a request's key, its
 * owner and replicas under the snapshot in force, and the first of them
 * nginx may use.
 *
 * A request starts with its key's owner alone (init_peer), under the
 * snapshot in force then, whose epoch $placer_epoch logs: most requests
 * are served by it, so the replica walk is left to the rare retry. When
 * the owner cannot serve, get_peer walks the key's whole set from the
 * snapshot in force at that moment: the same snapshot, unless a swap came
 * in between, in which case the new epoch places the rest of the request
 * (and is the one logged). A candidate is skipped as nginx's round robin
 * skips a peer: marked down, tried already by this request, failed
 * max_fails times within fail_timeout, or at max_conns. The failure and
 * connection accounting is round robin's own (its free function, through
 * rrp.current), so proxy_next_upstream, max_fails and fail_timeout mean
 * what they mean for every other balancer. When every candidate is
 * skipped the request gets nginx's "no live upstreams" (502). */
#include "ngx_http_upstream_placer.h"

typedef struct {
    ngx_http_upstream_rr_peer_data_t rrp; /* first: round robin's data */
    ngx_http_upstream_placer_srv_conf_t *pcf;
    ngx_http_upstream_placer_ctx_t ctx; /* the request's module context */
    ngx_str_t key;
    ngx_uint_t next;     /* the candidate get_peer considers next */
    ngx_uint_t n;        /* candidates known: the owner, or the whole set */
    ngx_uint_t complete; /* cand holds the whole set */
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

/* The key's whole set, when the owner could not serve: from the snapshot
 * in force now. Under the request's own epoch the owner is cand[0] again
 * and the walk goes on at its first replica; after a swap the set is the
 * new epoch's, the walk starts again at its owner (servers this request
 * tried are skipped by rrp.tried) and the request is logged with it. */
static void complete_set(placer_peer_data_t *pd)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = pd->pcf;
    uint32_t nodes[NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS];
    const placer_snapshot *s = placer_router_acquire(pcf->router);
    int n = placer_replicas(s, pd->key.data, pd->key.len, nodes, (uint32_t)pcf->replicas);
    placer_router_release(pcf->router, s);

    pd->complete = 1;
    if (n <= 0) {
        return;
    }
    /* pcf->map is the map of the snapshot just read (swapped together) */
    pd->next = pcf->map->epoch == pd->ctx.epoch ? 1 : 0;
    pd->ctx.epoch = pcf->map->epoch;
    pd->n = 0;
    for (int i = 0; i < n; i++) {
        if (nodes[i] < pcf->map->nodes) {
            pd->cand[pd->n++] = pcf->map->peer[nodes[i]];
        }
    }
}

static ngx_int_t get_peer(ngx_peer_connection_t *pc, void *data)
{
    placer_peer_data_t *pd = data;
    ngx_http_upstream_rr_peers_t *peers = pd->rrp.peers;
    time_t now = ngx_time();

    pc->cached = 0;
    pc->connection = NULL;

    ngx_http_upstream_rr_peers_rlock(peers);
    for (;;) {
        if (pd->next >= pd->n) {
            if (pd->complete) {
                break;
            }
            complete_set(pd);
            continue;
        }
        ngx_uint_t i = pd->cand[pd->next];
        uintptr_t bit = (uintptr_t)1 << i % (8 * sizeof(uintptr_t));
        ngx_uint_t word = i / (8 * sizeof(uintptr_t));
        ngx_http_upstream_rr_peer_t *peer = &peers->peer[i];

        if (pd->rrp.tried[word] & bit) {
            pd->next++;
            continue;
        }
        ngx_http_upstream_rr_peer_lock(peers, peer);
        if (!usable(peer, now)) {
            ngx_http_upstream_rr_peer_unlock(peers, peer);
            pd->next++;
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
        pd->ctx.role = pd->next == 0 ? NGX_HTTP_PLACER_OWNER : NGX_HTTP_PLACER_REPLICA;
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

    if (pcf->router == NULL || pcf->map == NULL) {
        ngx_log_error(NGX_LOG_ALERT, r->connection->log, 0,
                      "placer_hash: no router in this process for upstream \"%V\"",
                      &us->host);
        return NGX_ERROR;
    }
    placer_peer_data_t *pd = ngx_palloc(r->pool, sizeof *pd);
    if (pd == NULL) {
        return NGX_ERROR;
    }
    r->upstream->peer.data = &pd->rrp;
    if (ngx_http_upstream_init_round_robin_peer(r, us) != NGX_OK) {
        return NGX_ERROR;
    }
    r->upstream->peer.get = get_peer;
    if (ngx_http_complex_value(r, &pcf->key, &pd->key) != NGX_OK) {
        return NGX_ERROR;
    }

    /* The owner only: most requests need no more. Its replicas are
     * walked when a retry needs them (complete_set). */
    const placer_snapshot *s = placer_router_acquire(pcf->router);
    int owner = placer_lookup(s, pd->key.data, pd->key.len);
    placer_router_release(pcf->router, s);

    /* pcf->map belongs to the router's current snapshot: both are swapped
     * in one step of this (single-threaded) worker */
    pd->pcf = pcf;
    pd->ctx.epoch = pcf->map->epoch;
    pd->ctx.role = NGX_HTTP_PLACER_NONE;
    pd->next = 0;
    pd->n = 0;
    pd->complete = pcf->replicas == 1;
    if (owner >= 0 && (uint32_t)owner < pcf->map->nodes) {
        pd->cand[pd->n++] = pcf->map->peer[owner];
    }
    ngx_http_set_ctx(r, &pd->ctx, ngx_http_upstream_placer_module);
    return NGX_OK;
}
