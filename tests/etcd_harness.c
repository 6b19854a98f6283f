/* etcd_harness.c -- see etcd_harness.h. */
#include "etcd_harness.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof a) &&
        !getsockname(s, (struct sockaddr *)&a, &len))
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

int etcd_available(void)
{
    return system("command -v etcd >/dev/null 2>&1 && command -v etcdctl >/dev/null 2>&1") == 0;
}

void etcd_url(const etcd_cluster *c, int i, char *out, size_t len)
{
    snprintf(out, len, "%s://127.0.0.1:%d", c->opt.server_cert ? "https" : "http", c->client_port[i]);
}

static size_t sink(char *p, size_t s, size_t n, void *ctx)
{
    size_t have = strlen(ctx), add = s * n;
    if (have + add < 4096) {
        memcpy((char *)ctx + have, p, add);
        ((char *)ctx)[have + add] = '\0';
    }
    return s * n;
}

/* POST body to a member's path; its reply in out (4 KiB). 0 or -1. */
static int call(const etcd_cluster *c, int i, const char *path, const char *body, char *out)
{
    char url[160];
    etcd_url(c, i, url, sizeof url);
    strcat(url, path);
    CURL *h = curl_easy_init();
    out[0] = '\0';
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, 1000L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    if (c->opt.client_ca)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->opt.client_ca);
    if (c->opt.client_cert) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->opt.client_cert);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->opt.client_key);
    }
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_cleanup(h);
    return rc == CURLE_OK && code == 200 ? 0 : -1;
}

/* A member's maintenance status. */
static int status(const etcd_cluster *c, int i, char *out)
{
    return !call(c, i, "/v3/maintenance/status", "{}", out) && strstr(out, "\"leader\"") ? 0 : -1;
}

long long etcd_revision(etcd_cluster *c, int i)
{
    char out[4096];
    const char *r;
    if (call(c, i, "/v3/kv/range", "{\"key\":\"AA==\"}", out) || !(r = strstr(out, "\"revision\":\"")))
        return -1;
    return atoll(r + 12);
}

static pid_t spawn(const etcd_cluster *c, int i)
{
    char name[16], data[320], client[64], peer[64], cluster[1024] = "", log[320];
    snprintf(name, sizeof name, "m%d", i);
    snprintf(data, sizeof data, "%s/m%d", c->dir, i);
    etcd_url(c, i, client, sizeof client);
    snprintf(peer, sizeof peer, "http://127.0.0.1:%d", c->peer_port[i]);
    snprintf(log, sizeof log, "%s/m%d.log", c->dir, i);
    for (int j = 0; j < c->n; j++)
        snprintf(cluster + strlen(cluster), sizeof cluster - strlen(cluster), "%sm%d=http://127.0.0.1:%d",
                 j ? "," : "", j, c->peer_port[j]);
    char *argv[48] = {"etcd", "--name", name, "--data-dir", data, "--listen-client-urls", client,
                      "--advertise-client-urls", client, "--listen-peer-urls", peer,
                      "--initial-advertise-peer-urls", peer, "--initial-cluster", cluster,
                      "--initial-cluster-state", "new", "--initial-cluster-token", (char *)c->dir,
                      "--heartbeat-interval", "50", "--election-timeout", "500", "--logger", "zap",
                      "--log-outputs", log, NULL};
    int at = 0;
    while (argv[at])
        at++;
    if (c->opt.server_cert) {
        argv[at++] = "--cert-file";
        argv[at++] = (char *)c->opt.server_cert;
        argv[at++] = "--key-file";
        argv[at++] = (char *)c->opt.server_key;
        if (c->opt.trusted_ca) {
            argv[at++] = "--trusted-ca-file";
            argv[at++] = (char *)c->opt.trusted_ca;
            argv[at++] = "--client-cert-auth";
        }
    }
    for (int k = 0; k < 8 && c->opt.extra[k]; k++)
        argv[at++] = (char *)c->opt.extra[k];
    argv[at] = NULL;
    /* posix_spawn, not fork: the test has threads by the time members are
     * restarted, and a forked child of a threaded (TSan) process can hang
     * before it reaches exec */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    if (posix_spawnp(&pid, "etcd", &fa, NULL, argv, environ))
        pid = 0;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

static int wait_up(etcd_cluster *c, int i)
{
    char out[4096];
    for (int t = 0; t < 300; t++) { /* 15 s */
        if (!status(c, i, out))
            return 0;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return -1;
}

int etcd_start(etcd_cluster *c, int n)
{
    etcd_options none = {0};
    return etcd_start_with(c, n, &none);
}

int etcd_start_with(etcd_cluster *c, int n, const etcd_options *o)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->opt = *o;
    snprintf(c->dir, sizeof c->dir, "/tmp/placer-etcd-XXXXXX");
    if (!mkdtemp(c->dir))
        return -1;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    for (int i = 0; i < n; i++) {
        c->client_port[i] = free_port();
        c->peer_port[i] = free_port();
        char url[64];
        etcd_url(c, i, url, sizeof url);
        snprintf(c->endpoints + strlen(c->endpoints), sizeof c->endpoints - strlen(c->endpoints),
                 "%s%s", i ? "," : "", url);
    }
    for (int i = 0; i < n; i++)
        c->pid[i] = spawn(c, i);
    for (int i = 0; i < n; i++)
        if (wait_up(c, i))
            return -1;
    return 0;
}

int etcd_restart(etcd_cluster *c, int i)
{
    if (c->pid[i])
        return 0;
    c->pid[i] = spawn(c, i);
    return 0;
}

void etcd_kill(etcd_cluster *c, int i)
{
    if (c->pid[i] > 0) {
        kill(c->pid[i], SIGKILL);
        waitpid(c->pid[i], NULL, 0);
    }
    c->pid[i] = 0;
}

int etcd_leader(etcd_cluster *c)
{
    char out[4096];
    for (int i = 0; i < c->n; i++) {
        if (!c->pid[i] || status(c, i, out))
            continue;
        const char *m = strstr(out, "\"member_id\":\""), *l = strstr(out, "\"leader\":\"");
        if (m && l && strncmp(m + 13, l + 10, strcspn(l + 10, "\"")) == 0)
            return i;
    }
    return -1;
}

void etcd_destroy(etcd_cluster *c)
{
    for (int i = 0; i < c->n; i++)
        etcd_kill(c, i);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", c->dir);
    if (c->dir[0] && system(cmd) != 0)
        fprintf(stderr, "etcd_harness: could not remove %s\n", c->dir);
}
