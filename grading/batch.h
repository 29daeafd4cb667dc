/*
 * batch.h - grading a folder of submissions at once: ./grader --batch DIR LAB.
 *
 * DIR holds one folder or archive per student, named by the student's id
 * (alice/, bob.zip: unpack.h), or is a learning platform's bulk download
 * (Canvas, Moodle, Gradescope: lms_import.h), which is read into that
 * layout first, in the run's work folder. An id that is not UTF-8 or holds a control
 * character, and an entry that is a symbolic link, are refused (listed, not
 * graded); ids that are one student's once case and Unicode normalisation
 * are set aside (alice, Alice) are each an error naming the others. Each is graded by gr_grade (only the lab's
 * student files are taken from it) in
 * a child process of its own, at most `jobs` at once, and the child writes
 * the json report (report.h) to <json_dir>/<id>.json, atomically. No result
 * is lost: when a child dies or runs past its time cap, the parent kills it
 * and whatever it started, and writes an error report in its place (score 0,
 * every test "error", and one field more than the json format has, "error":
 * what happened). A submission whose report is already there is read back,
 * not graded again (unless force), so an interrupted run resumes; but only
 * when it still holds: it records the sha256 of what it graded, the
 * grader's version and whether hidden inputs were drawn, and a submission
 * whose report differs from this run on any of them is graded again.
 *
 * At the end: the gradebook, a CSV with one row per student (RFC 4180),
 * written atomically; a histogram of the scores (gnuplot: scores.png, .gp
 * and .dat in json_dir); and a summary on standard output. Standard error
 * gets one progress line per submission as it finishes.
 *
 * Beyond one machine: a shard (shard_n > 0) grades only every shard_n-th
 * submission in id order, starting with the shard_k-th, into the shared
 * json_dir, and its own gradebook (grades.shard-K-of-N.csv); a merge grades
 * nothing, and makes the course's gradebook from the reports in json_dir,
 * each submission without one an error ("no report").
 *
 * Not for: grading one submission (grade.h), the report formats (report.h)
 * or the command line (grader.c).
 */
#ifndef FP8LAB_BATCH_H
#define FP8LAB_BATCH_H

#include "error.h"
#include "lms_import.h"
#include "rubric.h"

typedef struct gr_batch_options {
    const grader_lab *lab;
    const char *root;      /* the course's top folder (gr_options.root) */
    const char *build;     /* the build folder (gr_options.build) */
    const char *dir;       /* the submissions: one folder per student id */
    const char *json_dir;  /* the reports; NULL: "<dir>.grades" beside dir */
    const char *csv;       /* the gradebook; NULL: "<json_dir>/grades.csv" */
    int jobs;              /* submissions graded at once, >= 1 */
    int force;             /* grade again those that already have a report */
    double timeout_s;      /* wall-clock cap per submission; 0: gr_batch_default_cap */
    int show;              /* mismatches listed per failure (gr_options.show) */
    int verbose;           /* reports keep each failing test's output */
    int shard_k, shard_n;  /* grade the k-th of n slices (1 <= k <= n); n 0: all */
    int merge;             /* grade nothing: the gradebook from json_dir's reports */
    const char *seed;      /* hidden inputs for every submission (gr_options.seed) */
    int reweight;          /* --reweight-skipped (gr_options.reweight) */
    int late_penalty;      /* --late-penalty: the percent taken from the score of
                              work the platform marked late; 0: none */
    const char *const *only; /* grade these ids again, whatever their reports */
    const char *roster;    /* the class, a CSV of id and name: a row "missing" for
                              each student without a submission; NULL: none */
    const char *groups;    /* --groups: a CSV of student and group (batch_groups.c);
                              NULL: none */
    int nonly;
    const char *lms;       /* also json_dir/lms-<lms>.csv for an LMS's import:
                              "canvas" or "moodle"; or lms-gradescope.zip, an
                              autograder that gives the scores; NULL: none */
    const char *lms_assignment; /* canvas: the grade column's header, "Title (id)" */
    const char *lms_worksheet; /* moodle: the assignment's grading worksheet as
                                  downloaded, filled in (batch_out.c); NULL: none */
    const char *lms_worksheet_columns; /* its columns by number, "ID,GRADE,MODIFIED[,FEEDBACK]",
                                          where its header is not English Moodle's */
    int similarity;        /* > 0: json_dir/similarity.log, pairs at or above this
                              percentage (similarity.h); 0: none */
    int similarity_common; /* what more than this many submissions share is left out
                              of the comparison (similarity.h) */
    gr_from from;          /* dir's layout: GR_FROM_AUTO detects it; a platform's
                              download (lms_import.h) is read into the work folder */
} gr_batch_options;

/*
 * Grades every submission in b->dir. Returns 0 when each one was graded
 * (whatever its score) and nothing needs a look; 1 when something does: an
 * entry refused or not recognised as a submission, a roster student with
 * none, a submission that ended in error (this run or, resumed, an earlier
 * one); and -1 with err set on a setup error: a folder that cannot be read
 * or created, goldens that do not match data/MANIFEST, a gradebook that
 * cannot be written. A batch stopped by SIGINT, SIGTERM or SIGHUP does not
 * return: it ends by that signal.
 */
int gr_batch(const gr_batch_options *b, lab_error *err);

/* The cap on one submission's wall-clock time, in seconds: 10 x the sum of
 * the lab's test time limits (each scaled by CK_TIMEOUT_MULTIPLIER, and at
 * least 1 s) + 120 s for the build. */
double gr_batch_default_cap(const grader_lab *lab);

#endif
