/*
 * demo.h - what every lab's demo shares: its command line and drawing its
 * plots.
 *
 * A lab's demo (labs/labN/main.c, built as build/labN/labN) prints what the
 * student's functions compute and draws plots of it with plot.h. Every demo
 * takes the same command line, `labN [-o DIR] [--no-preview] [-h]`, and
 * exits 0 on success (also when gnuplot is missing), 1 when a plot could not
 * be written, 2 on a usage error. Its main() goes:
 *
 *     demo_options o;
 *     int rc = demo_parse_args(argc, argv, "labN", ABOUT, "build/labN/plots", &o);
 *     if (rc != 0)
 *         return rc == 1 ? 0 : 2;             (1: after --help)
 *     ... then, for each plot:
 *     char stem[DEMO_STEM_SIZE];
 *     if (demo_stem(&o, "name", stem, sizeof stem) != 0)
 *         return 1;
 *     plot *p = make_it(stem, ..., &err);     (NULL: err says why)
 *     if (demo_render(&o, p, stem, width, &err) == -1)
 *         return 1;
 *     ... and after the last plot:
 *     demo_note_no_gnuplot(&o);               (when gnuplot was missing)
 *     return 0;
 *
 * Unlike the rest of libfp8lab, these functions print: they are the demos'
 * front end, and their messages go to stdout and stderr, prefixed with the
 * program's name ("lab1: ..."), as a demo prints them. They never exit.
 *
 * Not for: the grader or the fp8 explorer (their command lines differ), or
 * computing anything a plot shows; that stays in each lab's main.c.
 */
#ifndef FP8LAB_DEMO_H
#define FP8LAB_DEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "plot.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DEMO_STEM_SIZE 4096 /* bytes for a plot's stem, "DIR/name" */

/* What the command line asked for, and what drawing the plots found. */
typedef struct demo_options {
    const char *prog;     /* the program's name, for messages: "lab0" */
    const char *dir;      /* where the plots go; not empty */
    bool preview;         /* draw them as text on stdout too */
    bool no_gnuplot;      /* set by demo_render: a plot was not drawn for
                             want of gnuplot */
} demo_options;

/* Reads argv into *o: dir is default_dir and preview true unless the
 * arguments say otherwise; no_gnuplot is false. about is the lab's paragraph of --help, what the
 * demo does and which plots it draws: lines separated by '\n', with none at
 * the end. prog, about and default_dir must outlive o.
 * Returns 0 to run; 1 after -h or --help (the usage printed to stdout); 2 on
 * a usage error (a message on stderr: "lab0: unknown option '-x' (try lab0
 * --help)"). */
int demo_parse_args(int argc, char **argv, const char *prog, const char *about,
                    const char *default_dir, demo_options *o);

/* The stem of plot name in o->dir, "DIR/name" (without doubling a '/' that
 * DIR ends in; "name" for an empty DIR), into stem[size]. Returns 0, or -1
 * with "lab0: output folder name too long: DIR" printed on stderr when it
 * does not fit. */
int demo_stem(const demo_options *o, const char *name, char *stem, size_t size);

/* Renders p, made with stem, as stem.png (width x 600 pixels), with a text
 * preview on stdout unless o->preview is false, then frees it. The preview
 * is in colour when stdout is a terminal, $NO_COLOR is unset or empty and
 * $TERM is not "dumb"; plain text otherwise (a pipe, a file). Prints
 * "  wrote STEM.png (and STEM.gp, its gnuplot script)" and a blank line.
 * p may be NULL when making it failed: err then says why. err is where the
 * messages come from; it may not be NULL.
 * Returns 0; PLOT_NO_GNUPLOT when gnuplot is missing, with o->no_gnuplot
 * set and nothing printed (the demo says so once, at the end, with
 * demo_note_no_gnuplot); -1 on any other failure, err's message printed on
 * stderr. */
int demo_render(demo_options *o, plot *p, const char *stem, int width, lab_error *err);

/* When o->no_gnuplot, the closing note: no plot was drawn, where their data
 * and scripts are, and how to install gnuplot. Otherwise nothing. */
void demo_note_no_gnuplot(const demo_options *o);

#ifdef __cplusplus
}
#endif

#endif
