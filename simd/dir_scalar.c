/* dir_scalar.c -- the directory lookup of dir.h with plain compares (any
 * CPU; the leaf ranks: stree_rank_scalar.h); crowded entries take the
 * scalar S+ tree descent. */
#include <stdint.h>

#include "dir.h"
#include "stree_rank_scalar.h"

#define PLC_DIR_ONE plc_dir_scalar
#define PLC_DIR_BATCH plc_dir_batch_scalar
#define PLC_DIR_TREE_ONE plc_stree_scalar
#define PLC_DIR_TREE_BATCH plc_stree_batch_scalar
#include "dir_body.h"
