/* svg_plot.h -- line charts as SVG, written by placer itself (no plotting
 * dependency): one or more panels side by side, x on a log2 axis, y linear
 * or on a log scale of the excess over 1 (where 1.00 to 1.20 stays readable
 * beside 5.0). Each series style has its own colour, marker and dash, so
 * series that overlap stay visible. */
#ifndef PLACER_CLI_SVG_PLOT_H
#define PLACER_CLI_SVG_PLOT_H

#include <stdint.h>
#include <stdio.h>

typedef struct svg_series {
    const char *name;
    const double *x, *y; /* n points; n == 1: a horizontal line at y[0] */
    uint32_t n;
    int reference;       /* a grey reference line (an ideal), not a measurement */
    int style;           /* colour, marker and dash; series of one strategy share it */
    int hollow;          /* hollow markers (a second measure of the same strategy) */
    int mark;            /* index of a point to circle and label, or -1 */
    const char *mark_label;
} svg_series;

typedef struct svg_panel {
    const char *title, *xlabel, *ylabel;
    int log_excess;      /* y axis: log scale of (y - 1); else linear from 0 */
    int percent;         /* linear y labels as percentages */
    const svg_series *series;
    uint32_t nseries;
} svg_panel;

/* Write the chart to f: a title over npanels panels. Returns 0, or -1 when
 * f reports a write error. */
int svg_plot(FILE *f, const char *title, const svg_panel *panels, uint32_t npanels);

#endif
