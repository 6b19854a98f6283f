/*
 * etcd_client.h -- etcd's v3 JSON API (the grpc-gateway of etcd 3.4)
 * over libcurl: POST a JSON body to /v3/..., several endpoints with
 * failover, per-request timeouts and exponential backoff, and the watch
 * stream. Keys and values travel base64; 64-bit numbers are strings; etcd
 * leaves out fields that are zero or false.
 */
#ifndef PLC_CONTROL_ETCD_CLIENT_H
#define PLC_CONTROL_ETCD_CLIENT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "placer_control.h"

typedef struct plc_etcd plc_etcd;

/* The most bytes one reply (or one message of a watch stream) may hold; a
 * member that sends more is treated as failing. A chunk (1 MiB) is 1.4 MB
 * in base64. */
#define PLC_ETCD_MAX_REPLY (16u << 20)

/* What placer_etcd_config holds (etcd_config.c). */
struct placer_etcd_config {
    char *endpoints;
    long timeout_ms;
    char *cacert, *cert, *cert_key; /* NULL: not set */
    char *user, *password;          /* NULL: no authentication */
    int allow_cleartext_secret;     /* keyed snapshots may go to http:// */
};

/* A client for the config's endpoints (comma-separated URLs,
 * "http://127.0.0.1:2379,..."), TLS files and user; timeout_ms (> 0)
 * overrides the config's: how long one call may keep trying endpoints.
 * Returns 0, PLACER_EINVAL (no endpoint), PLACER_ENOMEM. */
int plc_etcd_new_config(const placer_etcd_config *c, long timeout_ms, plc_etcd **out);
/* The same with endpoints and a timeout only. */
int plc_etcd_new(const char *endpoints, long timeout_ms, plc_etcd **out);
void plc_etcd_free(plc_etcd *e);

/* Bounds on every call of e from now on: calls give up (PLACER_EUNAVAIL,
 * why says so) once *stop is non-zero (checked every 50 ms at least, also
 * inside a transfer) or the monotonic clock (plc_etcd_now_ms) passes
 * deadline_ms (0: no deadline beyond each call's own timeout). stop may be
 * NULL; it must outlive e. */
void plc_etcd_set_stop(plc_etcd *e, const atomic_int *stop);
void plc_etcd_set_deadline(plc_etcd *e, double deadline_ms);
double plc_etcd_now_ms(void);
/* Non-zero (and why) when e's stop flag is set or its deadline passed. */
int plc_etcd_expired(const plc_etcd *e, char *why, size_t why_len);
/* The client's per-call timeout (ms, > 0). */
long plc_etcd_timeout(const plc_etcd *e);
/* 1 when one of e's endpoints is http:// (no TLS), with it in *url. */
int plc_etcd_cleartext(const plc_etcd *e, const char **url);
/* Whether the config allowed keyed snapshots over http://. */
int plc_etcd_cleartext_allowed(const plc_etcd *e);

/* Times this client authenticated (a new token, the first or a refresh). */
unsigned plc_etcd_logins(const plc_etcd *e);

/* POST body to path ("/v3/kv/range"); *resp receives the parsed reply
 * (json_decref it). Tries each endpoint in turn from the last one that
 * answered, with backoff between rounds, until the timeout. Returns 0,
 * PLACER_EUNAVAIL (no endpoint answered in time, or the client's stop
 * flag or deadline ended the call; why says the last failure), PLACER_ECOMPACTED (the revision asked for is compacted),
 * PLACER_EAUTH (credentials or a certificate refused, or permission denied)
 * or PLACER_EFORMAT (etcd answered with an error, or the server's reply is
 * not etcd's: why names the HTTP status and asks "is this an etcd
 * endpoint?"). Every attempt has a budget of 1 ms to 2 s (never 0, which
 * curl reads as no timeout), and the call ends at its timeout. With a user,
 * authenticates first when it has no token, and once more when etcd says
 * the token expired. */
int plc_etcd_post(plc_etcd *e, const char *path, json_t *body, json_t **resp, char *why,
                  size_t why_len);

/* Watch key from start_revision on one endpoint (the current one, moving on
 * when it fails), calling on_message for every message of the stream
 * (created, events, compaction) until on_message returns non-zero, *stop
 * becomes true, or the stream ends. Returns 0 when stopped by the caller,
 * PLACER_EUNAVAIL when the stream broke, PLACER_EAUTH when etcd refused the
 * watch (the caller reconnects either way; an expired token is renewed). */
typedef int (*plc_etcd_message_fn)(void *ctx, json_t *message);
int plc_etcd_watch(plc_etcd *e, const char *key, int64_t start_revision,
                   plc_etcd_message_fn on_message, void *ctx, atomic_int *stop, char *why,
                   size_t why_len);

/* printf into why (when not NULL and why_len > 0). */
__attribute__((format(printf, 3, 4))) void plc_say(char *why, size_t why_len, const char *fmt, ...);

/* Helpers for bodies and replies. */
json_t *plc_etcd_b64(const void *data, size_t len); /* a base64 JSON string */
int plc_etcd_unb64(const json_t *v, unsigned char **out, size_t *len); /* 0 or -1 */
int64_t plc_etcd_int(const json_t *v); /* a number or numeric string; 0 when absent */

#endif
