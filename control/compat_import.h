/*
 * compat_import.h -- what the imports of other programs' configurations
 * (twemproxy_import.c, redis_import.c, haproxy_import.c, nginx_import.c)
 * share: each writes a membership document, and a snapshot is built from
 * it by placer_membership_parse's code (from its text, or from the tree in
 * memory), so an import and `placer build` of the document it writes are
 * the same placement.
 */
#ifndef PLC_CONTROL_COMPAT_IMPORT_H
#define PLC_CONTROL_COMPAT_IMPORT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "placer.h"

/* The most servers an importer takes in one backend, upstream or pool: a
 * line of a few bytes (haproxy's server-template 1-1048575) must not make
 * gigabytes of document. Above every point cap but map-based tables'. */
#define PLC_IMP_MAX_SERVERS 100000u

/* doc as indented JSON text ending in a newline, through placer_mem_alloc
 * (*text; release with placer_mem_free) with its length. Returns 0 or
 * PLACER_ENOMEM. */
int plc_ctl_dump_membership(const json_t *doc, char **text, size_t *len);

/* Parse a membership document an import wrote (name: what to call it in a
 * message) and build it, at `epoch` when has_epoch, else at the
 * document's. Returns 0 and *out, or the parse or build error with why. */
int plc_ctl_build_membership(const char *text, size_t len, const char *name, int has_epoch,
                             uint64_t epoch, placer_snapshot **out, char *why, size_t why_len);

/* The end of every placer_*_import: err is what its membership call
 * returned, doc and doc_len the document it wrote (released here). When err
 * is 0 the document is built (plc_ctl_build_membership) into *out, and on
 * success why keeps the notes the membership call left in it. Returns err,
 * or the build's error. */
int plc_ctl_import_doc(int err, char *doc, size_t doc_len, const char *name, int has_epoch,
                       uint64_t epoch, placer_snapshot **out, char *why, size_t why_len);

/* placer_membership_parse's reading of a document already in memory (an
 * import's own tree, changed: its base64 fields are decoded), without the
 * text round trip. No message: on an error other than PLACER_ENOMEM the
 * caller parses the document's text to say where (plc_ctl_import_tree).
 * Returns what placer_membership_parse returns. */
int plc_membership_read_tree(json_t *root, placer_builder **out, uint64_t *epoch);

/* The end of an import that made its document as a tree: build doc
 * (released here) at `epoch` into *out. When the tree does not read as a
 * membership (an importer's defect, or a limit only the parse checks), the
 * document is made again as text by remake(arg, ...) and parsed, so the
 * message names its line and column. On success why keeps the notes it
 * holds. Returns 0 or the error. */
int plc_ctl_import_tree(json_t *doc, const char *name, uint64_t epoch, placer_snapshot **out,
                        int (*remake)(void *arg, char **text, size_t *len, char *why,
                                      size_t why_len),
                        void *arg, char *why, size_t why_len);

/* o[field] = the n bytes of s as a JSON string when they are UTF-8
 * without a NUL, else o[field + "_base64"] holding them in base64 (the
 * convention of docs/JSON.md, read back by placer_membership_parse), so
 * every byte a program's file holds reaches the document. Returns 0 or
 * PLACER_ENOMEM. */
int plc_imp_set_text(json_t *o, const char *field, const char *s, size_t n);

/* The importers with their work counted: every hash-set probe adds 1 to
 * *work (NULL: not counted). The public placer_*_membership calls these
 * with NULL; the step-count tests read the count. */
int plc_haproxy_membership_counted(const char *cfg, size_t len, const char *backend, char **json,
                                   size_t *json_len, char *why, size_t why_len, uint64_t *work);
int plc_nginx_membership_counted(const char *path, const char *upstream, unsigned flags,
                                 char **json, size_t *json_len, char *why, size_t why_len,
                                 uint64_t *work);
int plc_twemproxy_membership_counted(const char *yaml, size_t len, const char *pool, char **json,
                                     size_t *json_len, char *why, size_t why_len, uint64_t *work);

#endif
