/* etcd_soak_proxy.c -- see etcd_soak_proxy.h. */
#include "etcd_soak_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define CONN_SECONDS 30 /* the longest one connection is relayed */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes give up after 3 s (a stopped member stops reading). */
static void bound_writes(int fd)
{
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int connect_member(soak_proxy *p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    a.sin_port = htons((uint16_t)p->c->client_port[atomic_load(&p->target)]);
    struct timeval tv = {1, 0};
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv); /* also bounds connect */
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    bound_writes(fd);
    return fd;
}

/* A request's (or an answer's) total length once its headers are in
 * (header + Content-Length), or 0. */
static size_t request_length(const char *req, size_t n)
{
    const char *end = memmem(req, n, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - req) + 4, body = 0;
    for (const char *l = req; l && l < end; l = memchr(l, '\n', (size_t)(end - l))) {
        l += *l == '\n';
        if (!strncasecmp(l, "Content-Length:", 15))
            body = strtoul(l + 15, NULL, 10);
    }
    return head + body;
}

/* Relay one client connection to the target member until either side
 * closes, the proxy stops, or an armed fault fires. */
static void relay(soak_proxy *p, int cfd)
{
    int sfd = connect_member(p);
    if (sfd < 0)
        return;
    char buf[65536], req[8192];
    size_t req_n = 0, sent = 0;
    int txn = -1; /* unknown until the request line is in */
    double until = now_s() + CONN_SECONDS;
    while (!atomic_load(&p->stop) && now_s() < until) {
        struct pollfd pf[2] = {{cfd, POLLIN, 0}, {sfd, POLLIN, 0}};
        if (poll(pf, 2, 50) < 0 && errno != EINTR)
            break;
        if (pf[0].revents) { /* client -> member */
            ssize_t n = recv(cfd, buf, sizeof buf, 0);
            if (n <= 0 || write_all(sfd, buf, (size_t)n))
                break;
            sent += (size_t)n;
            if (req_n < sizeof req) {
                size_t k = (size_t)n < sizeof req - req_n ? (size_t)n : sizeof req - req_n;
                memcpy(req + req_n, buf, k);
                req_n += k;
            }
            if (txn < 0 && req_n >= 16)
                txn = !strncmp(req, "POST /v3/kv/txn ", 16);
            size_t whole = txn == 1 ? request_length(req, req_n) : 0;
            if (txn == 1 && whole && sent >= whole && atomic_load(&p->mode) == PROXY_PAUSE) {
                pid_t pid = atomic_load(&p->target_pid);
                if (pid > 0 && !kill(pid, SIGSTOP))
                    atomic_store(&p->paused, atomic_load(&p->target));
                atomic_store(&p->mode, PROXY_RELAY);
                atomic_fetch_add(&p->fired, 1);
                break; /* the client's connection closes unanswered */
            }
        }
        if (pf[1].revents) { /* member -> client */
            ssize_t n = recv(sfd, buf, sizeof buf - 1, 0);
            if (n <= 0)
                break;
            if (txn == 1 && atomic_load(&p->mode) == PROXY_DROP) {
                /* the whole answer (bounded: 1 s, the buffer), then lose it */
                size_t got = (size_t)n;
                buf[got] = '\0';
                for (double stop_at = now_s() + 1;
                     (!request_length(buf, got) || got < request_length(buf, got)) &&
                     got < sizeof buf - 1 && now_s() < stop_at;) {
                    struct pollfd more = {sfd, POLLIN, 0};
                    if (poll(&more, 1, 50) > 0 && (n = recv(sfd, buf + got, sizeof buf - 1 - got, 0)) <= 0)
                        break;
                    if (more.revents && n > 0)
                        buf[got += (size_t)n] = '\0';
                }
                atomic_fetch_add(&p->dropped_won, strstr(buf, "\"succeeded\":true") != NULL);
                atomic_store(&p->mode, PROXY_RELAY);
                atomic_fetch_add(&p->fired, 1);
                break; /* the answer is lost */
            }
            if (write_all(cfd, buf, (size_t)n))
                break;
        }
    }
    close(sfd);
}

static void *serve(void *arg)
{
    soak_proxy *p = arg;
    while (!atomic_load(&p->stop)) {
        struct pollfd pf = {p->listen_fd, POLLIN, 0};
        if (poll(&pf, 1, 50) <= 0)
            continue;
        int cfd = accept(p->listen_fd, NULL, NULL);
        if (cfd < 0)
            continue;
        bound_writes(cfd);
        relay(p, cfd);
        close(cfd);
    }
    return NULL;
}

int soak_proxy_start(soak_proxy *p, etcd_cluster *c, int target)
{
    memset(p, 0, sizeof *p);
    p->c = c;
    atomic_init(&p->target, target);
    atomic_init(&p->target_pid, 0);
    atomic_init(&p->mode, PROXY_RELAY);
    atomic_init(&p->fired, 0);
    atomic_init(&p->dropped_won, 0);
    atomic_init(&p->paused, -1);
    atomic_init(&p->stop, 0);
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (p->listen_fd < 0 || bind(p->listen_fd, (struct sockaddr *)&a, sizeof a) ||
        getsockname(p->listen_fd, (struct sockaddr *)&a, &len) || listen(p->listen_fd, 16)) {
        if (p->listen_fd >= 0)
            close(p->listen_fd);
        return -1;
    }
    p->port = ntohs(a.sin_port);
    if (pthread_create(&p->thread, NULL, serve, p)) {
        close(p->listen_fd);
        return -1;
    }
    return 0;
}

void soak_proxy_stop(soak_proxy *p)
{
    atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
    close(p->listen_fd);
}
