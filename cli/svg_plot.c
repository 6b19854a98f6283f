/* svg_plot.c -- see svg_plot.h. */
#include "svg_plot.h"

#include <math.h>

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#8c564b"};
static const char *const dashes[] = {"", "8 4", "2 3", "10 3 2 3", "5 5", "1 6"};
#define NSTYLES 6

#define PANEL_W 600.0
#define H 460.0
#define L 70.0  /* left margin: y labels */
#define R 170.0 /* right: legend */
#define T 60.0
#define B 60.0

static void text(FILE *f, double x, double y, const char *anchor, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        default: fputc(*s, f);
        }
    fputs("</text>\n", f);
}

/* A marker of style s at (x, y). */
static void marker(FILE *f, int s, double x, double y, const char *c, int hollow)
{
    const char *fill = hollow ? "white" : c;
    switch (s % NSTYLES) {
    case 0:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x, y, fill, c);
        break;
    case 1:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", x - 4, y - 4, fill, c);
        break;
    case 2:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 5, x - 5, y + 4, x + 5, y + 4, fill, c);
        break;
    case 3:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y - 5, x + 5, y, x, y + 5, x - 5, y, fill, c);
        break;
    case 4:
        fprintf(f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                x - 4, y - 4, x + 4, y + 4, x - 4, y + 4, x + 4, y - 4, c);
        break;
    default:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                x, y + 5, x - 5, y - 4, x + 5, y - 4, fill, c);
    }
}

typedef struct axes {
    double x0; /* the panel's left edge */
    double lx0, lx1, y0, y1;
    int log_excess;
} axes;

static double px(const axes *a, double v)
{
    return a->x0 + L + (log2(v) - a->lx0) / (a->lx1 - a->lx0) * (PANEL_W - L - R);
}

/* The axis coordinate of a value: y itself, or log10(y - 1) floored. */
static double ay(const axes *a, double v)
{
    if (!a->log_excess)
        return v;
    double e = v - 1;
    return log10(e > 0 ? e : 1e-9) < a->y0 ? a->y0 : log10(e > 0 ? e : 1e-9);
}

static double py(const axes *a, double v)
{
    return H - B - (ay(a, v) - a->y0) / (a->y1 - a->y0) * (H - T - B);
}

static void panel(FILE *f, double x0, const svg_panel *p)
{
    axes a = {x0, 0, 1, 0, 1, p->log_excess};
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (uint32_t s = 0; s < p->nseries; s++)
        for (uint32_t i = 0; i < p->series[s].n; i++) {
            if (p->series[s].n > 1) {
                xmin = fmin(xmin, p->series[s].x[i]);
                xmax = fmax(xmax, p->series[s].x[i]);
            }
            double v = p->series[s].y[i];
            if (p->log_excess && !(v > 1))
                continue; /* perfect balance sits on the floor */
            ymin = fmin(ymin, p->log_excess ? log10(v - 1) : v);
            ymax = fmax(ymax, p->log_excess ? log10(v - 1) : v);
        }
    if (!(xmin < xmax))
        xmin = 1, xmax = 2;
    a.lx0 = log2(xmin);
    a.lx1 = log2(xmax);
    if (p->log_excess) {
        /* decades of the excess, at least 1.001 .. 1.1 */
        a.y0 = floor(fmin(isfinite(ymin) ? ymin : -3, -1) - 1e-9);
        a.y1 = ceil(fmax(isfinite(ymax) ? ymax : -1, a.y0 + 2) + 1e-9);
        if (a.y0 < -6)
            a.y0 = -6;
    } else {
        a.y0 = 0;
        a.y1 = isfinite(ymax) && ymax > 0 ? ymax * 1.1 : 1;
    }
    const double right = x0 + PANEL_W - R, bottom = H - B;
    text(f, x0 + (L + PANEL_W - R) / 2, T - 14, "middle", p->title);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0 + L, bottom, right, bottom);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x0 + L, T, x0 + L, bottom);
    for (double v = pow(2, ceil(a.lx0)); v <= xmax * 1.0001; v *= 2) {
        char buf[32];
        snprintf(buf, sizeof buf, "%g", v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", px(&a, v), T, px(&a, v), bottom);
        text(f, px(&a, v), bottom + 16, "middle", buf);
    }
    if (p->log_excess) {
        /* 1 + 10^d, and 2 and 5 times it, within the axis */
        for (double d = a.y0; d <= a.y1 + 1e-9; d++)
            for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
                double e = m * pow(10, d), v = 1 + e;
                if (log10(e) > a.y1 + 1e-9)
                    continue;
                char buf[32];
                snprintf(buf, sizeof buf, e >= 0.1 ? "%.2f" : e >= 0.01 ? "%.3f" : "%.4g", v);
                fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                        x0 + L, py(&a, v), right, py(&a, v), m == 1 ? "#ccc" : "#eee");
                text(f, x0 + L - 6, py(&a, v) + 4, "end", buf);
            }
    } else {
        /* a round step: 1, 2 or 5 times a power of ten, at most 6 ticks */
        double step = pow(10, floor(log10(a.y1 / 6)));
        step *= a.y1 / step <= 6 ? 1 : a.y1 / (2 * step) <= 6 ? 2 : a.y1 / (5 * step) <= 6 ? 5 : 10;
        for (double v = 0; v <= a.y1 * (1 + 1e-9); v += step) {
            char buf[32];
            if (p->percent)
                snprintf(buf, sizeof buf, "%.3g%%", 100 * v);
            else
                snprintf(buf, sizeof buf, "%.3g", v);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0 + L, py(&a, v), right, py(&a, v));
            text(f, x0 + L - 6, py(&a, v) + 4, "end", buf);
        }
    }
    text(f, x0 + (L + PANEL_W - R) / 2, H - 18, "middle", p->xlabel);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
            x0 + 16, (T + bottom) / 2, x0 + 16, (T + bottom) / 2, p->ylabel);
    uint32_t legend = 0;
    for (uint32_t s = 0; s < p->nseries; s++) {
        const svg_series *x = &p->series[s];
        const char *c = x->reference ? "#777" : colors[x->style % NSTYLES];
        const char *dash = x->reference ? (x->style % 2 ? "1 3" : "6 3") : dashes[x->style % NSTYLES];
        if (x->n == 1) {
            /* an ideal, or a strategy the x value does not change (jump, rendezvous) */
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"%s\"%s%s%s/>\n",
                    x0 + L, py(&a, x->y[0]), right, py(&a, x->y[0]), c, x->reference ? "1.5" : "2",
                    *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
            if (!x->reference)
                for (double m = pow(2, ceil(a.lx0)); m <= xmax * 1.0001; m *= 4)
                    marker(f, x->style, px(&a, m), py(&a, x->y[0]), c, x->hollow);
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", c,
                    *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
            for (uint32_t i = 0; i < x->n; i++)
                fprintf(f, "%.1f,%.1f ", px(&a, x->x[i]), py(&a, x->y[i]));
            fprintf(f, "\"/>\n");
            for (uint32_t i = 0; i < x->n; i++)
                marker(f, x->style, px(&a, x->x[i]), py(&a, x->y[i]), c, x->hollow);
        }
        if (x->mark >= 0 && (uint32_t)x->mark < x->n && x->n > 1) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    px(&a, x->x[x->mark]), py(&a, x->y[x->mark]), c);
            if (x->mark_label)
                text(f, px(&a, x->x[x->mark]) + 11, py(&a, x->y[x->mark]) - 11, "start", x->mark_label);
        }
        double ly = T + 10 + 20 * legend++;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>\n",
                right + 12, ly, right + 42, ly, c, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
        if (!x->reference)
            marker(f, x->style, right + 27, ly, c, x->hollow);
        text(f, right + 48, ly + 4, "start", x->name);
    }
}

int svg_plot(FILE *f, const char *title, const svg_panel *panels, uint32_t npanels)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            PANEL_W * npanels, H);
    fprintf(f, "<g font-size=\"14\">\n");
    text(f, PANEL_W * npanels / 2, 22, "middle", title);
    fprintf(f, "</g>\n");
    for (uint32_t i = 0; i < npanels; i++)
        panel(f, PANEL_W * i, &panels[i]);
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
