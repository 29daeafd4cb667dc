/*
 * lms_import.h - a learning platform's bulk download, laid out again the
 * way ./grader --batch reads a class: one folder (or archive) per student id.
 *
 *   canvas      "Download Submissions" (lib/content_zipper.rb): flat files
 *               <name>[_LATE]_<user id>_<attachment id>_<file>, the name the
 *               sortable name in lower case with every non-word character
 *               taken out (Unicode letters kept), <file> the student's own
 *               name for it, with "-N" before its suffix when it was uploaded
 *               again (lab3-1.c); anonymous grading writes
 *               [LATE_]anon_<anonymous id>_<attachment id>_<file>. An online
 *               text or link entry (<name>_<user id>_text.html) holds no files:
 *               listed, needing no look. The id is the Canvas user id (or
 *               anon_<id>), the name the one the file name starts with.
 *   moodle      "Download all submissions" (mod/assign/classes/downloader.php):
 *               a folder per student, <Full Name>_<participant id>_
 *               assignsubmission_file (with a '_' at its end before Moodle
 *               4.1), or, downloaded without folders, flat files
 *               <Full Name>_<participant id>_assignsubmission_file_<file>.
 *               Online text (assignsubmission_onlinetext) holds no files:
 *               listed, needing no look. The id is the participant id, the
 *               name the full name ("Participant" under blind marking).
 *   gradescope  "Export Submissions": submission_metadata.yml and a folder per
 *               submission (submission_<n>/), perhaps inside one folder
 *               (assignment_<n>_export/). The metadata lists each submission's
 *               :submitters: with :name:, :sid: and :email:; every submitter of a
 *               group is a student graded on the group's files. The id is the
 *               :sid:, or the :email: where the sid is empty.
 *
 * The names and the files' own names are the students' to choose, so the
 * id is read only where the platform writes it: a name that reads as two
 * ids is refused, entries that give one id under two names are refused
 * together (never merged), an entry that fits no form is listed with why,
 * and an entry that cannot be copied costs its student only.
 *
 * The download itself is never changed: each student's files are copied
 * (regular files only; a symbolic link is copied as a link, which the batch
 * then refuses like any other). A student whose only file is an archive
 * becomes <id>.zip (or .tar...), which the batch unpacks as usual.
 *
 * Not for: grading (batch.h) or reading archives (unpack.h).
 */
#ifndef FP8LAB_LMS_IMPORT_H
#define FP8LAB_LMS_IMPORT_H

#include "error.h"

typedef enum gr_from {
    GR_FROM_AUTO = 0,  /* detect it (gr_detect_layout) */
    GR_FROM_PLAIN,     /* one folder or archive per student id, as it is */
    GR_FROM_CANVAS,
    GR_FROM_MOODLE,
    GR_FROM_GRADESCOPE,
} gr_from;

/* GR_FROM_* for "auto", "plain", "canvas", "moodle", "gradescope"; -1 otherwise. */
int gr_from_parse(const char *name);
/* "plain", "canvas", ...; "Canvas"-style capitals when title is set. */
const char *gr_from_name(gr_from from, int title);

/* The layout of the folder dir: a platform's when at least half of its
 * entries (hidden ones aside) fit that platform's naming, else
 * GR_FROM_PLAIN. */
gr_from gr_detect_layout(const char *dir);

typedef struct gr_import {
    gr_from from;      /* the layout read */
    int n;             /* students found */
    char **ids;        /* each student's id */
    char **names;      /* and name, as the download gives it ("" when none) */
    char **uploads;    /* and, where the student's files are one archive (then
                          <id>.zip in dest), the archive's own name as the
                          student uploaded it ("lab3.zip"), else NULL; the
                          array NULL when none is */
    char **late_ids;   /* the students whose work the platform marked late:
                          Canvas's LATE (the others' was not late); the other
                          layouts have no mark the grader reads */
    int nlate;
    char **emails;     /* a Gradescope export's: each student's :email: ("" when
                          none), and */
    char **submissions; /* the number of the submission they were graded on (its
                          folder submission_<n>; "" when named otherwise): the
                          arrays NULL for the other layouts */
    int nskipped;      /* entries of the download not taken */
    char **skipped;    /* their names */
    char **why;        /* and why */
    int *refused;      /* 1: a student's work the instructor must see to (no
                          usable id, one id in two submissions); 0: not recognised
                          as a submission (a look is needed); 2: nothing to
                          grade and nothing to look at (Moodle's online text) */
} gr_import;

/*
 * Reads the download in dir, laid out as from (not GR_FROM_AUTO or
 * GR_FROM_PLAIN), into the folder dest, which must not exist: one entry per
 * student id. Returns 0 and fills out (gr_import_free frees it), or -1 with
 * err set: dest cannot be made, dir cannot be read, the Gradescope metadata
 * is missing or unreadable. A student whose files disagree (two ids in one
 * name, two entries for one id) is listed in out's skipped, not graded.
 * team: a Moodle team assignment's download, whose entries are the groups'
 * (ids "group-<group id>", named by the group), not the participants'.
 */
int gr_import_lms(const char *dir, gr_from from, int team, const char *dest, gr_import *out,
                  lab_error *err);
void gr_import_free(gr_import *in);
/* Whether entry is a Moodle team assignment's default group's (students in
 * no group): named by the group alone, "Default group_assignsubmission_file"
 * in English, with no number; no entry of a download of one submission each
 * is so named. */
int gr_moodle_default_group(const char *entry);

#endif
