/*
 * test_ubsan_halts -- the UBSan exemption in engine/urcu_bp_read.h is as
 * narrow as it says.
 *
 * With an argument "urcu": a read-side section through the same header the
 * router uses, on a thread whose liburcu-bp reader sits misaligned in
 * liburcu's arena: it must run to the end (prints "survived").
 * With "own": an access of placer's own code to a 128-byte-aligned struct
 * at a misaligned address, in a file that includes the same header: UBSan
 * must report it and stop the program before "survived" is printed.
 * tests/test_ubsan_halts.sh runs both and checks each outcome.
 */
#define _LGPL_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "urcu_bp_read.h"

struct plc_wide {
    unsigned long ctr;
} __attribute__((aligned(128)));

/* noinline, and the pointer through a volatile, so the compiler cannot
 * prove anything about the address. */
__attribute__((noinline)) static unsigned long touch(struct plc_wide *w)
{
    w->ctr += 1;
    return w->ctr;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    if (strcmp(argv[1], "urcu") == 0) {
        for (int i = 0; i < 3; i++) {
            urcu_bp_read_lock();
            urcu_bp_read_unlock();
        }
    } else if (strcmp(argv[1], "own") == 0) {
        static unsigned char arena[512] __attribute__((aligned(128)));
        unsigned char *volatile p = arena + 32;
        printf("value %lu\n", touch((struct plc_wide *)p));
    } else {
        return 2;
    }
    printf("survived\n");
    return 0;
}
