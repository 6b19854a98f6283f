/* svg_plot.h -- a line chart as an SVG file, written by placer itself (no
 * plotting dependency): x on a log2 axis, y linear. */
#ifndef PLACER_CLI_SVG_PLOT_H
#define PLACER_CLI_SVG_PLOT_H

#include <stdint.h>
#include <stdio.h>

typedef struct svg_series {
    const char *name;
    const double *x, *y; /* n points; n == 1: a horizontal dashed line at y[0] */
    uint32_t n;
    int mark;            /* index of a point to circle and label, or -1 */
    const char *mark_label;
} svg_series;

/* Write the chart; returns 0, or -1 when the file cannot be written. */
int svg_plot(const char *path, const char *title, const char *xlabel, const char *ylabel,
             const svg_series *series, uint32_t nseries);

#endif
