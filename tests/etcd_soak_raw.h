/*
 * etcd_soak_raw.h -- the soak's own view of etcd, beside placer's client:
 * a key's value and version, puts of forged manifests and chunks, and
 * compaction, through etcd's v3 JSON API (libcurl, jansson). Each call
 * tries the members of a comma-separated URL list in turn, 2 s at most
 * each (10 s for a put or a compaction).
 */
#ifndef PLACER_TESTS_ETCD_SOAK_RAW_H
#define PLACER_TESTS_ETCD_SOAK_RAW_H

#include <stddef.h>

/* key's value (malloc'd, NUL-terminated; NULL and 0 when absent), its
 * version (puts since it was created) and the store's revision. 0 or -1
 * when no member answered. */
int raw_get(const char *urls, const char *key, char **value, size_t *len, long long *version,
            long long *revision);

/* Put value under key; 0 or -1. */
int raw_put(const char *urls, const char *key, const void *value, size_t len);

/* Compact the history up to revision; 0 or -1. */
int raw_compact(const char *urls, long long revision);

#endif
