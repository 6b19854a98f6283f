/* peer_urcu_memb.c -- the router's pattern on liburcu's memb flavour. */
#include <urcu/urcu-memb.h>

#define URCU(x) urcu_memb_##x
#define PEER_NAME sync_urcu_memb
#define PEER_LABEL "urcu_memb"
#include "peer_urcu_body.h"
