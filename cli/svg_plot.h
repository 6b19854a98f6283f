/* svg_plot.h -- small multiples as SVG, written by placer itself (no
 * plotting dependency): a grid of small panels, one row per subject (a
 * strategy) and one column per measure, every panel of a column on the same
 * y range so rows compare at a glance, x on a shared log2 axis. A panel's y
 * is linear from 0, log10, or a log scale of the excess over 1 (where 1.00
 * to 1.20 stays readable beside 5.0). Reference lines (ideals) are drawn
 * in black over the measurements, so no series hides them. */
#ifndef PLACER_CLI_SVG_PLOT_H
#define PLACER_CLI_SVG_PLOT_H

#include <stdint.h>
#include <stdio.h>

typedef struct svg_series {
    const char *name;    /* a reference line's label; else unused */
    const double *x, *y; /* n points; n == 1: a horizontal line at y[0] */
    const double *lo, *hi; /* a band from lo to hi under the line, or NULL */
    uint32_t n;
    int reference;       /* a reference line (an ideal), not a measurement */
    int hollow;          /* hollow markers and a dashed line (a second measure; a
                          * reference: dashed, as the measure it is the ideal of) */
    int mark;            /* index of a point to circle and label, or -1 */
    const char *mark_label;
} svg_series;

enum { SVG_LINEAR, SVG_LOG10, SVG_LOG_EXCESS };

typedef struct svg_panel {
    int scale;           /* SVG_* */
    int percent;         /* linear y labels as percentages */
    double ymin, ymax;   /* the y range shown (values); ymax <= ymin: from the data */
    const svg_series *series;
    uint32_t nseries;    /* 0: an empty panel (a measure the row does not have) */
} svg_panel;

typedef struct svg_grid {
    const char *title, *subtitle, *subtitle2, *xlabel; /* subtitles may be NULL */
    const char *const *row_labels; /* rows entries */
    const char *const *col_titles; /* cols entries */
    uint32_t rows, cols;
    const svg_panel *panels;       /* rows * cols, row by row */
} svg_grid;

/* Write the grid to f; each row has its own colour and marker. Returns 0,
 * or -1 when f reports a write error. */
int svg_grid_plot(FILE *f, const svg_grid *g);

#endif
