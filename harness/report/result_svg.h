/*
 * result_svg — the drawing primitives of the plots in report.html, drawn
 * from the record (result.h), the fault windows from struct result_fault;
 * the summary of repeats' strips use them too.
 *
 * Every plot is an inline SVG of PLOT_W x PLOT_H user units with the same
 * margins, so that plots stacked on one page share their time axis: a
 * fault window shaded over the throughput sits exactly above the same
 * window in the latency and resource plots.  A frame maps data to the
 * drawing: time (seconds since time zero) to x, a value to y, linear from
 * 0 to ymax or logarithmic between 10^lmin and 10^lmax.
 */
#ifndef FL_RESULT_SVG_H
#define FL_RESULT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report_files.h" /* report_escape */

struct result_fault; /* result.h */

#define PLOT_W 960.0
#define PLOT_H 230.0
#define PAD_L 70.0
#define PAD_R 20.0
#define PAD_T 36.0
#define PAD_B 34.0

struct frame {
    double span_s, ymax;
    bool log;
    double lmin, lmax; /* log10 range */
};

/* A round step for about `want` ticks over [0, max]. */
double svg_nice_step(double max, int want);

/* 1234 -> "1.2k", 56789 -> "57k", 2.5e6 -> "2.5M". */
void svg_fmt_count(double v, char *out, size_t n);

/* Drawing coordinates of time t (s) and of value v. */
double svg_x(const struct frame *fr, double t);
double svg_y(const struct frame *fr, double v);

/* <svg ...><title>title</title> of the common size; svg_end closes it. */
void svg_begin(FILE *f, const char *title);
void svg_end(FILE *f);

/* Vertical grid lines and their labels in seconds. */
void svg_x_axis(FILE *f, const struct frame *fr);

/* Horizontal grid lines every `step` from 0 to ymax with count labels
 * (svg_fmt_count, then `unit`), and the axis name turned on the left. */
void svg_y_axis(FILE *f, const struct frame *fr, double step, const char *unit,
                const char *name);

/* The injected faults' windows shaded and labelled, behind the curves. */
void svg_fault_windows(FILE *f, const struct result_fault *faults, size_t n,
                       const struct frame *fr);

/* A plot's legend, in HTML under its SVG (after svg_end): a row of keys
 * that wraps with the page, so that no key runs into the time axis's
 * labels or off the plot however long the names.  Each key's mark is a
 * sample of its series (a line, dashed or dotted, or a filled area) in the
 * series' colour, set by an inline style that no rule of the page's style
 * sheet overrides.  svg_legend_begin opens the row, svg_legend_end closes
 * it. */
enum key_mark { KEY_LINE, KEY_DASHED, KEY_DOTTED, KEY_AREA };
void svg_legend_begin(FILE *f);
void svg_legend(FILE *f, const char *colour, enum key_mark mark, const char *text);
void svg_legend_end(FILE *f);


#endif
