/*
 * plot.h - line plots for the labs' demos, drawn by gnuplot.
 *
 * A plot is a title, two axis labels and one or more named series of (x, y)
 * points, with optional vertical markers ("spike" at step 120), horizontal
 * reference lines and a log-scale y axis. plot_render writes, for the stem
 * "build/lab1/plots/amax":
 *
 *   amax.dat  the data: one block per series, each under a "# series i:
 *             label" line, blocks separated by two blank lines (gnuplot's
 *             `index`); x and y in the shortest decimal that reads back as
 *             the same double; NaN and +-inf written as NaN, a row with
 *             one followed by a blank line (but for a block's last row):
 *             gnuplot skips the row and breaks the line at the blank;
 *   amax.gp   a standalone gnuplot (5.2.6 or later) script that draws amax.png
 *             from amax.dat: `gnuplot build/lab1/plots/amax.gp` from any
 *             directory, also after the folder was moved or copied (it finds
 *             its files through ARG0, gnuplot 5.4; older versions fall back
 *             to the absolute folder recorded when it was written). With
 *             `-e "preview=1"` it draws as text on the terminal instead;
 *   amax.png  the image (pngcairo), written under a temporary name and
 *             renamed, so a PNG under the final name is always complete;
 *
 * and, when asked, a text preview (gnuplot's dumb terminal) to a FILE *.
 * Its temporary files ("amax.png.tmp1234", "amax.txt.tmp1234") are removed
 * also when a signal kills the program mid-render (atomic_file.h).
 *
 * Styles: series k has its own colour, point type and dash pattern (the
 * first ten series all differ in colour and point type, dashes cycle every
 * five; no pale yellow), and in the text preview its own line character
 * (* # $ % @ &, six; the hlines are =) and point letter (G E I M K F D H L
 * J). Markers sit on the measured points: on every point of a series of up
 * to 30, on about 12 of a longer one, staggered from series to series so
 * that lines lying on top of each other each show theirs (plot_set_marks
 * changes that). Lines are drawn in the order the series were added, later
 * on top, then every marker over every line.
 *
 * Missing values: a point whose x or y is NaN or +-inf is not drawn, and the
 * line through a series breaks there. A plot with no drawable point at all
 * still renders (empty axes that say so), as does a log-y plot whose values
 * are all <= 0, or one whose fixed ranges (plot_set_xrange, plot_set_yrange)
 * hold none of its points.
 *
 * Ranges and key: by default gnuplot chooses both axes' ranges (stretched to
 * hold the vertical and horizontal lines) and the key (legend) sits inside
 * the top right corner; plot_set_xrange, plot_set_yrange and plot_set_key
 * change that. A key entry shows its series' line and marker.
 *
 * Texts (title, labels) are taken literally: quotes, backslashes and
 * backquotes are safe, gnuplot's enhanced-text markup (^, _, @, {}) is off,
 * and control characters (newline, tab) become spaces.
 *
 * Which gnuplot: $GNUPLOT when set and not empty (a path, or a name looked up
 * on $PATH), otherwise `gnuplot` on $PATH. User start-up files (~/.gnuplot)
 * are not read when plot_render runs it.
 *
 * Numbers are written with printf's %g, so the program must keep the "C"
 * numeric locale (the default unless it calls setlocale).
 *
 * Not for: bar charts, histograms, heat maps, several panels in one image,
 * interactive windows, or plots drawn by anything but gnuplot. Not thread
 * safe for two renders of the same stem at once.
 */
#ifndef FP8LAB_PLOT_H
#define FP8LAB_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* plot_render's return value when gnuplot could not be found: the .dat and
 * .gp were written, no image was, and err says how to install gnuplot.
 * Success is 0, any other failure -1. */
#define PLOT_NO_GNUPLOT 1

#define PLOT_DEFAULT_WIDTH 960        /* PNG size in pixels */
#define PLOT_DEFAULT_HEIGHT 600
#define PLOT_DEFAULT_PREVIEW_COLS 100 /* text preview size in characters */
#define PLOT_DEFAULT_PREVIEW_ROWS 30

typedef struct plot plot;

/* How plot_render draws; a zeroed struct (or a NULL pointer) gives the
 * defaults above and no preview. */
typedef struct plot_options {
    int width;            /* PNG width in pixels; 0: PLOT_DEFAULT_WIDTH */
    int height;           /* PNG height in pixels; 0: PLOT_DEFAULT_HEIGHT */
    FILE *preview;        /* when not NULL, a text rendering is written here */
    int preview_cols;     /* 0: PLOT_DEFAULT_PREVIEW_COLS */
    int preview_rows;     /* 0: PLOT_DEFAULT_PREVIEW_ROWS */
    bool preview_color;   /* colour the preview with ANSI escapes (24-bit),
                             for a terminal; false: plain text */
} plot_options;

/* Where a series' markers go (plot_set_marks). */
typedef enum plot_marks {
    PLOT_MARKS_AUTO = 0,  /* every point of up to 30, else about 12,
                             staggered between series (the default) */
    PLOT_MARKS_ALL,       /* every point */
    PLOT_MARKS_NONE       /* a bare solid line (a comb, a staircase
                             histogram, a sawtooth sampled finely): its
                             colour alone tells it apart; a series of one
                             point still gets its marker */
} plot_marks;

/* A new, empty plot whose files will be stem.dat, stem.gp and stem.png.
 * stem is a path without extension ("build/lab1/plots/amax"): not empty, not
 * ending in '/', without control characters. title, xlabel and ylabel (units
 * included, e.g. "step", "amax (absolute value)") may be NULL for none.
 * Returns NULL and fills err on a bad stem or when out of memory. */
plot *plot_new(const char *stem, const char *title, const char *xlabel,
               const char *ylabel, lab_error *err);

/* Adds a series of n >= 1 points, copying x and y. x NULL means 0, 1, ...,
 * n-1 (steps); to share one x between series, pass the same array to each.
 * label NULL or "" leaves the series out of the key. */
int plot_add_series(plot *p, const char *label, const double *x,
                    const double *y, size_t n, lab_error *err);

/* The markers of the series added last (see plot_marks). Returns 0, or -1
 * with err filled when there is no series yet. */
int plot_set_marks(plot *p, plot_marks marks, lab_error *err);

/* Log-scale y axis on or off (off by default). Points with y <= 0 are not
 * drawn on a log axis. */
void plot_set_log_y(plot *p, bool on);

/* A dashed vertical line at x (finite), labelled at its top; label may be
 * NULL or "" for none. Not drawn when x is outside a fixed x range. */
int plot_add_vline(plot *p, double x, const char *label, lab_error *err);

/* A dotted horizontal reference line at y (finite), labelled at its left;
 * label may be NULL or "" for none. Not drawn when y is outside a fixed y
 * range. */
int plot_add_hline(plot *p, double y, const char *label, lab_error *err);

/* Draws the line added last (plot_add_vline or plot_add_hline) solid,
 * thick and dark red, its label in the same red, instead of dashed grey:
 * the threshold the plot is about (lab 2's flush line). A vline's label
 * goes a row lower than the others', clear of a neighbour's. Returns 0, or -1
 * with err filled when there is no line yet. In the text preview a vline
 * is a column of '|' either way; its label tells it apart. */
int plot_emphasize_line(plot *p, lab_error *err);

/* Fixes the x axis to run from lo to hi. Either end may be NaN: gnuplot
 * chooses that end (from the data and the vlines), as it does for both by
 * default; plot_set_xrange(p, NAN, NAN, err) undoes an earlier call. An end
 * that is not NaN must be finite, and lo < hi when both are given. Points
 * and lines outside the range are cut off at its edge. Returns 0, or -1
 * with err filled ("plot_set_xrange: range [5 : 1] of build/x is empty or
 * reversed; it needs lo < hi"). */
int plot_set_xrange(plot *p, double lo, double hi, lab_error *err);

/* The same for the y axis (gnuplot chooses from the data and the hlines). On
 * a log y axis both fixed ends must be > 0; plot_render checks that, since
 * plot_set_log_y may come later. */
int plot_set_yrange(plot *p, double lo, double hi, lab_error *err);

/* Where the key (the series' labels) goes, one of:
 *   "top right"     inside the graph, its top right corner (the default)
 *   "top left", "bottom left", "bottom right"   the other corners
 *   "outside"       right of the graph, outside it: it never covers data,
 *                   and the graph is narrower for it (as wide as the
 *                   longest label)
 *   "below"         under the x axis's label, in as many columns as fit:
 *                   it never covers data, and the graph is shorter for it
 *                   (a row of text per row of the key)
 * The inside positions have an opaque background, so that they hide what is
 * under them; pick a corner the data leaves free, or a range that makes
 * room (plot_set_yrange). Anything else is an error that lists these. */
int plot_set_key(plot *p, const char *position, lab_error *err);

/* Writes stem.dat and stem.gp (creating stem's folders as `mkdir -p` does)
 * and runs gnuplot on the script to draw stem.png and, when opt->preview is
 * set, a text preview there. The plot needs at least one series, and on a
 * log y axis a fixed y range must be above 0.
 * Returns 0; PLOT_NO_GNUPLOT when gnuplot is not found; -1 on any other
 * failure, gnuplot's own errors included ("gnuplot failed on build/x.gp:
 * line 12: ..."). When no new image could be drawn (gnuplot missing or
 * failing, or stem.dat or stem.gp not written), an older stem.png is
 * removed, so that a stem.png always shows the data in stem.dat. A failed
 * preview leaves the new stem.png in place. */
int plot_render(const plot *p, const plot_options *opt, lab_error *err);

/* Frees p and everything it holds; NULL is fine. */
void plot_free(plot *p);

/* Whether plot_render can find gnuplot ($GNUPLOT or $PATH, see above). */
bool plot_gnuplot_available(void);

#ifdef __cplusplus
}
#endif

#endif
