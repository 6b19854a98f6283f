/* etcd_member.c -- one real etcd member (tests/etcd_harness.c: loopback,
 * free ports, a temporary data directory) for tests written in another
 * language. Prints the member's client URL on a line of its own, then
 * obeys lines on stdin:
 *
 *   kill     SIGKILL the member (no goodbye)
 *   restart  start it again on its data directory and wait until it answers
 *
 * and prints "ok" or "failed" after each. End of input stops the member and
 * removes its directory. Exit 77 (skipped) when etcd is not installed. */
#include "etcd_harness.h"

#include <stdio.h>
#include <string.h>

int main(void)
{
    etcd_cluster c;

    if (!etcd_available()) {
        fprintf(stderr, "etcd_member: etcd is not installed\n");
        return 77;
    }
    if (etcd_start(&c, 1) != 0) {
        fprintf(stderr, "etcd_member: etcd did not start\n");
        return 1;
    }
    printf("%s\n", c.endpoints);
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin) != NULL) {
        int ok = 1;
        if (strncmp(line, "kill", 4) == 0) {
            etcd_kill(&c, 0);
        } else if (strncmp(line, "restart", 7) == 0) {
            ok = etcd_restart(&c, 0) == 0;
        } else {
            ok = 0;
        }
        printf("%s\n", ok ? "ok" : "failed");
        fflush(stdout);
    }
    etcd_destroy(&c);
    return 0;
}
