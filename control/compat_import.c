/* compat_import.c -- see compat_import.h. */
#include <stdio.h>
#include <string.h>

#include "base64.h"
#include "compat_import.h"
#include "control_alloc.h"
#include "placer_control.h"

int plc_ctl_dump_membership(const json_t *doc, char **text, size_t *len)
{
    char *dumped = json_dumps(doc, JSON_INDENT(2));
    if (!dumped)
        return PLACER_ENOMEM;
    size_t n = strlen(dumped);
    char *copy = placer_mem_alloc(n + 2);
    if (copy) {
        memcpy(copy, dumped, n);
        copy[n] = '\n';
        copy[n + 1] = '\0';
        *text = copy;
        if (len)
            *len = n + 1;
    }
    plc_ctl_json_free(dumped);
    return copy ? 0 : PLACER_ENOMEM;
}

int plc_ctl_build_membership(const char *text, size_t len, const char *name, int has_epoch,
                             uint64_t epoch, placer_snapshot **out, char *why, size_t why_len)
{
    placer_builder *b = NULL;
    uint64_t doc_epoch = 0;
    int err = placer_membership_parse(text, len, name, &b, &doc_epoch, why, why_len);
    if (err < 0)
        return err;
    err = placer_builder_build(b, has_epoch ? epoch : doc_epoch, out);
    placer_builder_free(b);
    if (err && err != PLACER_ENOMEM && why && why_len)
        snprintf(why, why_len, "%s: %s", name, placer_strerror(err));
    return err;
}

int plc_ctl_import_doc(int err, char *doc, size_t doc_len, const char *name, int has_epoch,
                       uint64_t epoch, placer_snapshot **out, char *why, size_t why_len)
{
    char *notes = NULL;
    if (!err && why && why_len && why[0]) {
        size_t n = strlen(why) + 1;
        notes = placer_mem_alloc(n);
        if (notes)
            memcpy(notes, why, n);
        else
            err = PLACER_ENOMEM;
    }
    if (!err)
        err = plc_ctl_build_membership(doc, doc_len, name, has_epoch, epoch, out, why, why_len);
    if (!err && notes)
        snprintf(why, why_len, "%s", notes);
    placer_mem_free(notes);
    placer_mem_free(doc);
    return err;
}

int plc_ctl_import_tree(json_t *doc, const char *name, uint64_t epoch, placer_snapshot **out,
                        int (*remake)(void *arg, char **text, size_t *len, char *why,
                                      size_t why_len),
                        void *arg, char *why, size_t why_len)
{
    placer_builder *b = NULL;
    uint64_t doc_epoch;
    int err = plc_membership_read_tree(doc, &b, &doc_epoch);
    json_decref(doc);
    if (err >= 0) {
        err = placer_builder_build(b, epoch, out);
        placer_builder_free(b);
        if (err && err != PLACER_ENOMEM && why && why_len)
            snprintf(why, why_len, "%s: %s", name, placer_strerror(err));
        return err;
    }
    if (err == PLACER_ENOMEM)
        return err;
    char *text = NULL;
    size_t len = 0;
    err = remake(arg, &text, &len, why, why_len);
    return plc_ctl_import_doc(err, text, len, name, 1, epoch, out, why, why_len);
}

int plc_imp_set_text(json_t *o, const char *field, const char *s, size_t n)
{
    json_t *v = memchr(s, '\0', n) ? NULL : json_stringn(s, n);
    if (v)
        return json_object_set_new(o, field, v) ? PLACER_ENOMEM : 0;
    char name[64];
    char *b64 = placer_mem_alloc(plc_b64_len(n) + 1);
    if (!b64 || snprintf(name, sizeof name, "%s_base64", field) >= (int)sizeof name) {
        placer_mem_free(b64);
        return PLACER_ENOMEM;
    }
    plc_b64_encode(s, n, b64);
    int err = json_object_set_new(o, name, json_string(b64)) ? PLACER_ENOMEM : 0;
    placer_mem_free(b64);
    return err;
}
