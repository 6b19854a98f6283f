/*
 * validate.h -- one macro for argument checks (dav1d's validate_input_or_ret):
 * returns the error in every build; in debug builds with PLACER_ASSERT_INPUT
 * defined it also asserts, to stop at the first misuse under a debugger.
 */
#ifndef PLC_ENGINE_VALIDATE_H
#define PLC_ENGINE_VALIDATE_H

#if defined(PLACER_ASSERT_INPUT) && !defined(NDEBUG)
#include <assert.h>
#define PLC_VALIDATE_OR_RET(cond, err) \
    do {                               \
        if (!(cond)) {                 \
            assert(!#cond);            \
            return (err);              \
        }                              \
    } while (0)
#else
#define PLC_VALIDATE_OR_RET(cond, err) \
    do {                               \
        if (!(cond))                   \
            return (err);              \
    } while (0)
#endif

#endif
