/*
 * haproxy_cond.h -- the condition of a haproxy 2.6 ".if" or ".elif" line
 * (cfgcond.c): terms joined by && and ||, each a number (true unless 0),
 * a predicate, or a parenthesised expression, "!" negating a term.
 * Predicates: defined(NAME) (set in the environment haproxy parses with),
 * streq(A,B), strneq(A,B), version_atleast(V), version_before(V) (against
 * haproxy 2.6); feature(NAME) depends on how the proxy's haproxy was
 * built, and a version inside 2.6 (2.6.5) on which 2.6 it is: those
 * cannot be decided here and are refused, never guessed.
 */
#ifndef PLC_CONTROL_HAPROXY_COND_H
#define PLC_CONTROL_HAPROXY_COND_H

#include <stddef.h>

#include "haproxy_lex.h"

/* Evaluate expr (NUL-terminated) into *truth. Returns 0, or -1 with why:
 * a condition haproxy refuses, or one the importer cannot decide. */
int hap_cond_eval(const char *expr, const hap_env *env, int *truth, char *why, size_t why_len);

#endif
