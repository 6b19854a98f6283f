/*
 * etcd_soak_proxy.h -- a loopback TCP proxy in front of one etcd member,
 * for the soak's "outcome unknown" publishes: it relays one connection at a
 * time and, when armed, loses the answer to the next transaction
 * (/v3/kv/txn) in one of two ways:
 *   DROP:  the member answers, the proxy closes the client's connection
 *          instead of passing the answer on (the transaction ran; the
 *          client cannot know whether it succeeded);
 *   PAUSE: as soon as the whole request has gone to the member, the proxy
 *          SIGSTOPs it and closes the client's connection (the transaction
 *          may or may not commit; the soak sends SIGCONT later).
 * Listens on 127.0.0.1 only, on a free port; every wait is bounded.
 */
#ifndef PLACER_TESTS_ETCD_SOAK_PROXY_H
#define PLACER_TESTS_ETCD_SOAK_PROXY_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "etcd_harness.h"

enum { PROXY_RELAY, PROXY_DROP, PROXY_PAUSE };

typedef struct soak_proxy {
    etcd_cluster *c;
    int listen_fd, port;
    atomic_int target;      /* the member index connections go to */
    atomic_int target_pid;  /* its process, for PAUSE (set with target) */
    atomic_int mode;        /* PROXY_*: back to PROXY_RELAY once it fired */
    atomic_int fired;       /* answers lost so far */
    atomic_int dropped_won; /* DROP: the answer lost said "succeeded" */
    atomic_int paused;      /* PAUSE: the member index stopped, -1 when none */
    atomic_int stop;
    pthread_t thread;
} soak_proxy;

/* Listen and start relaying to member target; 0 or -1. */
int soak_proxy_start(soak_proxy *p, etcd_cluster *c, int target);
/* Stop the thread and close the socket. */
void soak_proxy_stop(soak_proxy *p);

#endif
