/* svg_plot.c -- see svg_plot.h. */
#include "svg_plot.h"

#include <math.h>

/* Twelve colours that stay apart on white (Tableau's 10, then two more),
 * and six marker shapes: eleven strategies and the balanced ring fit. */
static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22",
                                     "#393b79", "#637939"};
#define NCOLORS 12
#define NSHAPES 6

#define CW 250.0     /* a panel's width and height */
#define CH 170.0
#define PL 58.0      /* inside a panel: room for the y labels */
#define PR 10.0
#define PT 12.0
#define PB 26.0      /* the x tick labels */
#define ROWLAB 150.0 /* left of the grid: the row labels */
#define TOP 104.0    /* above it: title, two subtitle lines, column titles */
#define BOTTOM 34.0  /* below it: the x label */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
    esc(f, s);
    fputs("</text>\n", f);
}

/* A marker of shape s at (x, y). */
static void marker(FILE *f, int s, double x, double y, const char *c, int hollow)
{
    const char *fill = hollow ? "white" : c;
    switch (s % NSHAPES) {
    case 0:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x, y, fill, c);
        break;
    case 1:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x - 3.5, y - 3.5, fill, c);
        break;
    case 2:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 4.5, x - 4.5, y + 3.5, x + 4.5, y + 3.5, fill, c);
        break;
    case 3:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 4.5, x + 4.5, y, x, y + 4.5, x - 4.5, y, fill, c);
        break;
    case 4:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                x - 3.5, y - 3.5, x + 3.5, y + 3.5, x - 3.5, y + 3.5, x + 3.5, y - 3.5, c);
        break;
    default:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y + 4.5, x - 4.5, y - 3.5, x + 4.5, y - 3.5, fill, c);
    }
}

typedef struct axes {
    double x0, y0;   /* the panel's top left corner */
    double lx0, lx1; /* log2 of the x range */
    double a0, a1;   /* the y range in axis units (value, log10 value, log10 excess) */
    int scale;
} axes;

static double px(const axes *a, double v)
{
    return a->x0 + PL + (log2(v) - a->lx0) / (a->lx1 - a->lx0) * (CW - PL - PR);
}

/* A value in axis units; the floor of the axis for what it cannot show. */
static double unit(const axes *a, double v)
{
    double u = a->scale == SVG_LINEAR ? v
               : a->scale == SVG_LOG10 ? (v > 0 ? log10(v) : a->a0)
                                       : (v > 1 ? log10(v - 1) : a->a0);
    return u < a->a0 ? a->a0 : u > a->a1 ? a->a1 : u;
}

static double py(const axes *a, double v)
{
    return a->y0 + CH - PB - (unit(a, v) - a->a0) / (a->a1 - a->a0) * (CH - PT - PB);
}

/* The y range in axis units: given, or from the data. */
static void y_range(const svg_panel *p, axes *a)
{
    double lo = INFINITY, hi = -INFINITY;
    if (p->ymax > p->ymin) {
        lo = p->ymin, hi = p->ymax;
    } else {
        for (uint32_t s = 0; s < p->nseries; s++)
            for (uint32_t i = 0; i < p->series[s].n; i++) {
                const svg_series *x = &p->series[s];
                lo = fmin(lo, x->lo ? x->lo[i] : x->y[i]);
                hi = fmax(hi, x->hi ? x->hi[i] : x->y[i]);
            }
    }
    if (p->scale == SVG_LINEAR) {
        a->a0 = 0;
        a->a1 = isfinite(hi) && hi > 0 ? hi * 1.12 : 1;
    } else if (p->scale == SVG_LOG10) {
        a->a0 = isfinite(lo) && lo > 0 ? floor(log10(lo)) : 0;
        a->a1 = isfinite(hi) && hi > 0 ? ceil(log10(hi) + 1e-9) : a->a0 + 1;
        if (a->a1 <= a->a0)
            a->a1 = a->a0 + 1;
    } else {
        /* decades of the excess over 1, at least 1.001 .. 1.1 */
        double l = isfinite(lo) && lo > 1 ? log10(lo - 1) : -3;
        double h = isfinite(hi) && hi > 1 ? log10(hi - 1) : -1;
        a->a0 = floor(fmin(l, -1) - 1e-9);
        a->a1 = ceil(fmax(h, a->a0 + 2) + 1e-9);
        if (a->a0 < -6)
            a->a0 = -6;
    }
}

static void hline(FILE *f, const axes *a, double y, const char *stroke)
{
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
            a->x0 + PL, y, a->x0 + CW - PR, y, stroke);
}

static void y_ticks(FILE *f, const axes *a, int percent)
{
    char buf[32];
    if (a->scale == SVG_LOG_EXCESS) {
        /* 1 + 10^d, and 2 and 5 times it */
        for (double d = a->a0; d <= a->a1 + 1e-9; d++)
            for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
                double e = m * pow(10, d);
                if (log10(e) > a->a1 + 1e-9)
                    continue;
                snprintf(buf, sizeof buf, e >= 0.1 ? "%.2f" : e >= 0.01 ? "%.3f" : "%.4g", 1 + e);
                hline(f, a, py(a, 1 + e), m == 1 ? "#ccc" : "#eee");
                if (m == 1 || a->a1 - a->a0 <= 2)
                    text(f, a->x0 + PL - 5, py(a, 1 + e) + 4, "end", "", buf);
            }
    } else if (a->scale == SVG_LOG10) {
        for (double d = a->a0; d <= a->a1 + 1e-9; d++) {
            double v = pow(10, d);
            if (v >= 1e6)
                snprintf(buf, sizeof buf, "%gM", v / 1e6);
            else if (v >= 1e3)
                snprintf(buf, sizeof buf, "%gk", v / 1e3);
            else
                snprintf(buf, sizeof buf, "%g", v);
            hline(f, a, py(a, v), "#ddd");
            text(f, a->x0 + PL - 5, py(a, v) + 4, "end", "", buf);
        }
    } else {
        /* a round step: 1, 2 or 5 times a power of ten, at most 5 ticks */
        double step = pow(10, floor(log10(a->a1 / 5)));
        step *= a->a1 / step <= 5 ? 1 : a->a1 / (2 * step) <= 5 ? 2 : a->a1 / (5 * step) <= 5 ? 5 : 10;
        for (double v = 0; v <= a->a1 * (1 + 1e-9); v += step) {
            if (percent)
                snprintf(buf, sizeof buf, "%.3g%%", 100 * v);
            else
                snprintf(buf, sizeof buf, "%.3g", v);
            hline(f, a, py(a, v), "#ddd");
            text(f, a->x0 + PL - 5, py(a, v) + 4, "end", "", buf);
        }
    }
}

static void dash_attr(FILE *f, int dashed)
{
    if (dashed)
        fputs(" stroke-dasharray=\"5 3\"", f);
}

static void measurement(FILE *f, const axes *a, const svg_series *x, int style, double xmax)
{
    const char *c = colors[style % NCOLORS];
    double left = a->x0 + PL, right = a->x0 + CW - PR;
    if (x->n == 1) {
        /* a strategy without a tokens-per-node knob: the same at every x */
        if (x->lo && x->hi)
            fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                       "fill-opacity=\"0.18\"/>\n",
                    left, py(a, x->hi[0]), right - left, fmax(1, py(a, x->lo[0]) - py(a, x->hi[0])), c);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"",
                left, py(a, x->y[0]), right, py(a, x->y[0]), c);
        dash_attr(f, x->hollow);
        fputs("/>\n", f);
        for (double m = pow(2, ceil(a->lx0)); m <= xmax * 1.0001; m *= 4)
            marker(f, style, px(a, m), py(a, x->y[0]), c, x->hollow);
        return;
    }
    if (x->lo && x->hi) {
        fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" points=\"", c);
        for (uint32_t i = 0; i < x->n; i++)
            fprintf(f, "%.1f,%.1f ", px(a, x->x[i]), py(a, x->hi[i]));
        for (uint32_t i = x->n; i-- > 0;)
            fprintf(f, "%.1f,%.1f ", px(a, x->x[i]), py(a, x->lo[i]));
        fputs("\"/>\n", f);
    }
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", c);
    dash_attr(f, x->hollow);
    fputs(" points=\"", f);
    for (uint32_t i = 0; i < x->n; i++)
        fprintf(f, "%.1f,%.1f ", px(a, x->x[i]), py(a, x->y[i]));
    fputs("\"/>\n", f);
    for (uint32_t i = 0; i < x->n; i++)
        marker(f, style, px(a, x->x[i]), py(a, x->y[i]), c, x->hollow);
    if (x->mark >= 0 && (uint32_t)x->mark < x->n) {
        double mx = px(a, x->x[x->mark]), my = py(a, x->y[x->mark]);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n", mx, my);
        if (x->mark_label) /* above the point, kept inside the panel */
            text(f, fmin(fmax(mx, left + 20), right - 20), fmax(my - 12, a->y0 + PT + 10), "middle",
                 " font-weight=\"bold\"", x->mark_label);
    }
}

/* An ideal: black, over the measurements, solid or dashed as the
 * measurement it belongs to (hollow: dashed). */
static void reference(FILE *f, const axes *a, const svg_series *x)
{
    double y = py(a, x->y[0]), right = a->x0 + CW - PR;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" "
               "stroke-width=\"1.5\"%s/>\n",
            a->x0 + PL, y, right, y, x->hollow ? " stroke-dasharray=\"6 3\"" : "");
}

static void panel(FILE *f, double x0, double y0, const svg_panel *p, int style, double xmin,
                  double xmax)
{
    if (!p->nseries)
        return;
    axes a = {x0, y0, log2(xmin), log2(xmax), 0, 1, p->scale};
    y_range(p, &a);
    double left = x0 + PL, right = x0 + CW - PR, bottom = y0 + CH - PB;
    y_ticks(f, &a, p->percent);
    for (double v = pow(2, ceil(a.lx0)); v <= xmax * 1.0001; v *= 2) {
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n",
                px(&a, v), y0 + PT, px(&a, v), bottom);
        /* past 6 octaves a label every other tick, or they run together */
        double octave = log2(v) - ceil(a.lx0);
        if (a.lx1 - a.lx0 > 6 && fmod(octave, 2) != 0)
            continue;
        char buf[24];
        snprintf(buf, sizeof buf, "%g", v);
        text(f, px(&a, v), bottom + 13, "middle", " font-size=\"10\"", buf);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#999\"/>\n",
            left, y0 + PT, right - left, bottom - y0 - PT);
    for (uint32_t s = 0; s < p->nseries; s++)
        if (!p->series[s].reference)
            measurement(f, &a, &p->series[s], style, xmax);
    for (uint32_t s = 0; s < p->nseries; s++)
        if (p->series[s].reference && p->series[s].n)
            reference(f, &a, &p->series[s]);
}

int svg_grid_plot(FILE *f, const svg_grid *g)
{
    double xmin = INFINITY, xmax = -INFINITY;
    for (uint32_t k = 0; k < g->rows * g->cols; k++)
        for (uint32_t s = 0; s < g->panels[k].nseries; s++) {
            const svg_series *x = &g->panels[k].series[s];
            for (uint32_t i = 0; x->n > 1 && i < x->n; i++) {
                xmin = fmin(xmin, x->x[i]);
                xmax = fmax(xmax, x->x[i]);
            }
        }
    if (!(xmin < xmax))
        xmin = 1, xmax = 2;
    double width = ROWLAB + CW * g->cols + 10, height = TOP + CH * g->rows + BOTTOM;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height);
    text(f, width / 2, 22, "middle", " font-size=\"15\"", g->title);
    if (g->subtitle)
        text(f, width / 2, 42, "middle", " font-size=\"11\" fill=\"#444\"", g->subtitle);
    if (g->subtitle2)
        text(f, width / 2, 58, "middle", " font-size=\"11\" fill=\"#444\"", g->subtitle2);
    for (uint32_t c = 0; c < g->cols; c++)
        text(f, ROWLAB + CW * c + PL + (CW - PL - PR) / 2, TOP - 12, "middle",
             " font-size=\"12\" font-weight=\"bold\"", g->col_titles[c]);
    for (uint32_t r = 0; r < g->rows; r++) {
        double y0 = TOP + CH * r;
        const char *c = colors[r % NCOLORS];
        text(f, ROWLAB - 26, y0 + CH / 2, "end", " font-size=\"12\" font-weight=\"bold\"", g->row_labels[r]);
        marker(f, (int)r, ROWLAB - 16, y0 + CH / 2 - 4, c, 0);
        for (uint32_t k = 0; k < g->cols; k++)
            panel(f, ROWLAB + CW * k, y0, &g->panels[r * g->cols + k], (int)r, xmin, xmax);
    }
    if (g->xlabel)
        text(f, ROWLAB + CW * g->cols / 2, height - 10, "middle", " font-size=\"12\"", g->xlabel);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
