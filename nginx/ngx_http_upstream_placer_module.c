/* ngx_http_upstream_placer_module.c -- the module: its directives, the
 * configuration-time check of the snapshot file, the per-worker start and
 * stop, and the variables $placer_epoch and $placer_role.
 *
 *   upstream cache {
 *       placer_hash $request_uri snapshot=/etc/placer/cache.snap check=1s;
 *       placer_replicas 2;
 *       server 10.0.0.1:80 max_fails=1 fail_timeout=10s;
 *       ...
 *   }
 *
 * or, with the module built with libplacer-control, the snapshot
 * published under an etcd key (docs/ETCD.md, `placer publish`):
 *
 *       placer_hash $request_uri etcd=http://127.0.0.1:2379 etcd_key=/placer/cache;
 *
 * The file (or the key) is read and verified at configuration time, so
 * `nginx -t` refuses a bad one with its reason; workers then follow it
 * (watch.c). */
#include "ngx_http_upstream_placer.h"

static ngx_int_t init_upstream(ngx_conf_t *cf, ngx_http_upstream_srv_conf_t *us)
{
    ngx_http_upstream_placer_srv_conf_t *pcf =
        ngx_http_conf_upstream_srv_conf(us, ngx_http_upstream_placer_module);

    if (ngx_http_upstream_init_round_robin(cf, us) != NGX_OK) {
        return NGX_ERROR;
    }
    us->peer.init = ngx_http_upstream_placer_init_peer;
    pcf->upstream = us;
    pcf->peers = us->peer.data;
    ngx_conf_init_uint_value(pcf->replicas, 2);
    ngx_conf_init_msec_value(pcf->check, 1000);
    ngx_conf_init_msec_value(pcf->etcd_timeout, 5000);

#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
    if (pcf->etcd.len > 0) {
        return ngx_http_upstream_placer_etcd_init(cf, pcf);
    }
#endif
    ngx_http_upstream_placer_job_t job;
    ngx_memzero(&job, sizeof job);
    job.pcf = pcf;
    if (ngx_http_upstream_placer_read(&job) != NGX_OK) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: %s", job.why);
        return NGX_ERROR;
    }
    if (ngx_http_upstream_placer_load(&job) != NGX_OK) {
        ngx_log_error(NGX_LOG_EMERG, cf->log, 0, "placer_hash: %s", job.why);
        ngx_free(job.buf);
        return NGX_ERROR;
    }
    placer_snapshot_free(job.snap);
    ngx_free(job.map);
    pcf->stamp = job.stamp;
    pcf->file = ngx_pnalloc(cf->pool, job.len);
    if (pcf->file == NULL) {
        ngx_free(job.buf);
        return NGX_ERROR;
    }
    ngx_memcpy(pcf->file, job.buf, job.len);
    pcf->file_len = job.len;
    ngx_free(job.buf);
    return NGX_OK;
}

/* value[i] after prefix, as a NUL-terminated copy in *out: 1 when value[i]
 * starts with prefix (and something follows), 0 when not, -1 without
 * memory. */
static int param(ngx_conf_t *cf, const ngx_str_t *v, const char *prefix, ngx_str_t *out)
{
    size_t n = ngx_strlen(prefix);

    if (v->len <= n || ngx_strncmp(v->data, prefix, n) != 0) {
        return 0;
    }
    out->len = v->len - n;
    out->data = ngx_pnalloc(cf->pool, out->len + 1);
    if (out->data == NULL) {
        return -1;
    }
    ngx_memcpy(out->data, v->data + n, out->len);
    out->data[out->len] = '\0';
    return 1;
}

/* A time (milliseconds, above 0) after prefix: 1 and *out when value
 * starts with prefix, 0 when not, -1 (logged) when the time is invalid. */
static int time_param(ngx_conf_t *cf, const ngx_str_t *v, const char *prefix, ngx_msec_t *out)
{
    size_t n = ngx_strlen(prefix);

    if (v->len < n || ngx_strncmp(v->data, prefix, n) != 0) {
        return 0;
    }
    ngx_str_t t = {v->len - n, v->data + n};
    *out = ngx_parse_time(&t, 0);
    if (*out == (ngx_msec_t)NGX_ERROR || *out == 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid %*s time \"%V\"", n - 1, prefix, &t);
        return -1;
    }
    return 1;
}

static char *set_hash(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = conf;
    ngx_str_t *value = cf->args->elts;
    ngx_http_compile_complex_value_t ccv;

    (void)cmd;
    if (pcf->source.data != NULL) {
        return "is duplicate";
    }
    ngx_memzero(&ccv, sizeof ccv);
    ccv.cf = cf;
    ccv.value = &value[1];
    ccv.complex_value = &pcf->key;
    if (ngx_http_compile_complex_value(&ccv) != NGX_OK) {
        return NGX_CONF_ERROR;
    }
    ngx_str_t pool = ngx_string("default");
    for (ngx_uint_t i = 2; i < cf->args->nelts; i++) {
        int got;
        if ((got = param(cf, &value[i], "etcd=", &pcf->etcd)) != 0 ||
            (got = param(cf, &value[i], "etcd_key=", &pcf->etcd_key)) != 0) {
            if (got < 0) {
                return NGX_CONF_ERROR;
            }
        } else if ((got = time_param(cf, &value[i], "etcd_timeout=", &pcf->etcd_timeout)) != 0 ||
                   (got = time_param(cf, &value[i], "check=", &pcf->check)) != 0) {
            if (got < 0) {
                return NGX_CONF_ERROR;
            }
        } else if (ngx_strncmp(value[i].data, "snapshot=", 9) == 0 && value[i].len > 9) {
            pcf->path.data = value[i].data + 9;
            pcf->path.len = value[i].len - 9;
            /* relative to nginx's prefix, NUL-terminated for stat() */
            if (ngx_conf_full_name(cf->cycle, &pcf->path, 1) != NGX_OK) {
                return NGX_CONF_ERROR;
            }
        } else if (ngx_strncmp(value[i].data, "thread_pool=", 12) == 0 && value[i].len > 12) {
            pool.data = value[i].data + 12;
            pool.len = value[i].len - 12;
        } else {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "invalid parameter \"%V\"", &value[i]);
            return NGX_CONF_ERROR;
        }
    }
    if ((pcf->path.data == NULL) == (pcf->etcd.data == NULL)) {
        return "needs snapshot=FILE or etcd=URLS etcd_key=KEY (one of them)";
    }
    if (pcf->path.data != NULL) {
        if (pcf->etcd_key.data != NULL || pcf->etcd_timeout != NGX_CONF_UNSET_MSEC) {
            return "takes etcd_key= and etcd_timeout= only with etcd=";
        }
        pcf->source = pcf->path;
    } else {
#if (NGX_HTTP_UPSTREAM_PLACER_ETCD)
        if (pcf->etcd_key.data == NULL) {
            return "needs etcd_key=KEY with etcd=";
        }
        /* the fetch blocks on the network: never in the event loop */
        if (pool.len == 3 && ngx_strncmp(pool.data, "off", 3) == 0) {
            return "cannot follow etcd= with thread_pool=off (the fetch would block the worker)";
        }
#if !(NGX_THREADS)
        return "etcd= needs nginx built --with-threads (the fetch runs in a thread pool)";
#endif
        pcf->source.len = sizeof "etcd " - 1 + pcf->etcd_key.len;
        pcf->source.data = ngx_pnalloc(cf->pool, pcf->source.len);
        if (pcf->source.data == NULL) {
            return NGX_CONF_ERROR;
        }
        ngx_sprintf(pcf->source.data, "etcd %V", &pcf->etcd_key);
#else
        return "etcd= needs the module built with libplacer-control (docs/NGINX.md)";
#endif
    }
    /* a changed file is read by a thread of this pool (thread pools are
     * made per worker; "default" has 32 threads unless a thread_pool
     * directive says otherwise) */
    if (!(pool.len == 3 && ngx_strncmp(pool.data, "off", 3) == 0)) {
#if (NGX_THREADS)
        pcf->thread_pool = ngx_thread_pool_add(cf, &pool);
        if (pcf->thread_pool == NULL) {
            return NGX_CONF_ERROR;
        }
#else
        if (pool.data != (u_char *)"default") {
            return "thread_pool= needs nginx built --with-threads";
        }
#endif
    }

    ngx_http_upstream_srv_conf_t *uscf = ngx_http_conf_get_module_srv_conf(cf, ngx_http_upstream_module);
    if (uscf->peer.init_upstream) {
        ngx_conf_log_error(NGX_LOG_WARN, cf, 0, "load balancing method redefined");
    }
    /* no backup: a snapshot names every server a key may go to; no
     * weight=: the snapshot's weights place keys, a server's would be
     * silently ignored */
    uscf->flags = NGX_HTTP_UPSTREAM_CREATE | NGX_HTTP_UPSTREAM_MAX_CONNS | NGX_HTTP_UPSTREAM_MAX_FAILS |
                  NGX_HTTP_UPSTREAM_FAIL_TIMEOUT | NGX_HTTP_UPSTREAM_DOWN;
    uscf->peer.init_upstream = init_upstream;
    return NGX_CONF_OK;
}

static char *set_replicas(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = conf;
    ngx_str_t *value = cf->args->elts;

    (void)cmd;
    if (pcf->replicas != NGX_CONF_UNSET_UINT) {
        return "is duplicate";
    }
    ngx_int_t n = ngx_atoi(value[1].data, value[1].len);
    if (n < 1 || n > NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "placer_replicas \"%V\": the owner and its replicas, 1 to %d",
                           &value[1], NGX_HTTP_UPSTREAM_PLACER_MAX_REPLICAS);
        return NGX_CONF_ERROR;
    }
    pcf->replicas = (ngx_uint_t)n;
    return NGX_CONF_OK;
}

static ngx_command_t commands[] = {
    {ngx_string("placer_hash"), NGX_HTTP_UPS_CONF | NGX_CONF_1MORE, set_hash,
     NGX_HTTP_SRV_CONF_OFFSET, 0, NULL},
    {ngx_string("placer_replicas"), NGX_HTTP_UPS_CONF | NGX_CONF_TAKE1, set_replicas,
     NGX_HTTP_SRV_CONF_OFFSET, 0, NULL},
    ngx_null_command};

static ngx_int_t epoch_variable(ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_http_upstream_placer_ctx_t *ctx = ngx_http_get_module_ctx(r, ngx_http_upstream_placer_module);

    (void)data;
    if (ctx == NULL) {
        v->not_found = 1;
        return NGX_OK;
    }
    u_char *p = ngx_pnalloc(r->pool, NGX_INT64_LEN);
    if (p == NULL) {
        return NGX_ERROR;
    }
    v->len = ngx_sprintf(p, "%uL", (uint64_t)ctx->epoch) - p;
    v->data = p;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    return NGX_OK;
}

static ngx_int_t role_variable(ngx_http_request_t *r, ngx_http_variable_value_t *v, uintptr_t data)
{
    ngx_http_upstream_placer_ctx_t *ctx = ngx_http_get_module_ctx(r, ngx_http_upstream_placer_module);

    (void)data;
    if (ctx == NULL || ctx->role == NGX_HTTP_PLACER_NONE) {
        v->not_found = 1;
        return NGX_OK;
    }
    v->data = (u_char *)(ctx->role == NGX_HTTP_PLACER_OWNER ? "owner" : "replica");
    v->len = ngx_strlen(v->data);
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    return NGX_OK;
}

static ngx_int_t add_variables(ngx_conf_t *cf)
{
    static ngx_str_t names[] = {ngx_string("placer_epoch"), ngx_string("placer_role")};
    ngx_http_get_variable_pt get[] = {epoch_variable, role_variable};

    for (size_t i = 0; i < 2; i++) {
        ngx_http_variable_t *v = ngx_http_add_variable(cf, &names[i], NGX_HTTP_VAR_NOCACHEABLE);
        if (v == NULL) {
            return NGX_ERROR;
        }
        v->get_handler = get[i];
    }
    return NGX_OK;
}

static void *create_srv_conf(ngx_conf_t *cf)
{
    ngx_http_upstream_placer_srv_conf_t *pcf = ngx_pcalloc(cf->pool, sizeof *pcf);

    if (pcf == NULL) {
        return NULL;
    }
    pcf->replicas = NGX_CONF_UNSET_UINT;
    pcf->check = NGX_CONF_UNSET_MSEC;
    pcf->etcd_timeout = NGX_CONF_UNSET_MSEC;
    return pcf;
}

/* Every upstream of this cycle that uses placer_hash, through fn. */
static ngx_int_t each_upstream(ngx_cycle_t *cycle, ngx_int_t (*fn)(ngx_http_upstream_placer_srv_conf_t *, ngx_cycle_t *))
{
    if (ngx_get_conf(cycle->conf_ctx, ngx_http_module) == NULL) {
        return NGX_OK;
    }
    ngx_http_upstream_main_conf_t *umcf = ngx_http_cycle_get_module_main_conf(cycle, ngx_http_upstream_module);
    if (umcf == NULL) {
        return NGX_OK;
    }
    ngx_http_upstream_srv_conf_t **us = umcf->upstreams.elts;
    for (ngx_uint_t i = 0; i < umcf->upstreams.nelts; i++) {
        if (us[i]->srv_conf == NULL) {
            continue;
        }
        /* not peer.init_upstream == init_upstream: keepalive (and other
         * wrapping modules) replace it and call ours from theirs; our
         * init_upstream marks the upstream it ran for */
        ngx_http_upstream_placer_srv_conf_t *pcf =
            ngx_http_conf_upstream_srv_conf(us[i], ngx_http_upstream_placer_module);
        if (pcf == NULL || pcf->upstream != us[i]) {
            continue;
        }
        if (fn(pcf, cycle) != NGX_OK) {
            return NGX_ERROR;
        }
    }
    return NGX_OK;
}

static ngx_int_t stop_one(ngx_http_upstream_placer_srv_conf_t *pcf, ngx_cycle_t *cycle)
{
    (void)cycle;
    ngx_http_upstream_placer_stop(pcf);
    return NGX_OK;
}

static ngx_int_t init_process(ngx_cycle_t *cycle)
{
    /* workers only: the cache manager and loader route nothing */
    if (ngx_process != NGX_PROCESS_WORKER && ngx_process != NGX_PROCESS_SINGLE) {
        return NGX_OK;
    }
    return each_upstream(cycle, ngx_http_upstream_placer_start);
}

static void exit_process(ngx_cycle_t *cycle)
{
    (void)each_upstream(cycle, stop_one);
}

static ngx_http_module_t module_ctx = {
    add_variables,   /* preconfiguration */
    NULL,            /* postconfiguration */
    NULL,            /* create main configuration */
    NULL,            /* init main configuration */
    create_srv_conf, /* create server configuration */
    NULL,            /* merge server configuration */
    NULL,            /* create location configuration */
    NULL             /* merge location configuration */
};

ngx_module_t ngx_http_upstream_placer_module = {
    NGX_MODULE_V1,
    &module_ctx,  /* module context */
    commands,     /* module directives */
    NGX_HTTP_MODULE,
    NULL,         /* init master */
    NULL,         /* init module */
    init_process, /* init process */
    NULL,         /* init thread */
    NULL,         /* exit thread */
    exit_process, /* exit process */
    NULL,         /* exit master */
    NGX_MODULE_V1_PADDING};
