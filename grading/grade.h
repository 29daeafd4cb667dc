/*
 * grade.h - grading one submission of one lab: copy the student's files into
 * a pristine tree, compile and link them with the lab's Check suite, run the
 * tests under limits, and collect Check's results into a gr_report.
 *
 * Not for: command-line parsing (grader.c) or printing (report.c).
 */
#ifndef FP8LAB_GRADE_H
#define FP8LAB_GRADE_H

#include "error.h"
#include "report.h"
#include "rubric.h"
#include "sandbox.h"

/* Output beyond this many bytes per test is a flood: the test fails. */
#define GR_OUTPUT_LIMIT (1L << 20)

typedef struct gr_options {
    const grader_lab *lab;
    const char *root;       /* the course's top folder: labs/, data/, common/ */
    const char *build;      /* the build folder: the suites, libfp8lab.a, grade/ */
    const char *source_dir; /* where the student's files are taken from */
    const char *label;      /* how the report names it ("labs/lab0"); NULL: source_dir */
    const char *only_test;  /* the tests to run, comma-separated, or NULL for all */
    const char *seed;       /* hidden inputs: the tests the rubric lists draw inputs
                               from this (any string), checked against the reference;
                               NULL: none */
    int show;               /* mismatches listed per failure */
    int keep;               /* keep the pristine tree (its path is printed) */
    gr_sandbox_say sandbox_say; /* how much a missing sandbox is told (sandbox.h) */
    const char *note;       /* for the report's header (a batch's: a file graded
                               under the lab's name), or NULL */
    int late_penalty;       /* percent taken from the score (a batch's --late-penalty,
                               for work marked late): gr_late_penalty; 0 none */
    int reweight;           /* --reweight-skipped: where tests were skipped (a GPU
                               too old for them), the score is out of the points
                               graded, scaled to the rubric's (gr_reweight) */
} gr_options;

/*
 * Grades o->source_dir. The submission's own failures (not compiling, a
 * crash, a hang) are results in *r, not errors. Returns -1 with err set only
 * for a setup error: a missing file of the course, a golden that does not
 * match data/MANIFEST, a folder that cannot be created, a runner that
 * reports a broken suite.
 */
int gr_grade(const gr_options *o, gr_report *r, lab_error *err);

void gr_report_free(gr_report *r);

/* A formatted string in new memory; out of memory ends the grader (exit 2). */
char *gr_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether name is one of list's comma-separated test names. */
int gr_test_selected(const char *list, const char *name);

/* rm -rf path, as a child process (never a shell): the pristine trees. */
void gr_remove_tree(const char *path);

/* Checks every file of data_dir/folder against data_dir/MANIFEST. */
int gr_verify_goldens(const char *data_dir, const char *folder, lab_error *err);

#endif
