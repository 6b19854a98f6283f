/*
 * fuzz_key_rule.c -- the key rule's parser and its application to a
 * request (engine/compat/key_rule.c) on arbitrary bytes: a rule that
 * parses passes the hostile-input check and writes back to words that
 * parse to the same rule; the raw fields, checked as the decoder checks
 * them, never crash the writer; a request's key lies inside the request
 * (or is a 4- or 16-byte address) and keeps each option's promise.
 *
 * Input: the rule's words up to the first '\n', then the request's bytes
 * (the first 21 bytes also read as raw fields: kind, flags, len, depth,
 * name length and the name).
 */
#include <string.h>

#include "fuzz.h"
#include "key_rule.h"
#include "placer.h"

/* raw fields, as a forged snapshot could hold them */
static void raw_fields(const uint8_t *data, size_t size)
{
    fuzz_producer p = {data, size};
    plc_key_rule r;
    memset(&r, 0, sizeof r);
    r.kind = fuzz_u8(&p) % 8;
    r.flags = fuzz_u8(&p) % 16;
    r.len = fuzz_u32(&p);
    r.depth = fuzz_u32(&p);
    r.name_len = fuzz_u8(&p) % (PLC_KEY_RULE_NAME_MAX + 8);
    size_t n = r.name_len < PLC_KEY_RULE_NAME_MAX ? r.name_len : PLC_KEY_RULE_NAME_MAX;
    memcpy(r.name, p.data, n < p.size ? n : p.size);
    char why[160], text[PLC_KEY_RULE_TEXT_MAX];
    if (plc_key_rule_check(&r, why, sizeof why) == 0) {
        plc_key_rule_format(&r, text, sizeof text);
        plc_key_rule again;
        FUZZ_ASSERT(plc_key_rule_parse(text, &again, why, sizeof why) == 0);
        FUZZ_ASSERT(again.kind == r.kind && again.flags == r.flags && again.len == r.len &&
                    again.depth == r.depth && !strcmp(again.name, r.name));
    } else {
        FUZZ_ASSERT(why[0] != '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    raw_fields(data, size);
    const uint8_t *nl = memchr(data, '\n', size);
    size_t rule_len = nl ? (size_t)(nl - data) : size;
    if (rule_len > 400)
        return 0;
    char words[401];
    memcpy(words, data, rule_len);
    words[rule_len] = '\0'; /* a NUL inside ends the words early: fine */
    plc_key_rule r;
    char why[160];
    if (plc_key_rule_parse(words, &r, why, sizeof why) != 0) {
        FUZZ_ASSERT(why[0] != '\0');
        return 0;
    }
    FUZZ_ASSERT(plc_key_rule_check(&r, why, sizeof why) == 0);
    char text[PLC_KEY_RULE_TEXT_MAX];
    plc_key_rule_format(&r, text, sizeof text);
    plc_key_rule again;
    FUZZ_ASSERT(plc_key_rule_parse(text, &again, why, sizeof why) == 0);
    FUZZ_ASSERT(again.kind == r.kind && again.flags == r.flags && again.len == r.len &&
                again.depth == r.depth && !strcmp(again.name, r.name));

    const uint8_t *in = nl ? nl + 1 : data + size;
    size_t len = (size_t)(data + size - in);
    unsigned char addr[16];
    const unsigned char *key = NULL;
    size_t n = 0;
    if (plc_key_rule_apply(&r, in, len, addr, &key, &n) != 0) {
        FUZZ_ASSERT(r.kind == PLC_KR_SOURCE || r.kind == PLC_KR_URL_PARAM ||
                    r.kind == PLC_KR_HDR);
        return 0;
    }
    if (r.kind == PLC_KR_SOURCE) {
        FUZZ_ASSERT(key == addr && (n == 4 || n == 16));
        return 0;
    }
    FUZZ_ASSERT(key >= in && n <= len && (size_t)(key - in) <= len - n);
    size_t slashes = 0;
    for (size_t i = 0; i < n; i++)
        slashes += key[i] == '/';
    switch (r.kind) {
    case PLC_KR_NONE: FUZZ_ASSERT(key == in && n == len); break;
    case PLC_KR_URI:
        FUZZ_ASSERT(!r.len || n <= r.len);
        FUZZ_ASSERT(!r.depth || slashes <= r.depth);
        FUZZ_ASSERT((r.flags & PLC_KR_WHOLE) || !memchr(key, '?', n));
        FUZZ_ASSERT(!(r.flags & PLC_KR_PATH_ONLY) || !n || key[0] == '/');
        break;
    case PLC_KR_URL_PARAM:
        FUZZ_ASSERT(!memchr(key, '&', n) && key > in && key[-1] == '=');
        break;
    default: /* hdr */
        FUZZ_ASSERT((r.flags & PLC_KR_DOMAIN_ONLY) || (n && key[0] != ' ' && key[n - 1] != ' '));
    }
    return 0;
}
