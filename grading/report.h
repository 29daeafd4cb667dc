/*
 * report.h - a grading run's results, and writing them for people (the
 * scorecard) or for machines (json, gradescope, tap, junit, autolab).
 *
 * Not for: producing the results (grading/grade.c); this file only formats
 * what it is given.
 */
#ifndef FP8LAB_REPORT_H
#define FP8LAB_REPORT_H

#include <stdio.h>

#include "error.h"
#include "rubric.h"

typedef enum gr_status {
    GR_PASS = 0,
    GR_FAIL,    /* a check in the test failed: message holds the counterexample */
    GR_ERROR,   /* crashed, timed out, exited early, flooded output */
    GR_NOT_RUN, /* never ran: the build failed, or the runner died first */
    GR_SKIPPED  /* not run because this machine cannot: a GPU test where there
                   is no GPU. Never passed: it earns nothing */
} gr_status;

typedef struct gr_result {
    const grader_test *test;
    gr_status status;
    int points;      /* earned: test->points on a pass, else 0 */
    char *message;   /* what went wrong, one or more lines; NULL on a pass */
    char *output;    /* what the test printed (first lines), or NULL */
    double seconds;  /* the wall-clock time of its run; 0 when it did not run */
} gr_result;

typedef struct gr_file_hash {
    const char *name;      /* a student file: "lab0.c" */
    char sha256[65];       /* its sha256 in hex; "" when the submission has no such file */
} gr_file_hash;

typedef struct gr_report {
    const grader_lab *lab;
    const char *source;    /* where the graded files came from, for the header */
    int build_ok;          /* 0: it did not compile, link, or pass the symbol check */
    char *build_log;       /* the compiler's first messages, or NULL */
    gr_result *results;    /* one per graded test, in rubric order */
    int nresults;
    int score, max_score;  /* max_score: the rubric's (or the --test selection's) */
    double seconds;        /* wall-clock time of the whole run */
    int hidden_inputs;     /* graded with a seed: the rubric's hidden tests drew
                              inputs from it (the seed itself is never shown) */
    /* What a batch records, so that a resume can tell a report still holds
     * (batch.c); NULL and 0 otherwise, and the json format leaves them out. */
    const char *student;   /* the student's id, exactly */
    const char *grader;    /* the grader's version: its commit */
    const char *grader_sha256; /* the sha256 of what grades the lab: program, suite, goldens */
    const gr_file_hash *files; /* the sha256 of each student file graded */
    int nfiles;
    const char *note;      /* said under the header (gr_options.note), or NULL */
    /* gr_reweight's: */
    int graded_score;      /* the points earned: score, unless re-weighted */
    int graded_max;        /* the points of the tests not skipped */
    int reweighted;        /* score is graded_score scaled from graded_max to
                              max_score (gr_reweight) */
    /* gr_late_penalty's: */
    int late_penalty;      /* the percent taken (the work was marked late), or 0 */
    int late_points;       /* the points it took */
} gr_report;

typedef enum gr_format {
    GR_FORMAT_TEXT = 0,
    GR_FORMAT_JSON,
    GR_FORMAT_GRADESCOPE,
    GR_FORMAT_TAP,
    GR_FORMAT_JUNIT,
    GR_FORMAT_AUTOLAB
} gr_format;

/* Whether test t of r drew hidden inputs: r was graded with a seed and t's
 * lab lists t among its hidden tests. */
int gr_test_hidden(const gr_report *r, const grader_test *t);

/* Sets r's graded_score and graded_max from its results (each result's
 * points already set, score their sum). With reweight, and where tests were
 * skipped and some were graded, the score becomes the graded share of the
 * rubric's points, rounded to the nearest (a half up):
 * round(graded_score * max_score / graded_max); on a GPU that grades 82 of
 * lab5's 112 points, 82 of them earned is 112 and 41 is 56. */
void gr_reweight(gr_report *r, int reweight);

/* Takes percent of r's score (after gr_reweight), rounded to the nearest
 * point (a half up), for work the platform marked late: 90 at 10 % is 81,
 * 85 at 10 % is 77 (76.5). 0: nothing taken. */
void gr_late_penalty(gr_report *r, int percent);

/* "text", "json", ... -> format; -1 for an unknown name. */
int gr_format_from_name(const char *name);

/*
 * Writes the report to out. verbose != 0 adds each failure's captured output
 * and, in text, the build log of a submission that built with warnings.
 * Returns 0, or -1 with err set when writing fails.
 */
int gr_write_report(FILE *out, const gr_report *r, gr_format format, int verbose,
                    lab_error *err);

/* s as one line of a terminal, malloc'd: invalid UTF-8 and every control
 * character (C0, DEL, C1, tab and newline included) become U+FFFD. What every
 * name, message and file name printed to a terminal goes through. Exits on
 * out of memory. */
char *gr_clean_line(const char *s);

/* The UTF-8 sequence at s (NUL-terminated): its length with the code point
 * in *cp when it is well formed; minus the length of its ill-formed part
 * when not. */
int gr_utf8_next(const char *s, unsigned *cp);

/* Whether code point cp is one that changes how the text around it reads
 * without being seen: a bidirectional control (U+202E reverses what
 * follows), a zero-width or other format character (Unicode's Cf), a line
 * or paragraph separator, a Hangul filler. No output for people keeps one
 * (gr_clean_line, gr_write_csv_cell, the scorecard), and no id may hold
 * one. */
int gr_invisible_char(unsigned cp);

/*
 * Writes s as one cell of a CSV file, as every CSV file the grader writes
 * does. First s is cleaned as the scorecard is: invalid UTF-8, every
 * control character but tab and newline (a terminal's escapes included)
 * and every invisible character (gr_invisible_char) become U+FFFD. A cell
 * beginning with '=', '+', '-', '@', a tab or a carriage return, which a
 * spreadsheet would run as a formula, is neutralised as OWASP's "CSV
 * Injection" page recommends: a ' goes before it, and the cell is quoted.
 * Then RFC 4180: a cell holding a comma, a quote or a line break is quoted,
 * each quote doubled.
 */
void gr_write_csv_cell(FILE *out, const char *s);

/* gr_write_csv_cell for a cell the platform shows as HTML (Moodle's
 * feedback comments, stored as FORMAT_HTML): & < > " and ' are written as
 * entities too, so a name like "<a href=...>" shows as the text it is. */
void gr_write_csv_html_cell(FILE *out, const char *s);

/* s as that cell holds it, before quoting: controls cleaned, & < > " '
 * written as entities (malloc'd). */
char *gr_html_text(const char *s);

const char *gr_status_name(gr_status s); /* "PASS", "FAIL", "ERROR", "NOT RUN", "SKIP" */

/* How many of r's results have status s. */
int gr_count_status(const gr_report *r, gr_status s);

/* For each failed test whose rubric entry builds on tests that fail too,
 * puts first in its message the line that names them and their sections:
 * the cause is there, not here. 0, or -1 when out of memory (the messages
 * are then left as they were). */
int gr_note_builds_on(gr_report *r);

#endif
