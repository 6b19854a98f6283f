/* peer_urcu_qsbr.c -- the router's pattern on liburcu's qsbr flavour. */
#include <urcu/urcu-qsbr.h>

#define URCU(x) urcu_qsbr_##x
#define PEER_NAME sync_urcu_qsbr
#define PEER_LABEL "urcu_qsbr"
#include "peer_urcu_body.h"
