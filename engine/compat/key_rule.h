/*
 * key_rule.h -- how a program turns a request into the bytes it hashes
 * (docs/COMPAT.md, "The key rule"): haproxy 2.6's `balance source`, `uri`,
 * `url_param` and `hdr()`, as backend.c's get_server_sh / _uh / _ph / _hh
 * read the request. A compat snapshot carries its rule (format v2 section
 * 11's fields after the mode: docs/FORMAT.md); placer_key_from_request and
 * `placer lookup` apply it to what a user types.
 */
#ifndef PLC_ENGINE_KEY_RULE_H
#define PLC_ENGINE_KEY_RULE_H

#include <stddef.h>
#include <stdint.h>

enum {
    PLC_KR_NONE = 0,   /* the bytes as given */
    PLC_KR_SOURCE,     /* a dotted IPv4 or an IPv6 address -> its 4 or 16 bytes */
    PLC_KR_URI,        /* the request target, cut as get_server_uh cuts it */
    PLC_KR_URL_PARAM,  /* the value of parameter `name` in a request target */
    PLC_KR_HDR,        /* a header's value: its first comma-separated element */
    PLC_KR_COUNT_,
};

/* flags */
#define PLC_KR_WHOLE 1u       /* uri: the query too */
#define PLC_KR_PATH_ONLY 2u   /* uri: the path, without scheme and authority */
#define PLC_KR_DOMAIN_ONLY 4u /* hdr: use_domain_only */

#define PLC_KEY_RULE_NAME_MAX 128u   /* url_param's and hdr()'s names */
#define PLC_KEY_RULE_INT_MAX 2147483647u /* uri len and depth: haproxy's atoi() > 0 */
#define PLC_KEY_RULE_TEXT_MAX 200u   /* the canonical text, its NUL included */
/* section 11's fields of a rule: kind, flags, len, depth, name length,
 * then the name's bytes, 4 a field, zero-padded */
#define PLC_KEY_RULE_FIELDS 5u

typedef struct plc_key_rule {
    uint32_t kind;  /* PLC_KR_* */
    uint32_t flags; /* PLC_KR_WHOLE | PLC_KR_PATH_ONLY | PLC_KR_DOMAIN_ONLY */
    uint32_t len, depth; /* uri: `len N`, `depth N`; 0: none */
    uint32_t name_len;
    char name[PLC_KEY_RULE_NAME_MAX + 1]; /* NUL-terminated */
} plc_key_rule;

/* A rule in haproxy's `balance` words ("source", "uri whole depth 2",
 * "url_param k", "hdr(Host) use_domain_only"; "" or "none": none) into
 * *out. 0, or PLACER_EINVAL with the reason in why (cap bytes). */
int plc_key_rule_parse(const char *text, plc_key_rule *out, char *why, size_t cap);

/* A rule's fields as hostile input: 0, or PLACER_EINVAL with the reason. */
int plc_key_rule_check(const plc_key_rule *r, char *why, size_t cap);

/* The canonical text of a checked rule ("" for none), into out (at least
 * PLC_KEY_RULE_TEXT_MAX bytes). */
void plc_key_rule_format(const plc_key_rule *r, char *out, size_t cap);

/* The bytes the program hashes for the request value in[0..len): *key and
 * *key_len (inside in, or inside addr for source). 0, or PLACER_EINVAL
 * when the request has no key under the rule (not an address, no such
 * parameter, an empty header value: haproxy sends it round robin). */
int plc_key_rule_apply(const plc_key_rule *r, const unsigned char *in, size_t len,
                       unsigned char addr[16], const unsigned char **key, size_t *key_len);

#endif
