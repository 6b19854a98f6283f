/*
 * etcd_snapshots.h -- the layout of snapshots in etcd (docs/ETCD.md) and
 * the calls the publisher, the fetcher and the follower share.
 */
#ifndef PLC_CONTROL_ETCD_SNAPSHOTS_H
#define PLC_CONTROL_ETCD_SNAPSHOTS_H

#include "etcd_client.h"
#include "placer_control.h"

#define PLC_ETCD_CHUNK (1u << 20) /* raw bytes per chunk: under etcd's 1.5 MiB request limit */
/* The most chunks a manifest may name (4 GiB of snapshot): checked before
 * anything is read; the buffer then grows only by the chunks received. */
#define PLC_ETCD_MAX_CHUNKS 4096u

/* 0 when key may hold snapshots: 1 to PLACER_MAX_ETCD_KEY bytes of UTF-8
 * without control characters (so that it travels in the JSON manifest and
 * prints safely); else PLACER_EINVAL and why. */
int plc_etcd_check_key(const char *key, char *why, size_t why_len);

/* Range one key (at revision when > 0): *resp receives the reply
 * (json_decref it), *kv the key's entry in it or NULL when absent. */
int plc_etcd_get(plc_etcd *e, const char *key, int64_t revision, json_t **resp, const json_t **kv,
                 char *why, size_t why_len);

/* The snapshot a manifest value under key names (or a raw snapshot stored
 * as the value itself), with its chunks read at `revision` (0: the latest).
 * The manifest must name chunks under key + "/chunks/". Returns 0 and *out,
 * or an error with its reason in why. */
int plc_etcd_load(plc_etcd *e, const char *key, const unsigned char *value, size_t len,
                  int64_t revision, placer_snapshot **out, char *why, size_t why_len);

#endif
