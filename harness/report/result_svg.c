/* result_svg — see result_svg.h. */
#include "result_svg.h"

#include <math.h>
#include <string.h>

#include "result.h"

double svg_nice_step(double max, int want)
{
    if (max <= 0)
        return 1;
    double raw = max / want, mag = pow(10, floor(log10(raw)));
    double r = raw / mag;
    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
}

void svg_fmt_count(double v, char *out, size_t n)
{
    if (v >= 1e6)
        snprintf(out, n, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, n, "%.0fk", v / 1e3);
    else if (v >= 1e3)
        snprintf(out, n, "%.1fk", v / 1e3);
    else if (v > 0 && v < 10 && v != floor(v))
        snprintf(out, n, "%.1f", v);
    else
        snprintf(out, n, "%.0f", v);
}

double svg_x(const struct frame *fr, double t)
{
    return PAD_L + (fr->span_s > 0 ? t / fr->span_s : 0) * (PLOT_W - PAD_L - PAD_R);
}

double svg_y(const struct frame *fr, double v)
{
    double h = PLOT_H - PAD_T - PAD_B, frac;
    if (fr->log) {
        double l = log10(v > 0 ? v : pow(10, fr->lmin));
        frac = (l - fr->lmin) / (fr->lmax - fr->lmin);
    } else {
        frac = fr->ymax > 0 ? v / fr->ymax : 0;
    }
    if (frac < 0)
        frac = 0;
    if (frac > 1)
        frac = 1;
    return PAD_T + h * (1 - frac);
}

void svg_begin(FILE *f, const char *title)
{
    fprintf(f, "<svg viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
               "xmlns=\"http://www.w3.org/2000/svg\"><title>",
            PLOT_W, PLOT_H);
    report_escape(f, title);
    fprintf(f, "</title>\n");
}

void svg_end(FILE *f)
{
    fprintf(f, "</svg>\n");
}

void svg_x_axis(FILE *f, const struct frame *fr)
{
    double step = svg_nice_step(fr->span_s, 10);
    for (double t = 0; t <= fr->span_s + 1e-9; t += step) {
        double x = svg_x(fr, t);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x,
                x, PAD_T, PLOT_H - PAD_B);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"middle\">%g s</text>\n",
                x, PLOT_H - PAD_B + 16, t);
    }
}

void svg_y_axis(FILE *f, const struct frame *fr, double step, const char *unit,
                const char *name)
{
    for (double v = 0; step > 0 && v <= fr->ymax + 1e-9; v += step) {
        char lab[32];
        svg_fmt_count(v, lab, sizeof lab);
        double y = svg_y(fr, v);
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n",
                PAD_L, PLOT_W - PAD_R, y, y);
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s%s</text>\n",
                PAD_L - 6, y + 4, lab, unit ? unit : "");
    }
    fprintf(f, "<text x=\"12\" y=\"%.1f\" class=\"axis\" transform=\"rotate(-90 12 %.1f)\" "
               "text-anchor=\"middle\">",
            PLOT_H / 2, PLOT_H / 2);
    report_escape(f, name);
    fprintf(f, "</text>\n");
}

void svg_fault_windows(FILE *f, const struct result_fault *faults, size_t n,
                        const struct frame *fr)
{
    static const char *const tint[] = {"#f4a261", "#e76f51", "#2a9d8f", "#8ab17d", "#b5838d",
                                       "#6d6875"};
    double free_from[2] = {-1e9, -1e9}; /* where each label line is free again */
    for (size_t i = 0; i < n; i++) {
        const struct result_fault *x = &faults[i];
        if (!x->injected_at.known)
            continue;
        double in = x->injected_at.s, out = x->cleared_at.known ? x->cleared_at.s : 0;
        double a = svg_x(fr, in), b = svg_x(fr, out > in ? out : in);
        if (b - a < 2)
            b = a + 2;
        const char *c = tint[i % (sizeof tint / sizeof tint[0])];
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                   "fill-opacity=\"0.22\" stroke=\"%s\" stroke-opacity=\"0.6\"><title>",
                a, PAD_T, b - a, PLOT_H - PAD_T - PAD_B, c, c);
        report_escape(f, x->name);
        fprintf(f, " (");
        report_escape(f, x->action);
        fprintf(f, "): %.3f s .. %.3f s</title></rect>\n", in, out);
        /* Labels alternate between two lines so that close faults stay
         * legible; one that would run into the label before it on its line
         * is left out (a thrash of hundreds: the window's own title names it). */
        int line = i % 2;
        double width = 7.0 * (double)strlen(x->name) + 6;
        if (a + 3 < free_from[line])
            continue;
        free_from[line] = a + 3 + width;
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"flabel\" fill=\"%s\">", a + 3,
                line ? PAD_T - 20 : PAD_T - 5, c);
        report_escape(f, x->name);
        fprintf(f, "</text>\n");
    }
}

void svg_legend_begin(FILE *f)
{
    fprintf(f, "<div class=\"legend\">");
}

void svg_legend(FILE *f, const char *colour, enum key_mark mark, const char *text)
{
    static const char *const cls[] = {"", " dash", " dot", " area"};
    fprintf(f, "<span class=\"key\"><i class=\"mk%s\" style=\"%s:%s\"></i>", cls[mark],
            mark == KEY_AREA ? "background" : "border-color", colour);
    report_escape(f, text);
    fprintf(f, "</span>");
}

void svg_legend_end(FILE *f)
{
    fprintf(f, "</div>\n");
}

