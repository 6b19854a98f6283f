/*
 * json_locate.h -- where a value sits in JSON text, by its path
 * ("nodes", 3, "weight"), as line and column: jansson parses without
 * keeping positions, and a membership file's errors must point at the
 * field at fault. The text must be valid JSON (jansson has parsed it).
 */
#ifndef PLC_CONTROL_JSON_LOCATE_H
#define PLC_CONTROL_JSON_LOCATE_H

#include <stddef.h>

/* One step of a path: a member name, or (name NULL) an array index. */
typedef struct plc_json_step {
    const char *name;
    size_t index;
} plc_json_step;

/* Line and column (both from 1) of the value at path[0..depth) in text;
 * where the path cannot be followed all the way, of the deepest value
 * found. */
void plc_json_locate(const char *text, size_t len, const plc_json_step *path, size_t depth,
                     int *line, int *column);

#endif
