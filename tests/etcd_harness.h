/*
 * etcd_harness.h -- real etcd clusters for tests and benchmarks: members
 * started as child processes on 127.0.0.1 only, on free ports, in a
 * temporary directory; stopped, killed and restarted on demand.
 */
#ifndef PLACER_TESTS_ETCD_HARNESS_H
#define PLACER_TESTS_ETCD_HARNESS_H

#include <sys/types.h>

#define ETCD_MAX_MEMBERS 5

/* Extra settings for etcd_start_with: TLS on the client URLs (the harness's
 * own calls present ca/cert/key), and more etcd flags. */
typedef struct etcd_options {
    const char *server_cert, *server_key; /* both set: https:// client URLs */
    const char *trusted_ca;               /* with server_*: --trusted-ca-file and --client-cert-auth */
    const char *client_ca, *client_cert, *client_key; /* what the harness presents */
    const char *extra[8];                 /* more etcd arguments, NULL-terminated */
} etcd_options;

typedef struct etcd_cluster {
    int n;
    etcd_options opt;
    char dir[256];
    int client_port[ETCD_MAX_MEMBERS], peer_port[ETCD_MAX_MEMBERS];
    pid_t pid[ETCD_MAX_MEMBERS]; /* 0: not running */
    char endpoints[1024];        /* every member's client URL, comma-separated */
} etcd_cluster;

/* 1 when an etcd binary is on PATH. */
int etcd_available(void);

/* Start n members and wait until each answers; 0 or -1. */
int etcd_start(etcd_cluster *c, int n);

/* The same with options (copied: the strings must outlive the cluster). */
int etcd_start_with(etcd_cluster *c, int n, const etcd_options *o);

/* Start member i again (its data directory kept) and wait for it. */
int etcd_restart(etcd_cluster *c, int i);

/* SIGKILL member i (no goodbye to its peers). */
void etcd_kill(etcd_cluster *c, int i);

/* The index of the current leader, or -1. */
int etcd_leader(etcd_cluster *c);

/* The cluster's current revision as member i sees it, or -1. */
long long etcd_revision(etcd_cluster *c, int i);

/* Stop every member and remove the directory. */
void etcd_destroy(etcd_cluster *c);

/* The client URL of member i. */
void etcd_url(const etcd_cluster *c, int i, char *out, size_t len);

#endif
