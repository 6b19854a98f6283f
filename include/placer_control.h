/*
 * placer_control.h -- the control plane of placer: libplacer-control.
 *
 * Documents in, snapshots out: membership files (JSON, jansson), imports
 * of other systems' maps (Couchbase), and snapshots published to, fetched
 * from and followed through etcd (v3 JSON API, libcurl). Built on
 * libplacer's public API (placer.h) alone; link with
 * `pkg-config --libs placer-control`, which brings libplacer too.
 *
 * Errors are placer.h's negative PLACER_E* codes (placer_strerror names
 * them). Allocation goes through placer_mem_alloc (placer.h), the seam the
 * tests inject failures into. The library never changes jansson's or
 * libcurl's process-wide allocators (json_set_alloc_funcs,
 * curl_global_init_mem): a program may, for instance to route them through
 * placer_mem_alloc.
 *
 * Thread contract: the parse and import functions are reentrant and may run
 * in any number of threads at once; the etcd calls too (each makes its own
 * connections). The first etcd call of the process initialises libcurl
 * once (curl_global_init, under pthread_once); a program that uses libcurl
 * itself, or wants libcurl on its own allocator (curl_global_init_mem),
 * initialises it before that call, as libcurl asks of every program.
 *
 * Compiles as C11 and as C++.
 */
#ifndef PLACER_CONTROL_H
#define PLACER_CONTROL_H

#include "placer.h"

/* libplacer-control's exports: its own macro, so that building its DLL
 * (PLACER_CONTROL_BUILDING_DLL) exports its calls and not libplacer's. */
#if defined(_WIN32) && defined(PLACER_CONTROL_BUILDING_DLL)
#define PLACER_CONTROL_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PLACER_CONTROL_API __attribute__((visibility("default")))
#else
#define PLACER_CONTROL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Numbers                                                                  */
/* ------------------------------------------------------------------------ */

/* The len bytes at text as an unsigned integer in [min, max] into *out,
 * strictly, as membership files, etcd manifests and the placer command read
 * them: decimal, or hex after "0x"; no sign, no whitespace, no leading zero
 * but "0" itself (never octal). (strtoull reads " -1" as 2^64-1 and "0777"
 * as 511; a placement must not.) Returns 0; PLACER_EFORMAT when the text is
 * not a number of that form (text NULL, empty, a sign, a space, a leading
 * zero, a non-digit, "0x" alone); PLACER_ERANGE when it is one but lies
 * outside [min, max] (including past 2^64-1). *out is written only on
 * success. Pure: any thread. */
PLACER_CONTROL_API int placer_parse_u64(const char *text, size_t len, uint64_t min, uint64_t max,
                                uint64_t *out);

/* A short English reason for a placer_parse_u64 error (a static string). */
PLACER_CONTROL_API const char *placer_parse_u64_reason(const char *text, size_t len, int err);

/* ------------------------------------------------------------------------ */
/* Quoting input in messages                                                */
/* ------------------------------------------------------------------------ */

/* The len bytes at text as they may be shown on a terminal: control bytes
 * (below 0x20, and 0x7f) as \xNN, a backslash as \\, every other byte as
 * is; the escaping of the placer command's text output, and of every error
 * message here that quotes input (a field name, a YAML or Redis value).
 * Writes at most cap - 1 bytes and a NUL into out (cap > 0; an escape is
 * never cut in half) and returns the length of the whole escaped text, as
 * snprintf does: a return >= cap means it was cut. out may be NULL with cap
 * 0 to measure. Pure: any thread. */
PLACER_CONTROL_API size_t placer_escape(char *out, size_t cap, const void *text, size_t len);

/* ------------------------------------------------------------------------ */
/* Imports: Couchbase                                                       */
/* ------------------------------------------------------------------------ */

/* A partitions snapshot from a Couchbase bucket configuration (the JSON a
 * cluster serves at /pools/default/buckets/NAME, or its "terse" form):
 * vBucketServerMap.serverList gives the nodes (ids "host:port", weight 1, no
 * zone), vBucketMap each vBucket's active node then its numReplicas
 * replicas (-1: none), vBucketMapForward (when present) the map after the
 * rebalance in progress (the handoff target), hashAlgorithm must be "CRC";
 * the epoch is revEpoch * 2^32 + rev. Keys map as Couchbase's SDKs map them
 * (PLACER_HASH_COUCHBASE). Returns 0, PLACER_ENULL, PLACER_ENOMEM, or
 * PLACER_EFORMAT when the text is not such a configuration (*out untouched). */
PLACER_CONTROL_API int placer_couchbase_import(const char *json, size_t len, placer_snapshot **out);

/* placer_couchbase_import, also writing into why (when not NULL, at most
 * why_len bytes, NUL-terminated) what is wrong with a rejected document:
 * the JSON error with its line and column, or the field at fault. */
PLACER_CONTROL_API int placer_couchbase_import_ex(const char *json, size_t len, placer_snapshot **out,
                                          char *why, size_t why_len);

/* ------------------------------------------------------------------------ */
/* Imports: twemproxy and Redis Cluster (compatibility modes, docs/COMPAT.md) */
/* ------------------------------------------------------------------------ */

/* One pool of a nutcracker (twemproxy) configuration, the YAML nutcracker
 * itself runs with (read with libyaml as nutcracker reads it), as a
 * membership document (README.md, docs/COMPAT.md): "compat": "twemproxy",
 * the pool's "distribution" (ketama or modula; "random" is refused: no
 * placement can follow it), "key_hash" (its `hash:`), "hash_tag", and one
 * node per server ("host:port:weight [name]" or "/path:weight [name]"):
 * "id" is what twemproxy hashes (the name; unnamed, "host:port", or "host"
 * alone for port 11211), "address" and "weight". pool: the pool's name, or
 * NULL for a file of one pool. *json receives the document (indented,
 * NUL-terminated; release with placer_mem_free), *json_len (when not NULL)
 * its length. Returns 0, PLACER_ENULL, PLACER_ENOMEM or PLACER_EFORMAT
 * with why (when not NULL, at most why_len bytes) saying where
 * ("line L, column C: pool \"P\": ...") and what nutcracker 0.5.0 or
 * placer refuses, in any pool of the file: malformed YAML, what nutcracker's
 * token checks refuse (document markers, tags, anchors, aliases, flow
 * collections, empty values), unknown or repeated directives, a value
 * nutcracker refuses (every directive of 0.5.0 is taken; those that do not
 * change placement are ignored), a pool without listen or servers, bad
 * servers (port, zero or non-numeric weight, two of one name), a hash or
 * distribution nutcracker does not have, no such pool (docs/COMPAT.md). */
PLACER_CONTROL_API int placer_twemproxy_membership(const char *yaml, size_t len, const char *pool,
                                           char **json, size_t *json_len, char *why,
                                           size_t why_len);

/* placer_twemproxy_membership's document built (placer_membership_parse,
 * placer_builder_build) at `epoch` into *out: keys go where nutcracker
 * sends them. Also returns the build's errors (why names them). */
PLACER_CONTROL_API int placer_twemproxy_import(const char *yaml, size_t len, const char *pool,
                                       uint64_t epoch, placer_snapshot **out, char *why,
                                       size_t why_len);

/* One backend (or listen section) of a haproxy.cfg, read as haproxy 2.6
 * reads it, as a membership document (docs/COMPAT.md): "compat":
 * "haproxy", "distribution" (hash-type's, map-based when none, as haproxy),
 * "key_hash" and "avalanche" (written out, as haproxy's parser resolves
 * them; "source" for balance source, whose key is the client address's
 * bytes), and one node per server in the hash ("id": its name, "address",
 * "weight", "hash_id": its id, explicit or haproxy's automatic one). The
 * backend inherits balance, hash-type and default-server from its
 * defaults section. Servers of weight 0, disabled or backup are left out
 * (not in haproxy's hash). backend: the section's name. Returns 0 with
 * why (when not NULL) holding notes ("line N: ...; line M: ...": what was
 * left out, what the key is) or "", or PLACER_ENULL, PLACER_ENOMEM, or
 * PLACER_EFORMAT with why ("line N: ...") for what haproxy refuses, a
 * balance that places by no key (roundrobin, leastconn, first, random),
 * hash-balance-factor (bounded loads are
 * placer's per-lookup choice), server-template, no such backend. *json and
 * *json_len as placer_twemproxy_membership's. */
PLACER_CONTROL_API int placer_haproxy_membership(const char *cfg, size_t len, const char *backend,
                                         char **json, size_t *json_len, char *why,
                                         size_t why_len);

/* placer_haproxy_membership's document built at `epoch` into *out: keys go
 * where haproxy sends them. On success why holds the notes, as
 * placer_haproxy_membership's. */
PLACER_CONTROL_API int placer_haproxy_import(const char *cfg, size_t len, const char *backend,
                                     uint64_t epoch, placer_snapshot **out, char *why,
                                     size_t why_len);

/* One upstream of an nginx configuration, the file nginx runs with (path:
 * read from disk, for its includes; relative includes are relative to its
 * directory, as nginx's conf prefix), as a membership document
 * (docs/COMPAT.md): "compat": "nginx", "distribution" ("consistent" for
 * "hash KEY consistent", else "hash"), one node per server that is not
 * down ("id" and "address": the server's address as written, "weight").
 * The upstream is looked for in http {} and stream {}. Returns 0 with why
 * (when not NULL) holding notes ("FILE:LINE: ...": what was left out or
 * ignored, what the key is) or "", or PLACER_ENULL, PLACER_ENOMEM, or
 * PLACER_EFORMAT with why ("FILE:LINE: ...") for what nginx refuses, an
 * upstream without hash (or with ip_hash, least_conn, random), a backup
 * server, a down server with plain hash (nginx rehashes), a server given
 * by host name with plain hash (nginx places by the addresses the name
 * resolves to: see placer_nginx_membership_flags), a file that cannot be
 * read, no such upstream. With "hash ... consistent" a server given by
 * host name is a node of its text as written, which nginx hashes. */
PLACER_CONTROL_API int placer_nginx_membership(const char *path, const char *upstream, char **json,
                                       size_t *json_len, char *why, size_t why_len);

/* placer_nginx_membership with flags: PLACER_NGINX_RESOLVE resolves the
 * host names of an upstream with plain hash through the system's resolver
 * (getaddrinfo), as nginx resolves them at its start: each address is a
 * node ("ip:port", IPv4 ones first, the server's weight), and a note lists
 * them. A name that does not resolve is PLACER_EFORMAT. */
#define PLACER_NGINX_RESOLVE 1u
PLACER_CONTROL_API int placer_nginx_membership_flags(const char *path, const char *upstream,
                                             unsigned flags, char **json, size_t *json_len,
                                             char *why, size_t why_len);

/* placer_nginx_membership's document built at `epoch` into *out: keys go
 * where nginx sends them. On success why holds the notes, as
 * placer_nginx_membership's. */
PLACER_CONTROL_API int placer_nginx_import(const char *path, const char *upstream, uint64_t epoch,
                                   placer_snapshot **out, char *why, size_t why_len);

/* The text of Redis Cluster's CLUSTER NODES as a membership document:
 * "compat": "redis", "epoch" (the largest config-epoch), one node per line
 * ("id": the 40-digit node id, "address": "ip:port"), and "slots": each run
 * of slots of one master as [first, last, master id, its replicas' ids in
 * the text's order...]. A slot is its listing master's, as Redis routes:
 * migrating and importing markers ("[N->-id]", "[N-<-id]") are skipped, and
 * so are nodes in handshake. *json and *json_len as above. Returns 0,
 * PLACER_ENULL, PLACER_ENOMEM or PLACER_EFORMAT with why ("line N: ...")
 * for a line that is not CLUSTER NODES', a slot listed twice, a slot with
 * no master, a replica of an unknown master, more than
 * PLACER_MAX_REPLICAS - 1 replicas of one master. */
PLACER_CONTROL_API int placer_redis_membership(const char *text, size_t len, char **json,
                                       size_t *json_len, char *why, size_t why_len);

/* placer_redis_membership's document built at its epoch into *out: a
 * partitions snapshot of 16,384 slots whose keys map as Redis Cluster maps
 * them, replicas from the slot map. */
PLACER_CONTROL_API int placer_redis_import(const char *text, size_t len, placer_snapshot **out,
                                   char *why, size_t why_len);

/* The text of `nodetool ring` (Apache Cassandra 4.x) and a keyspace's
 * replication map as DESCRIBE KEYSPACE prints it ("{'class':
 * 'NetworkTopologyStrategy', 'dc1': '3'}"; SimpleStrategy with
 * 'replication_factor'; short or org.apache.cassandra.locator. names) as a
 * ring membership document: "key_hash": "cassandra-murmur3", "replicas"
 * ('replication_factor', when given), "replication" ("simple" or
 * "network_topology"), "datacenter_replicas" (the map's datacenters and
 * factors), one node per address ("id"; "datacenter"; "zone": its rack;
 * "state": Joining -> "joining", Leaving -> "draining", Down or ? ->
 * "down") with its tokens mapped as the key hash maps keys ((uint64_t)token
 * ^ 1 << 63). Every datacenter is kept. *json and *json_len as above.
 * Returns 0, PLACER_ENULL, PLACER_ENOMEM or PLACER_EFORMAT with why ("line
 * N: ..." or "replication map: ...") for text that is not nodetool ring's,
 * a token listed twice or out of order, a node with two racks or states, a
 * transient factor ('3/1'), a factor above PLACER_MAX_REPLICAS, factors of
 * the ring's datacenters summing past it or to 0. docs/COMPAT.md. */
PLACER_CONTROL_API int placer_cassandra_membership(const char *ring, size_t len,
                                                   const char *replication, char **json,
                                                   size_t *json_len, char *why, size_t why_len);

/* placer_cassandra_membership's document built at epoch 0 into *out: keys,
 * tokens and replica sets (placer_replicas) as Cassandra's. On success why
 * holds its notes. */
PLACER_CONTROL_API int placer_cassandra_import(const char *ring, size_t len,
                                               const char *replication, placer_snapshot **out,
                                               char *why, size_t why_len);

/* One topic of the text `kafka-topics.sh --describe` prints (Kafka 3.x:
 * a "Topic: T\tTopicId: ...\tPartitionCount: N..." line, then one
 * "\tTopic: T\tPartition: P\tLeader: B\tReplicas: B,B\tIsr: ..." line per
 * partition, Elr fields and several topics allowed) as a membership
 * document: "compat": "kafka", "partitioner" (NULL: "murmur2_random", the
 * Java client's default for keyed records), the brokers as nodes ("id":
 * the broker id, ascending) and "partitions", one row per partition: the
 * leader's id (null for "Leader: none"), then its other replicas in
 * Kafka's order. topic NULL takes the only topic the text describes.
 * *json and *json_len as above. Returns 0, PLACER_ENULL, PLACER_ENOMEM,
 * PLACER_EINVAL (an unknown partitioner) or PLACER_EFORMAT with why
 * ("line N: ..." for a line that is not the tool's, a partition missing or
 * out of order, the topic absent, more brokers in a partition than
 * PLACER_MAX_REPLICAS). */
PLACER_CONTROL_API int placer_kafka_membership(const char *text, size_t len, const char *topic,
                                               const char *partitioner, char **json,
                                               size_t *json_len, char *why, size_t why_len);

/* placer_kafka_membership's document built at `epoch` into *out: a
 * partitions snapshot of the topic whose keys go to partitions as the
 * producer's partitioner sends them; a partition's map row is its leader
 * (a hole when it has none) and replicas. */
PLACER_CONTROL_API int placer_kafka_import(const char *text, size_t len, const char *topic,
                                           const char *partitioner, uint64_t epoch,
                                           placer_snapshot **out, char *why, size_t why_len);

/* ------------------------------------------------------------------------ */
/* Membership files                                                          */
/* ------------------------------------------------------------------------ */

/* A membership file (JSON; README.md shows one) into a new builder (*out,
 * release with placer_builder_free): "strategy", "seed", "epoch",
 * "vnodes", "tokens" ("random" or "balanced": placer_builder_set_token_allocation),
 * "replicas", "partitions", "key_hash" ("placer-v2" or its alias
 * "placer", the default; "placer-v1", the legacy hash; "siphash13", keyed,
 * whose secret the caller sets with placer_builder_set_secret: no file
 * holds it; "couchbase"; "cassandra-murmur3"), "replication" ("placer",
 * "simple", "network_topology": placer_builder_set_replication with
 * "replicas" as the factor), and "nodes", each with
 * "id" and optionally "zone", "weight" (default 1), "state" ("active",
 * "joining", "draining", "down"), "address" and "tokens". Or a
 * compatibility mode (docs/COMPAT.md): "compat" ("libmemcached",
 * "twemproxy", "nginx", "haproxy", "redis", "kafka"; placer_builder_set_compat)
 * with the program's "distribution" and "key_hash" names, "avalanche"
 * (haproxy), "hash_tag" (twemproxy), "slots" (Redis: [[first, last,
 * "master id", "replica id"...], ...], every slot once, into a 16,384-row
 * partition map), Kafka's "partitioner" (required) and "partitions" (a
 * count, or rows [leader id or null, replica id...]), and per node
 * "address" (hashed by libmemcached and nginx, required there), integer
 * weights (none for Redis and Kafka) and "hash_id" (haproxy); strategy,
 * seed, vnodes, replicas, partitions (but Kafka's) and tokens are errors
 * in a mode. 64-bit values may
 * be strings, strictly decimal or 0x hex ("0xffffffffffffffff"; no sign,
 * space or leading zero). Unknown fields are errors, and so are fields the
 * strategy does not use (README.md lists which); what the builder would
 * refuse for the content (partitions past PLACER_MAX_PARTITIONS, a Maglev
 * size that is not prime, no node left to own keys now or after the
 * transition, jump buckets claimed twice) is refused here with its place,
 * so a builder this returns builds unless past PLACER_MAX_TOKENS or out of
 * memory. name (the
 * file's name, or NULL) starts every message written into why (when not
 * NULL): "FILE:LINE:COLUMN: FIELD: what is wrong". *epoch receives the
 * file's epoch (0 when it has none). Returns 1 when the file has an epoch,
 * 0 when not, or PLACER_ENULL, PLACER_ENOMEM or PLACER_EFORMAT (*out
 * untouched). */
PLACER_CONTROL_API int placer_membership_parse(const char *json, size_t len, const char *name,
                                       placer_builder **out, uint64_t *epoch, char *why,
                                       size_t why_len);

/* ------------------------------------------------------------------------ */
/* Snapshots through etcd (v3 JSON API; docs/ETCD.md)                       */
/* ------------------------------------------------------------------------ */

/*
 * endpoints: comma-separated URLs of etcd members ("http://10.0.0.1:2379,
 * http://10.0.0.2:2379"); calls move to the next member when one fails and
 * back off exponentially, for at most timeout_ms (<= 0: 5,000) per call.
 * why (when not NULL) receives a message for any error.
 */

/*
 * Connection settings for the calls below that take a placer_etcd_config:
 * endpoints and timeout as above, and optionally TLS (https:// endpoints)
 * and etcd's user authentication. Every string is copied; the password is
 * overwritten with zeros when the config is freed. A config is read, never
 * changed, by the calls that take it: several threads may share one.
 */
typedef struct placer_etcd_config placer_etcd_config;

/* A config for endpoints (comma-separated URLs) with calls bounded by
 * timeout_ms (<= 0: 5,000). Returns 0 and *out (free it with
 * placer_etcd_config_free), PLACER_ENULL, PLACER_EINVAL (no endpoint, or
 * one that is neither http:// nor https://) or PLACER_ENOMEM. */
PLACER_CONTROL_API int placer_etcd_config_new(const char *endpoints, long timeout_ms,
                                      placer_etcd_config **out);

/* Release c; NULL is accepted. */
PLACER_CONTROL_API void placer_etcd_config_free(placer_etcd_config *c);

/* TLS: cacert, a PEM file of the CAs that sign the members' certificates
 * (NULL: the system's CAs); cert and cert_key, PEM files of the client
 * certificate and its private key, for members started with
 * --client-cert-auth (both or neither). The files are read when a call
 * connects; they must be readable now. Returns 0, PLACER_ENULL,
 * PLACER_EINVAL (cert without cert_key or the reverse, or a file that
 * cannot be opened: why names it) or PLACER_ENOMEM. */
PLACER_CONTROL_API int placer_etcd_config_set_tls(placer_etcd_config *c, const char *cacert,
                                          const char *cert, const char *cert_key, char *why,
                                          size_t why_len);
/* (set_tls also returns PLACER_EINVAL when cacert or cert is given and one
 * of c's endpoints is http://: TLS files would not apply to it.) */

/* A keyed snapshot (key hash PLACER_HASH_SIPHASH13) carries its secret in
 * its chunks: publishing one when any endpoint is http:// is refused with
 * PLACER_EINVAL (why says so) unless allow is non-zero here, knowing that
 * anyone on the network path then reads the secret. Returns 0 or
 * PLACER_ENULL. */
PLACER_CONTROL_API int placer_etcd_config_allow_cleartext_secret(placer_etcd_config *c, int allow);

/* etcd's user authentication: calls authenticate as user with password
 * (/v3/auth/authenticate) and send the token etcd gives; a token etcd has
 * expired is replaced by authenticating again, once per call. Returns 0,
 * PLACER_ENULL, PLACER_EINVAL (an empty user or password) or
 * PLACER_ENOMEM. */
PLACER_CONTROL_API int placer_etcd_config_set_user(placer_etcd_config *c, const char *user,
                                           const char *password);

/* Publish s under key if its epoch is newer than the one stored (any
 * epoch, 0 included, when nothing is stored yet), in one
 * compare-and-swap transaction (chunks first, the manifest last; superseded
 * chunks are deleted). Returns 0, PLACER_ECONFLICT (the stored epoch, in
 * *current_epoch when not NULL, is as new or newer: another publisher won),
 * PLACER_EUNAVAIL, PLACER_ENULL, PLACER_ENOMEM or PLACER_EFORMAT.
 * A transaction whose answer was lost is settled by reading key back
 * (docs/ETCD.md, "Publishing"): found stored, the publish returns 0 with
 * why saying so; not found while no member answered, PLACER_EUNAVAIL
 * with why saying the outcome is unknown (read the stored epoch before
 * publishing it again). */
/* Every request of a publish (the epoch read, each chunk, the transaction)
 * is bounded by timeout_ms, so a publish of C chunks ends within about
 * (C + 3) x timeout_ms. A keyed snapshot and an http:// endpoint:
 * PLACER_EINVAL (placer_etcd_config_allow_cleartext_secret). */
PLACER_CONTROL_API int placer_etcd_publish(const char *endpoints, const char *key,
                                   const placer_snapshot *s, long timeout_ms,
                                   uint64_t *current_epoch, char *why, size_t why_len);

/* placer_etcd_publish through a config (TLS, authentication). key: 1 to
 * PLACER_MAX_ETCD_KEY bytes of UTF-8 without control characters. Also
 * returns PLACER_EINVAL (a key refused: why says which byte) and
 * PLACER_EAUTH (credentials refused, a certificate rejected, or the user
 * may not write under key: why says which). */
PLACER_CONTROL_API int placer_etcd_publish_ex(const placer_etcd_config *c, const char *key,
                                      const placer_snapshot *s, uint64_t *current_epoch,
                                      char *why, size_t why_len);
#define PLACER_MAX_ETCD_KEY 512u /* bytes in a key snapshots are published under */

/* The snapshot published under key, decoded and verified (*out; release
 * with placer_snapshot_free). timeout_ms bounds the whole fetch, every
 * chunk included (the manifest's chunks are read one by one, the deadline
 * checked between them and inside each transfer). Returns 0, PLACER_EMISSING, PLACER_EUNAVAIL,
 * a decode error (PLACER_ECHECKSUM, ...), PLACER_ENULL or PLACER_ENOMEM. */
PLACER_CONTROL_API int placer_etcd_fetch(const char *endpoints, const char *key, long timeout_ms,
                                 placer_snapshot **out, char *why, size_t why_len);

/* placer_etcd_fetch through a config; also returns PLACER_EAUTH. */
PLACER_CONTROL_API int placer_etcd_fetch_ex(const placer_etcd_config *c, const char *key,
                                    placer_snapshot **out, char *why, size_t why_len);

/* placer_etcd_fetch_ex for a poller that reads key again and again: only
 * the value under key (the manifest) is read when key has not changed.
 * *revision is etcd's modification revision of key as the caller last read
 * it (0 the first time). When key still has that revision, returns 0 with
 * *out NULL. Otherwise fetches as placer_etcd_fetch_ex; *revision then
 * becomes key's revision when a value was read, taken or refused (a refused
 * value is not read again until key changes), and stays as it was when
 * etcd gave no value (PLACER_EUNAVAIL, PLACER_EMISSING, PLACER_EAUTH,
 * PLACER_ECOMPACTED, PLACER_ENOMEM). */
PLACER_CONTROL_API int placer_etcd_fetch_changed(const placer_etcd_config *c, const char *key,
                                         int64_t *revision, placer_snapshot **out,
                                         char *why, size_t why_len);

/* A follower: a thread that reads the snapshot under key, then watches it
 * from the next revision; every new snapshot is fetched, decoded and
 * verified, then published into the router. A bad, partial or older one is
 * rejected with a reason and the router keeps its last good one; a
 * compacted watch restarts from a fresh read; members that fail are left
 * for the next. r: the router to publish into, or NULL to let the follower
 * make one from the first good snapshot (placer_follower_router). on_event
 * (when not NULL) is called from the follower's thread for every snapshot
 * seen: accepted (1) or not (0), with the reason. */
typedef struct placer_follower placer_follower;
typedef void (*placer_follower_event_fn)(void *ctx, uint64_t epoch, int accepted,
                                         const char *reason);
PLACER_CONTROL_API int placer_follower_start(const char *endpoints, const char *key, placer_router *r,
                                     placer_follower_event_fn on_event, void *ctx,
                                     placer_follower **out);

/* placer_follower_start through a config (copied: free it when you like).
 * Credentials etcd refuses are retried with backoff like an unavailable
 * member, and reported in the status's last_error. */
PLACER_CONTROL_API int placer_follower_start_ex(const placer_etcd_config *c, const char *key,
                                        placer_router *r, placer_follower_event_fn on_event,
                                        void *ctx, placer_follower **out);

/* Stop the thread and release the follower (and the router it made, if it
 * made one). Returns within about 100 ms, whatever the members do: the
 * thread's transfers and chunk reads look at the stop flag every 50 ms.
 * NULL is accepted. */
PLACER_CONTROL_API void placer_follower_stop(placer_follower *f);

/* The router the follower publishes into; NULL until it has one. */
PLACER_CONTROL_API placer_router *placer_follower_router(placer_follower *f);

/* Size-prefixed: set size to sizeof(placer_follower_status) before
 * placer_follower_status_get (placer_follower_status st = {.size = sizeof st});
 * fields may be added at the end without breaking callers. */
typedef struct placer_follower_status {
    size_t size;
    uint64_t epoch;       /* of the last snapshot accepted (0: none yet) */
    double age_seconds;   /* since it was accepted (since start when none) */
    uint64_t accepted, rejected;
    uint64_t resyncs;     /* fresh reads after a watch said its revision was compacted */
    int watching;         /* 1 while a watch stream is open */
    char last_error[256]; /* the last failure or rejection, "" when none */
} placer_follower_status;

/* A consistent copy of the follower's status. Returns 0, PLACER_ENULL, or
 * PLACER_EINVAL when st->size is below this version's struct. */
PLACER_CONTROL_API int placer_follower_status_get(placer_follower *f, placer_follower_status *st);

#ifdef __cplusplus
}
#endif

#endif /* PLACER_CONTROL_H */
