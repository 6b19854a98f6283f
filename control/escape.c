/* escape.c -- placer_escape (placer_control.h): the one way input bytes are
 * quoted in messages and text output. A membership field name, a YAML
 * scalar or a Redis flag may hold ESC, BEL or a whole OSC sequence; printed
 * raw it would retitle or repaint the terminal reading the error. */
#include "placer_control.h"

size_t placer_escape(char *out, size_t cap, const void *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = text;
    size_t need = 0, at = 0;
    int full = !out || !cap;
    for (size_t i = 0; s && i < len; i++) {
        char e[4];
        size_t k;
        if (s[i] < 0x20 || s[i] == 0x7f) {
            e[0] = '\\', e[1] = 'x', e[2] = hex[s[i] >> 4], e[3] = hex[s[i] & 15];
            k = 4;
        } else if (s[i] == '\\') {
            e[0] = '\\', e[1] = '\\';
            k = 2;
        } else {
            e[0] = (char)s[i];
            k = 1;
        }
        need += k;
        /* an escape is written whole or not at all, so a cut never leaves
         * half of one (a lone backslash) at the end */
        if (!full && at + k < cap) {
            for (size_t j = 0; j < k; j++)
                out[at++] = e[j];
        } else {
            full = 1;
        }
    }
    if (out && cap)
        out[at] = '\0';
    return need;
}
