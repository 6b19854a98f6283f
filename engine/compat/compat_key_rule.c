/*
 * compat_key_rule.c -- the public calls of the programs' key rules
 * (key_rule.h): the builder's setter and its check at build, a snapshot's
 * rule, and placer_key_from_request, which applies it.
 */
#include <string.h>

#include "compat_index.h"
#include "compat_program.h"
#include "compat_snapshot.h"
#include "strategy_ops.h"
#include "validate.h"

int placer_builder_set_key_rule(placer_builder *b, const char *rule)
{
    PLC_VALIDATE_OR_RET(b, PLACER_ENULL);
    b->why = NULL;
    plc_key_rule r;
    char why[sizeof b->why_buf];
    if (plc_key_rule_parse(rule, &r, why, sizeof why))
        return plc_builder_refuse(b, "%s", why);
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    if (r.kind && !(p && (p->fields & PLC_CF_KEY_RULE)))
        return plc_builder_refuse(b, "a key rule (\"%s\") is haproxy's balance: set the haproxy "
                                     "mode first (nginx hashes its evaluated key as given, "
                                     "twemproxy's rule is hash_tag)", rule);
    b->key_rule = r;
    return 0;
}

int plc_compat_check_key_rule(placer_builder *b)
{
    int source_hash = b->compat_hash == PLC_CH_HAP_SOURCE;
    uint32_t kind = b->key_rule.kind;
    const plc_compat_program *p = plc_compat_program_get(b->compat);
    if (kind && !(p->fields & PLC_CF_KEY_RULE))
        return plc_builder_refuse(b, "a key rule with %s: only %s has one", p->name,
                                  plc_compat_program_with(PLC_CF_KEY_RULE)->name);
    if (kind == PLC_KR_SOURCE && !source_hash)
        return plc_builder_refuse(
            b, "key rule \"source\" with key hash %s: balance source hashes the address by key "
               "hash \"source\"",
            plc_compat_hash_name(b->compat,
                                 b->compat_hash ? b->compat_hash
                                                : plc_compat_program_distribution(p, b->compat_dist)
                                                      ->key_hash));
    if (kind && kind != PLC_KR_SOURCE && source_hash)
        return plc_builder_refuse(b, "key hash \"source\" with key rule \"%s\": the source hash "
                                     "reads an address (key rule \"source\")",
                                  kind == PLC_KR_URI ? "uri" : kind == PLC_KR_HDR ? "hdr()"
                                                                                  : "url_param");
    return 0;
}

const char *placer_snapshot_key_rule(const placer_snapshot *s)
{
    if (!s)
        return NULL;
    return s->compat ? s->compat->rule_text : "";
}

int placer_key_from_request(const placer_snapshot *s, const void *in, size_t len, void *out,
                            size_t cap, size_t *out_len)
{
    PLC_VALIDATE_OR_RET(s && out_len && (in || !len) && (out || !cap), PLACER_ENULL);
    static const plc_key_rule none = {0};
    const plc_key_rule *r = s->compat ? &s->compat->rule : &none;
    unsigned char addr[16];
    const unsigned char *key;
    size_t n;
    int err = plc_key_rule_apply(r, len ? in : (const void *)"", len, addr, &key, &n);
    if (err)
        return err;
    *out_len = n;
    if (n > cap)
        return PLACER_ERANGE;
    if (n)
        memmove(out, key, n); /* in and out may be one buffer */
    return 0;
}
