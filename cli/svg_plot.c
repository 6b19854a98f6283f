/* svg_plot.c -- see svg_plot.h. */
#include "svg_plot.h"

#include <math.h>

static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                     "#8c564b"};

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

int svg_plot(const char *path, const char *title, const char *xlabel, const char *ylabel,
             const svg_series *series, uint32_t nseries)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    const double W = 760, H = 440, L = 70, R = 170, T = 40, B = 60;
    double xmin = INFINITY, xmax = -INFINITY, ymin = 1.0, ymax = 1.0;
    for (uint32_t s = 0; s < nseries; s++)
        for (uint32_t i = 0; i < series[s].n; i++) {
            if (series[s].n > 1) {
                xmin = fmin(xmin, series[s].x[i]);
                xmax = fmax(xmax, series[s].x[i]);
            }
            ymin = fmin(ymin, series[s].y[i]);
            ymax = fmax(ymax, series[s].y[i]);
        }
    if (!(xmin < xmax)) {
        xmin = 1;
        xmax = 2;
    }
    ymax = ymin + (ymax - ymin) * 1.08 + 1e-9;
    double lx0 = log2(xmin), lx1 = log2(xmax);
#define PX(v) (L + (log2(v) - lx0) / (lx1 - lx0) * (W - L - R))
#define PY(v) (H - B - ((v) - ymin) / (ymax - ymin) * (H - T - B))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "font-family=\"sans-serif\" font-size=\"12\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
    text(f, W / 2, 22, "middle", title);
    /* axes and grid */
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", L, T, L, H - B);
    for (double v = pow(2, ceil(lx0)); v <= xmax * 1.0001; v *= 2) {
        char buf[32];
        snprintf(buf, sizeof buf, "%g", v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", PX(v), T, PX(v), H - B);
        text(f, PX(v), H - B + 16, "middle", buf);
    }
    for (int i = 0; i <= 5; i++) {
        double v = ymin + (ymax - ymin) * i / 5;
        char buf[32];
        snprintf(buf, sizeof buf, "%.2f", v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, PY(v), W - R, PY(v));
        text(f, L - 6, PY(v) + 4, "end", buf);
    }
    text(f, (L + W - R) / 2, H - 18, "middle", xlabel);
    fprintf(f, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
            (T + H - B) / 2, (T + H - B) / 2, ylabel);
    for (uint32_t s = 0; s < nseries; s++) {
        const svg_series *x = &series[s];
        const char *c = colors[s % (sizeof colors / sizeof colors[0])];
        if (x->n == 1) {
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                       "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                    L, PY(x->y[0]), W - R, PY(x->y[0]), c);
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
            for (uint32_t i = 0; i < x->n; i++)
                fprintf(f, "%.1f,%.1f ", PX(x->x[i]), PY(x->y[i]));
            fprintf(f, "\"/>\n");
            for (uint32_t i = 0; i < x->n; i++)
                fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(x->x[i]), PY(x->y[i]), c);
        }
        if (x->mark >= 0 && (uint32_t)x->mark < x->n && x->n > 1) {
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    PX(x->x[x->mark]), PY(x->y[x->mark]), c);
            if (x->mark_label)
                text(f, PX(x->x[x->mark]) + 10, PY(x->y[x->mark]) - 10, "start", x->mark_label);
        }
        /* legend */
        double ly = T + 10 + 20 * s;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
                W - R + 15, ly, W - R + 40, ly, c, x->n == 1 ? " stroke-dasharray=\"6 4\"" : "");
        text(f, W - R + 46, ly + 4, "start", x->name);
    }
#undef PX
#undef PY
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
