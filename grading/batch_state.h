/*
 * batch_state.h - what the batch's files share (batch.c, batch_find.c,
 * batch_files.c, batch_groups.c, batch_jobs.c, batch_out.c,
 * batch_gradescope.c): the run's state, its small helpers, and the
 * functions one file calls in another.
 *
 * Not for: the batch's users, who have batch.h.
 */
#ifndef FP8LAB_BATCH_STATE_H
#define FP8LAB_BATCH_STATE_H

#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "atomic_file.h"
#include "grade.h"
#include "jobres.h"
#include "plot.h"
#include "sandbox.h"
#include "similarity.h"
#include "unpack.h"

#define CAP_PER_LIMIT 10.0      /* the default cap: 10 x each test's limit, */
#define CAP_MIN_LIMIT 1.0       /* counted as at least 1 s, */
#define CAP_BUILD_S 120.0       /* + 120 s for the build */
#define POLL_NS (20 * 1000000L) /* how often the parent looks at its children */
#define TOP_FAILED 5            /* tests in the summary's "most failed" list */
#define HIST_BINS 10            /* bars of the histogram, from 0 to full marks */
#define ID_WIDTH_MAX 24         /* widest id column in the summary */

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Out of memory is the one failure that is not returned (as in grade.c). */
static inline void out_of_memory(void)
{
    fputs("grader: out of memory\n", stderr);
    exit(2);
}

static inline void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        out_of_memory();
    return p;
}

/* Room for one more element in *array, which holds n of capacity *cap. */
static inline void *grow(void *array, int n, int *cap, size_t size)
{
    if (n < *cap)
        return array;
    *cap = *cap ? 2 * *cap : 16;
    void *p = realloc(array, (size_t)*cap * size);
    if (!p)
        out_of_memory();
    return p;
}

/* As grade.c reads it: the factor on every test's time limit. */
static inline double timeout_multiplier(void)
{
    const char *s = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end;
    double m = s ? strtod(s, &end) : 1.0;
    return s && end != s && *end == '\0' && m >= 0 ? m : 1.0;
}

/* s in ASCII, for a JSON string when s is not UTF-8: control characters
 * and every byte past 0x7F become '?'. (For a terminal: gr_clean_line.) */
static inline char *ascii_text(const char *s)
{
    char *p = gr_asprintf("%s", s);
    for (unsigned char *c = (unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c >= 0x7F)
            *c = '?';
    return p;
}

static inline int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Creates path and its missing parents, as mkdir -p does. */
static inline int make_dirs(const char *path, lab_error *err)
{
    char *p = gr_asprintf("%s", path);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        char c = *s;
        if (c != '/' && c != '\0')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            rc = lab_errorf(err, "%s: cannot create: %s", p, strerror(errno));
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    if (rc == 0 && !is_dir(path))
        rc = lab_errorf(err, "%s: not a folder", path);
    return rc;
}

typedef enum sub_status { SUB_GRADED = 0, SUB_BUILD_FAILED, SUB_ERROR, SUB_MISSING } sub_status;

typedef struct submission {
    char *id;          /* the folder's name, or the archive's without its suffix */
    char *source;      /* <dir>/<entry>: the folder or archive graded */
    int archive;       /* source is an archive (unpack.h) */
    char *report;      /* <json_dir>/<id>.json */
    int resumed;       /* the report came from an earlier run */
    sub_status status;
    int score, max_score;
    int *points;       /* earned, one per test of the rubric, in its order */
    signed char *passed; /* one per test of the rubric: 1 passed, 0 not, -1 SKIPPED */
    int skipped;       /* tests this machine could not run (a GPU test without a GPU) */
    int reweighted;    /* its score is re-weighted to the points graded (gr_reweight) */
    int late;          /* 1: the platform marked it late; 0: not; -1: the layout
                          has no such mark (only Canvas's download has one) */
    int late_points;   /* what --late-penalty took from its score (its report's) */
    double seconds;    /* this run's wall-clock time for it */
    char *error;       /* what happened, for SUB_ERROR */
    char *key;         /* the id folded (id_key), for finding two ids of one student */
    gr_file_hash *hashes; /* what is graded, as it is now (hash_submission) */
    int nhashes;
    int hidden;        /* its report drew hidden inputs */
    int only;          /* named by --only: graded again, whatever its report */
    int regraded;      /* its report was stale: graded again this run */
    char *name;        /* the student's name, from the roster; NULL without one */
    const char *import_name; /* the name a platform's download gives (b->import's) */
    const char *upload; /* the archive's name as the student uploaded it, where a
                           platform's download renamed it <id>.zip (b->import's) */
    int on_roster;     /* the roster lists it (always 1 without a roster) */
    int refused;       /* not graded: error says why (its id and another's are one) */
    char *note;        /* its report's note: a file graded under the lab's name */
    int unmerged;      /* a merge found no report for it (its shard has not run) */
    char *group;       /* its group (--groups), or NULL */
    char *group_of;    /* the groupmate whose submission it is scored on (it has
                          none of its own), or NULL */
    int group_several; /* its group has more than one submission: each graded
                          on its own */
    int team;          /* a Moodle team assignment's group submission ("group-<id>"):
                          its members have the rows, the LMS files; no student's */
} submission;

typedef struct skipped_entry {
    char *name;
    char *why;
    int refused;       /* it may be a student's: not graded until the instructor acts */
    int ignored;       /* never a submission (hidden, the reports' folder): needs no look */
} skipped_entry;

typedef struct batch {
    const gr_batch_options *o;
    const grader_lab *lab;
    char *dir;         /* o->dir without trailing slashes; for a platform's
                          download, the folder it was read into (<work>/class) */
    char *download;    /* o->dir without trailing slashes */
    gr_from from;      /* the layout read */
    gr_import import;  /* what was read from a platform's download */
    const char *groups; /* the groups' file: --groups, or a Moodle team
                           assignment's --lms-worksheet (NULL: none) */
    int team;          /* a Moodle team assignment (groups_team): the download's
                          entries are the groups' */
    char *json_dir;
    char *csv;
    char *lms;         /* the LMS's file, or NULL (o->lms) */
    char *build;       /* o->build, absolute */
    char *work;        /* <build>/grade/batch.XXXXXX: the children's work folders */
    int lock;          /* <work>/.lock, held (flock) while this run lasts, or -1 */
    double cap_s;
    submission *subs;  /* sorted by id */
    int nsubs;
    skipped_entry *skipped; /* sorted by name */
    int nskipped;
    int done;          /* finished or resumed, for the progress lines */
    int graded;        /* graded this run (a build that failed included) */
    int regraded;      /* of those, how many had a stale report */
    char *version;     /* the grader's version (grader_version) */
    char *fingerprint; /* what grades this lab, hashed (grader_fingerprint) */
} batch;

/* A running child; pid 0 marks a free slot. */
typedef struct job {
    pid_t pid;
    int sub;           /* which submission */
    int fd;            /* the read end of its pipe: why it failed, if it did */
    char *work;        /* its work folder */
    double start;
    int stopped;       /* killed by the parent at the cap */
} job;

/* batch_find.c: the submissions, the roster, the students' ids (it calls
 * batch_files.c's) */
/* Why id cannot be a student id, malloc'd; NULL when it can. */
char *id_refusal(const char *id);
/* id folded for comparison (case, Unicode normalisation), as UTF-8,
 * malloc'd; id is valid (id_refusal). */
char *id_key(const char *id);
/* The next cell at *p (RFC 4180: quoted or not), malloc'd; *end_of_row set
 * when a line end or the end of the text follows it. *line counts lines. */
char *csv_cell(const char **p, int *end_of_row, int *line);
/* Adds a row "missing" (no submission, score 0) for id (its key id_key's)
 * to b->subs, whose room is *cap; returns it. */
submission *add_missing(batch *b, const char *id, const char *key, int *cap);
/* A CSV file's text (a BOM taken off), malloc'd; NULL with err naming
 * option and path when it cannot be read, is over 16 MiB or holds a NUL. */
char *read_csv_file(const char *option, const char *path, lab_error *err);
/* Moodle's CSV files are PHP's (fgetcsv, fputcsv: escape '\\'), where a
 * backslash before a double quote keeps the quote in the cell; RFC 4180, as
 * the grader reads and writes, ends the cell there. -1 with err naming
 * option, path and the line where text has such a pair, else 0. */
int moodle_csv_refused(const char *option, const char *path, const char *text, lab_error *err);
/* A name as Moodle's download writes it in a file name: '_' as ' ', and
 * without what clean_filename drops. */
char *moodle_download_name(const char *name);
const char *entry_name(const submission *s);
int list_submissions(batch *b, lab_error *err);
void free_submission(submission *s);

/* batch_files.c: a submission's files (it calls no other batch file) */
void hash_file(const char *path, char hex[65]);
void hash_submission(const batch *b, submission *s);
int take_from_folder(const char *folder, const char *dest, const char *const *wanted,
                     lab_error *err);
/* Renames in dir a student file sent under a near name (gr_near_name) to
 * the lab's; returns what it did, for a note, or NULL. */
char *accept_near_names(const char *dir, const char *const *wanted);

/* batch_jobs.c: the reports, the jobs that grade (it calls batch_find.c's
 * and batch_files.c's) */
char *grader_fingerprint(const batch *b);
char *grader_version(const char *root);
/* 0 when every submission was graded or resumed; the signal number when
 * SIGINT, SIGTERM or SIGHUP stopped the batch (its children killed first). */
int grade_all(batch *b, job *jobs);

/* batch_groups.c: --groups (it calls batch_find.c's). After the
 * submissions are listed (and the roster applied): each member gets a row
 * and its group, and one without a submission of their own the groupmate's
 * to be scored on, where the group has exactly one. */
int apply_groups(batch *b, lab_error *err);
/* Whether the assignment is a Moodle team assignment: --groups or
 * --lms-worksheet is its grading worksheet, with a Group column
 * (mod/assign/gradingtable.php writes one only for team submissions); sets
 * b->groups and b->team. */
void groups_team(batch *b);
/* After grading: each such member's row and scorecard from the groupmate's. */
void fill_groups(batch *b);

/* batch_out.c: the gradebook, the LMS files, the summary */
int count_refused(const batch *b);
/* What needs the instructor's eye after a run: entries refused, entries not
 * recognised as submissions (hidden ones and the reports' folder aside),
 * roster students with no submission, submissions not graded (errors), a
 * Moodle group's submission given to no member. Returns their sum; each
 * count goes to look[] (LOOK_KINDS, in that order) where look is not NULL. */
enum { LOOK_KINDS = 5 };
int count_attention(const batch *b, int *look);
int write_gradebook(const batch *b, lab_error *err);
/* The LMS's file (o->lms). Returns 0; 1, nothing written and why in err,
 * where the platform could not import it (Canvas's anonymous ids, a
 * Moodle worksheet whose columns are not found or whose maximum is below
 * a grade); 2, written, and what it lacks in err (students the worksheet
 * has no row for); -1 on an error. */
int write_lms(const batch *b, lab_error *err);

/* batch_gradescope.c: --lms gradescope's file, and zips (it calls no other
 * batch file; batch_out.c calls it) */
/* The autograder that gives each submission the batch's score; returns as
 * write_lms does. */
int write_gradescope_upload(const batch *b, lab_error *err);
/* Writes text (len bytes) into the zip a as the file path (UTF-8), of the
 * given mode. Returns 0, or -1 with err set. */
struct archive;
int zip_add(struct archive *a, const char *path, const char *text, size_t len, int mode,
            lab_error *err);
/* lms_refused: why the LMS's file was not written (write_lms returned 1),
 * or NULL; lms_note: what the file written lacks (2), or NULL. */
void print_summary(const batch *b, const char *gradebook_error, const char *lms_refused,
                   const char *lms_note);

#endif
