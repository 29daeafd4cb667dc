/*
 * grader.c - the command line of ./grader: which lab, whose files, which
 * tests, what format; then grade.c grades and report.c writes. With --batch,
 * batch.c grades a folder of submissions.
 *
 * Exit status: 0 full marks (on the tests run), 1 anything less, 2 a usage
 * or setup error, 3 nothing failed but tests were SKIPPED (lab5's GPU tests
 * on a machine without a GPU). With --batch: 0 every submission graded, 1 any not graded
 * (an error), 2 a usage or setup error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "batch.h"
#include "grade.h"
#include "similarity.h"

/* Set by the Makefile: where the course and its build are. The ./grader
 * script sets FP8LAB_ROOT, so a moved checkout still finds itself. */
#ifndef GRADER_ROOT
#define GRADER_ROOT "."
#endif
#ifndef GRADER_BUILD
#define GRADER_BUILD "build"
#endif

static void usage(FILE *f)
{
    fputs("usage: ./grader [options] LAB\n"
          "       ./grader --batch DIR LAB [-j N] [--csv FILE] [--json-dir DIR2] [--force]\n"
          "                [--timeout SECONDS] [--shard K/N | --merge]\n"
          "Grades labs/LAB (your files) and prints a scorecard.\n"
          "\n"
          "  --solution         grade solutions/LAB, the reference solution\n"
          "  --dir PATH         grade the lab's student files found in PATH\n"
          "  --test NAME        run only that test (see --list); repeat it, or give\n"
          "                     NAME,NAME..., for several\n"
          "  -v, --verbose      list up to 10 mismatches per failure, with each\n"
          "                     failing test's output and the compiler's warnings\n"
          "  --list             every lab, its tests and their points\n"
          "  --seed S           hidden inputs: the tests that can (marked in the report)\n"
          "                     also check inputs drawn from S, any string, against the\n"
          "                     reference solution (default: $FP8LAB_SEED; the report\n"
          "                     never shows S)\n"
          "  --seed-file FILE   --seed with the first line of FILE: no quoting to get\n"
          "                     wrong in a shell, make or Slurm\n"
          "  --reweight-skipped where tests were SKIPPED (a GPU too old for them: lab5\n"
          "                     on a T4 or an A100), score out of the points graded,\n"
          "                     scaled to the rubric's: 82 of the 82 an A100 grades is\n"
          "                     112/112 (default: the rubric's points, 82/112)\n"
          "  --format FORMAT    text (default), json, gradescope, tap, junit or autolab\n"
          "                     (the scorecard, then Autolab's line of JSON scores)\n"
          "  -A                 --format autolab\n"
          "  -o, --output FILE  write the report to FILE instead of standard output\n"
          "  --keep             keep the pristine build tree and say where it is\n"
          "  -h, --help         this message\n"
          "\n"
          "Batch grading (instructors): DIR holds one folder or archive per student,\n"
          "named by the student's id (alice/, bob.zip, carol.tar.gz); only the lab's\n"
          "student files are taken from each, wherever they are in an archive.\n"
          "  --batch DIR        grade every folder and archive (.zip, .tar, .tar.gz,\n"
          "                     .tgz, .tar.bz2, .tar.xz) in DIR, each in a process of\n"
          "                     its own; other entries (files, hidden ones) are skipped\n"
          "  -j N               grade N submissions at once (default 1)\n"
          "  --json-dir DIR2    where each student's report goes, DIR2/<id>.json\n"
          "                     (default DIR.grades, beside DIR)\n"
          "  --csv FILE         the gradebook (default DIR2/grades.csv)\n"
          "  --force            grade again the submissions that have a report in DIR2\n"
          "                     (without it, those are read back: a run resumes; a report\n"
          "                     whose submission, grader version or hidden inputs differ\n"
          "                     from this run is graded again, and the summary says so)\n"
          "  --only ID          grade student ID again (repeat it for more); the others\n"
          "                     resume\n"
          "  --from LAYOUT      DIR is a learning platform's bulk download, unzipped:\n"
          "                     canvas (\"Download Submissions\"), moodle (\"Download all\n"
          "                     submissions\") or gradescope (\"Export Submissions\"); the\n"
          "                     ids are the platform's (Canvas user id, Moodle participant\n"
          "                     id, Gradescope SID). Recognised without it; --from plain\n"
          "                     reads DIR as one folder or archive per student\n"
          "  --roster FILE      the class, a CSV of id and name: the gradebook gets a row\n"
          "                     \"missing\" (score 0) for each student without a submission\n"
          "  --similarity[=P]   DIR2/similarity.log: identical submissions, then the pairs\n"
          "                     of which either has P %% (default 50) of its text in the\n"
          "                     other (sim_c, package similarity-tester, the skeleton's\n"
          "                     and handout's lines, and what many share, taken out); it\n"
          "                     informs, and changes no score\n"
          "  --similarity-common M\n"
          "                     what more than M submissions share (passages of 16\n"
          "                     tokens, any name read as one) is left out of the\n"
          "                     comparison, as MOSS's -m; default 10\n"
          "  --groups FILE      a group submits once: each member without a submission\n"
          "                     of their own is scored on the group's one (FILE: a CSV\n"
          "                     with the header id,group, Canvas's export of a group\n"
          "                     set, a Moodle team assignment's grading worksheet, or\n"
          "                     Moodle's groups overview with --lms-worksheet); the\n"
          "                     gradebook's group column names each one's\n"
          "  --late-penalty P   take P %% (0 to 100) of the score of work the platform\n"
          "                     marked late (Canvas's LATE, in its download); the\n"
          "                     gradebook's late column says which were, with it or not\n"
          "  --timeout SECONDS  stop grading a submission after this long and report an\n"
          "                     error for it (default 10 x the lab's time limits + 120 s)\n"
          "Beside each report, DIR2/<id>.txt, the scorecard to return to the student.\n"
          "A summary, and a histogram of the scores (DIR2/scores.png), come at the end.\n"
          "  --shard K/N        grade only the K-th of N slices of DIR (every N-th\n"
          "                     submission in id order, from the K-th), e.g. one per\n"
          "                     machine or Slurm array task, into a shared DIR2; the\n"
          "                     gradebook is DIR2/grades.shard-K-of-N.csv\n"
          "  --merge            grade nothing: the gradebook, summary and histogram\n"
          "                     from the reports the shards wrote to DIR2\n"
          "  --lms LMS          also DIR2/lms-LMS.csv for an LMS's grade import: canvas\n"
          "                     (rows matched by SIS Login ID, the student id; by ID from\n"
          "                     a Canvas download) or moodle (Username, Feedback; from a\n"
          "                     Moodle download, its grading worksheet); an error scores 0\n"
          "                     there, which the import keeps; or DIR2/lms-gradescope.zip,\n"
          "                     an autograder giving each Gradescope submission its score\n"
          "                     here, found by number or email (INSTRUCTORS.md)\n"
          "  --lms-assignment 'TITLE (ID)'\n"
          "                     with --lms canvas (needed): the assignment's column as\n"
          "                     Canvas's gradebook export heads it, its id in parentheses\n"
          "  --lms-worksheet FILE\n"
          "                     with --lms moodle: the assignment's grading worksheet as\n"
          "                     downloaded, filled in (every row and column kept; a\n"
          "                     teacher's feedback kept before the grader's)\n"
          "  --lms-worksheet-columns ID,GRADE,MODIFIED[,FEEDBACK]\n"
          "                     its columns by number, where the site's language is not\n"
          "                     English (the grader proposes them)\n"
          "\n"
          "Exit status: 0 full marks, 1 less, 2 a usage or setup error, 3 nothing failed but\n"
          "some tests were SKIPPED (GPU tests without a GPU). With --batch:\n"
          "0 every submission graded, 1 any not graded (an error), 2 a usage or setup error.\n"
          "CK_TIMEOUT_MULTIPLIER scales every test's time limit (e.g. 3 on a slow machine).\n",
          f);
}

static void list_labs(void)
{
    for (int i = 0; grader_labs[i]; i++) {
        const grader_lab *lab = grader_labs[i];
        printf("%s  %s  (%d points)\n", lab->name, lab->title, grader_lab_points(lab));
        for (int t = 0; t < lab->ntests; t++)
            printf("  %-24s %3d  %s\n", lab->tests[t].name, lab->tests[t].points,
                   lab->tests[t].title);
    }
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int write_report(const gr_report *r, gr_format format, int verbose, const char *path)
{
    lab_error err;
    if (!path) {
        if (gr_write_report(stdout, r, format, verbose, &err) == 0)
            return 0;
        fprintf(stderr, "grader: %s\n", err.msg);
        return -1;
    }
    atomic_file af;
    if (atomic_file_open(&af, path, &err) != 0) {
        fprintf(stderr, "grader: %s\n", err.msg);
        return -1;
    }
    if (gr_write_report(af.f, r, format, verbose, &err) != 0) {
        atomic_file_abort(&af);
        fprintf(stderr, "grader: %s\n", err.msg);
        return -1;
    }
    if (atomic_file_commit(&af, &err) != 0) {
        fprintf(stderr, "grader: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* The seed in path: its first line, without the line end; the file must
 * hold nothing else but that line. Says what is wrong and returns -1. */
static int read_seed_file(const char *path, char *seed, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "grader: --seed-file %s: cannot open: %s\n", path, strerror(errno));
        return -1;
    }
    size_t n = fread(seed, 1, size - 1, f);
    int more = fgetc(f) != EOF, bad = ferror(f);
    fclose(f);
    seed[n] = '\0';
    if (n > 0 && seed[n - 1] == '\n')
        seed[--n] = '\0';
    if (n > 0 && seed[n - 1] == '\r')
        seed[--n] = '\0';
    const char *why = bad                      ? "cannot be read"
                      : more || n > 200        ? "longer than a seed may be (200 characters)"
                      : strlen(seed) != n      ? "holds a NUL byte"
                      : strpbrk(seed, "\r\n") ? "holds more than one line"
                      : n == 0                 ? "is empty"
                                               : NULL;
    if (why) {
        fprintf(stderr, "grader: --seed-file %s: %s; it holds the seed, any string on one "
                        "line\n", path, why);
        return -1;
    }
    return 0;
}

/* The options of --batch, as given. */
typedef struct batch_args {
    const char *dir, *jobs, *csv, *json_dir, *timeout, *shard, *lms, *roster, *from;
    const char *lms_assignment, *lms_worksheet, *lms_worksheet_columns;
    const char *similarity; /* "" for --similarity alone */
    const char *similarity_common;
    const char *late_penalty;
    const char *groups;
    int force, merge;
    const char **only;
    int nonly;
} batch_args;

/* A whole number from lo to hi in s, into *out; 0 when s is not one. */
static int whole_in(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* --batch: reads the numbers, then grades the folder (batch.c). */
static int run_batch(const batch_args *a, const gr_options *o, int verbose)
{
    gr_batch_options b = {0};
    char *end;
    b.lab = o->lab;
    b.root = o->root;
    b.build = o->build;
    b.dir = a->dir;
    b.json_dir = a->json_dir;
    b.csv = a->csv;
    b.force = a->force;
    b.merge = a->merge;
    b.seed = o->seed;
    b.reweight = o->reweight;
    b.only = a->only;
    b.roster = a->roster;
    b.groups = a->groups;
    b.nonly = a->nonly;
    if (a->lms && strcmp(a->lms, "canvas") != 0 && strcmp(a->lms, "moodle") != 0 &&
        strcmp(a->lms, "gradescope") != 0) {
        fprintf(stderr, "grader: --lms %s: canvas, moodle or gradescope\n", a->lms);
        return 2;
    }
    b.lms = a->lms;
    /* Canvas's import takes the assignment's id from a column headed
     * "Title (id)" (Assignment.title_and_id, app/models/assignment.rb:
     * /\A(.*)\s\((\d+)\)\z/); any other header it matches by the exact
     * title, or makes a new assignment of it (GradebookImporter
     * parse_assignments, app/models/gradebook_importer.rb). */
    if (a->lms && strcmp(a->lms, "canvas") == 0 && !a->lms_assignment) {
        fprintf(stderr, "grader: --lms canvas needs --lms-assignment 'TITLE (ID)': the "
                        "assignment's column as Canvas's gradebook export heads it, its id in "
                        "parentheses; without the id Canvas's import makes a new assignment "
                        "(INSTRUCTORS.md)\n");
        return 2;
    }
    if (a->lms_assignment) {
        const char *t = a->lms_assignment, *open = strrchr(t, '(');
        size_t n = strlen(t), digits = open ? strspn(open + 1, "0123456789") : 0;
        if (!a->lms || strcmp(a->lms, "canvas") != 0) {
            fprintf(stderr, "grader: --lms-assignment goes with --lms canvas (Moodle's import "
                            "is the assignment's own, or maps its column in its form)\n");
            return 2;
        }
        if (!open || open == t || (open[-1] != ' ' && open[-1] != '\t') || digits == 0 ||
            open + 1 + digits != t + n - 1 || t[n - 1] != ')') {
            fprintf(stderr, "grader: --lms-assignment '%s': not TITLE (ID), the title, a "
                            "space and the assignment's id in parentheses, e.g. 'Lab 1 "
                            "(48213)' (Canvas's gradebook export heads its columns so)\n", t);
            return 2;
        }
        for (const char *c = t; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                fprintf(stderr, "grader: --lms-assignment: a control character in it\n");
                return 2;
            }
        b.lms_assignment = a->lms_assignment;
    }
    if (a->lms_worksheet && (!a->lms || strcmp(a->lms, "moodle") != 0)) {
        fprintf(stderr, "grader: --lms-worksheet goes with --lms moodle: the assignment's "
                        "grading worksheet, as Moodle's \"Download grading worksheet\" gives it\n");
        return 2;
    }
    if (a->lms_worksheet_columns && !a->lms_worksheet) {
        fprintf(stderr, "grader: --lms-worksheet-columns goes with --lms-worksheet\n");
        return 2;
    }
    b.lms_worksheet = a->lms_worksheet;
    b.lms_worksheet_columns = a->lms_worksheet_columns;
    if (a->from) {
        int from = gr_from_parse(a->from);
        if (from < 0) {
            fprintf(stderr, "grader: --from %s: canvas, moodle, gradescope or plain\n",
                    a->from);
            return 2;
        }
        b.from = (gr_from)from;
    }
    if (a->late_penalty) {
        long p = 0;
        if (!whole_in(a->late_penalty, 0, 100, &p)) {
            fprintf(stderr, "grader: --late-penalty %s: a percentage, 0 to 100, taken from the "
                            "score of work the platform marked late\n", a->late_penalty);
            return 2;
        }
        b.late_penalty = (int)p;
    }
    if (a->similarity) {
        long t = 50;
        if (a->similarity[0]) {
            if (!whole_in(a->similarity, 1, 100, &t)) {
                fprintf(stderr, "grader: --similarity=%s: a percentage, 1 to 100\n",
                        a->similarity);
                return 2;
            }
        }
        b.similarity = (int)t;
    }
    b.similarity_common = SIM_COMMON_DEFAULT;
    if (a->similarity_common) {
        long m;
        if (!a->similarity || !whole_in(a->similarity_common, 2, 1000000, &m)) {
            fprintf(stderr, "grader: --similarity-common %s: %s\n", a->similarity_common,
                    a->similarity ? "a number of submissions, 2 or more: what more than that "
                                    "many share is left out of the comparison"
                                  : "it goes with --similarity");
            return 2;
        }
        b.similarity_common = (int)m;
    }
    b.show = o->show;
    if (a->shard) {
        int k, n, used = 0;
        if (sscanf(a->shard, "%d/%d%n", &k, &n, &used) != 2 || a->shard[used] != '\0' ||
            n < 1 || n > 100000 || k < 1 || k > n) {
            fprintf(stderr, "grader: --shard %s: give K/N, the K-th of N slices, "
                            "1 <= K <= N (e.g. --shard 2/8)\n", a->shard);
            return 2;
        }
        b.shard_k = k;
        b.shard_n = n;
    }
    if (a->merge && (a->shard || a->force || a->jobs || a->timeout || a->nonly)) {
        fprintf(stderr, "grader: --merge grades nothing: it takes no --shard, --force, -j, "
                        "--timeout or --only\n");
        return 2;
    }
    b.verbose = verbose;
    b.jobs = 1;
    if (a->jobs) {
        long jobs = 0;
        if (!whole_in(a->jobs, 1, 1024, &jobs)) {
            fprintf(stderr, "grader: -j %s: give how many submissions to grade at once, "
                            "1 to 1024\n", a->jobs);
            return 2;
        }
        b.jobs = (int)jobs;
    }
    if (a->timeout) {
        b.timeout_s = strtod(a->timeout, &end);
        if (end == a->timeout || *end != '\0' || !(b.timeout_s > 0 && b.timeout_s < 1e7)) {
            fprintf(stderr, "grader: --timeout %s: give a number of seconds above 0\n",
                    a->timeout);
            return 2;
        }
    }
    lab_error err;
    int rc = gr_batch(&b, &err);
    if (rc < 0) {
        fprintf(stderr, "grader: %s\n", err.msg);
        return 2;
    }
    return rc;
}

/* Appends the comma-separated names of one --test to list (size bytes).
 * Returns 0, or -1 when they do not fit. */
static int test_list_add(char *list, size_t size, const char *names)
{
    size_t len = strlen(list);
    int n = snprintf(list + len, size - len, "%s%s", len ? "," : "", names);
    return n < 0 || (size_t)n >= size - len ? -1 : 0;
}

int main(int argc, char **argv)
{
    enum {
        OPT_SOLUTION = 256, OPT_DIR, OPT_TEST, OPT_LIST, OPT_FORMAT, OPT_KEEP,
        OPT_BATCH, OPT_CSV, OPT_JSON_DIR, OPT_FORCE, OPT_TIMEOUT, OPT_SHARD, OPT_MERGE,
        OPT_SEED, OPT_LMS, OPT_SEED_FILE, OPT_REWEIGHT, OPT_LATE_PENALTY, OPT_GROUPS, OPT_ONLY, OPT_ROSTER, OPT_FROM,
        OPT_SIMILARITY, OPT_SIMILARITY_COMMON, OPT_LMS_ASSIGNMENT, OPT_LMS_WORKSHEET,
        OPT_LMS_WORKSHEET_COLUMNS
    };
    static const struct option longopts[] = {
        {"solution", no_argument, 0, OPT_SOLUTION}, {"dir", required_argument, 0, OPT_DIR},
        {"test", required_argument, 0, OPT_TEST},   {"verbose", no_argument, 0, 'v'},
        {"list", no_argument, 0, OPT_LIST},         {"format", required_argument, 0, OPT_FORMAT},
        {"output", required_argument, 0, 'o'},      {"keep", no_argument, 0, OPT_KEEP},
        {"batch", required_argument, 0, OPT_BATCH}, {"csv", required_argument, 0, OPT_CSV},
        {"json-dir", required_argument, 0, OPT_JSON_DIR},
        {"force", no_argument, 0, OPT_FORCE},       {"timeout", required_argument, 0, OPT_TIMEOUT},
        {"shard", required_argument, 0, OPT_SHARD}, {"merge", no_argument, 0, OPT_MERGE},
        {"seed", required_argument, 0, OPT_SEED},   {"lms", required_argument, 0, OPT_LMS},
        {"lms-assignment", required_argument, 0, OPT_LMS_ASSIGNMENT},
        {"lms-worksheet", required_argument, 0, OPT_LMS_WORKSHEET},
        {"lms-worksheet-columns", required_argument, 0, OPT_LMS_WORKSHEET_COLUMNS},
        {"seed-file", required_argument, 0, OPT_SEED_FILE},
        {"reweight-skipped", no_argument, 0, OPT_REWEIGHT},
        {"late-penalty", required_argument, 0, OPT_LATE_PENALTY},
        {"groups", required_argument, 0, OPT_GROUPS},
        {"only", required_argument, 0, OPT_ONLY},
        {"roster", required_argument, 0, OPT_ROSTER},
        {"from", required_argument, 0, OPT_FROM},
        {"similarity", optional_argument, 0, OPT_SIMILARITY},
        {"similarity-common", required_argument, 0, OPT_SIMILARITY_COMMON},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    int solution = 0, verbose = 0, list = 0, keep = 0, format_given = 0, reweight = 0, c;
    const char *dir = NULL, *test = NULL, *output = NULL, *seed = getenv("FP8LAB_SEED");
    char tests[2048] = ""; /* the tests named by --test, comma-separated */
    const char *seed_file = NULL;
    static char seed_buf[256];
    gr_format format = GR_FORMAT_TEXT;
    batch_args batch = {0};
    /* The --only ids point into argv; there are fewer of them than arguments. */
    const char *only_ids[argc];
    batch.only = only_ids;

    while ((c = getopt_long(argc, argv, "vo:hj:A", longopts, NULL)) != -1) {
        switch (c) {
        case 'A':
            format_given = 1;
            format = GR_FORMAT_AUTOLAB;
            break;
        case OPT_SOLUTION: solution = 1; break;
        case OPT_DIR: dir = optarg; break;
        case OPT_TEST:
            if (test_list_add(tests, sizeof tests, optarg) != 0) {
                fprintf(stderr, "grader: --test: too many tests named\n");
                return 2;
            }
            test = tests;
            break;
        case 'v': verbose = 1; break;
        case OPT_LIST: list = 1; break;
        case OPT_KEEP: keep = 1; break;
        case 'o': output = optarg; break;
        case OPT_BATCH: batch.dir = optarg; break;
        case 'j': batch.jobs = optarg; break;
        case OPT_CSV: batch.csv = optarg; break;
        case OPT_JSON_DIR: batch.json_dir = optarg; break;
        case OPT_FORCE: batch.force = 1; break;
        case OPT_TIMEOUT: batch.timeout = optarg; break;
        case OPT_SHARD: batch.shard = optarg; break;
        case OPT_MERGE: batch.merge = 1; break;
        case OPT_SEED: seed = optarg; break;
        case OPT_SEED_FILE: seed_file = optarg; break;
        case OPT_REWEIGHT: reweight = 1; break;
        case OPT_LATE_PENALTY: batch.late_penalty = optarg; break;
        case OPT_GROUPS: batch.groups = optarg; break;
        case OPT_ROSTER: batch.roster = optarg; break;
        case OPT_FROM: batch.from = optarg; break;
        case OPT_SIMILARITY: batch.similarity = optarg ? optarg : ""; break;
        case OPT_SIMILARITY_COMMON: batch.similarity_common = optarg; break;
        case OPT_ONLY: only_ids[batch.nonly++] = optarg; break;
        case OPT_LMS: batch.lms = optarg; break;
        case OPT_LMS_ASSIGNMENT: batch.lms_assignment = optarg; break;
        case OPT_LMS_WORKSHEET: batch.lms_worksheet = optarg; break;
        case OPT_LMS_WORKSHEET_COLUMNS: batch.lms_worksheet_columns = optarg; break;
        case OPT_FORMAT: {
            format_given = 1;
            int f = gr_format_from_name(optarg);
            if (f < 0) {
                fprintf(stderr, "grader: unknown format '%s' (text, json, gradescope, tap, "
                                "junit, autolab)\n", optarg);
                return 2;
            }
            format = (gr_format)f;
            break;
        }
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (list) {
        list_labs();
        return 0;
    }
    if (optind != argc - 1) {
        fprintf(stderr, optind == argc ? "grader: which lab? (e.g. ./grader lab0)\n"
                                       : "grader: one lab at a time\n");
        usage(stderr);
        return 2;
    }
    int batch_only = batch.jobs || batch.csv || batch.json_dir || batch.force ||
                     batch.timeout || batch.shard || batch.merge || batch.lms ||
                     batch.lms_assignment || batch.nonly || batch.late_penalty || batch.groups ||
                     batch.roster || batch.from || batch.similarity || batch.lms_worksheet ||
                     batch.lms_worksheet_columns || batch.similarity_common;
    if (!batch.dir && batch_only) {
        fprintf(stderr, "grader: -j, --csv, --json-dir, --force, --timeout, --shard, "
                        "--merge, --lms, --lms-assignment, --lms-worksheet, --only, --roster, "
                        "--groups, --from, --late-penalty "
                        "and --similarity "
                        "go with "
                        "--batch DIR\n");
        return 2;
    }
    if (batch.dir && (solution || dir || test || format_given || output || keep)) {
        fprintf(stderr, "grader: --batch grades every test of every folder in DIR into json "
                        "reports; --solution, --dir, --test, --format, -o and --keep do not "
                        "go with it\n");
        return 2;
    }
    const char *root = getenv("FP8LAB_ROOT");
    gr_options o = {0};
    o.root = root && *root ? root : GRADER_ROOT;
    o.build = GRADER_BUILD;
    o.lab = grader_find_lab(argv[optind]);
    o.only_test = test;
    o.show = verbose ? 10 : 1;
    o.keep = keep;
    o.reweight = reweight;
    if (seed_file) {
        if (read_seed_file(seed_file, seed_buf, sizeof seed_buf) != 0)
            return 2;
        seed = seed_buf;
    }
    if (seed && !*seed)
        seed = NULL;
    if (seed && (strlen(seed) > 200 || strpbrk(seed, "\n\r"))) {
        fprintf(stderr, "grader: --seed: at most 200 characters on one line\n");
        return 2;
    }
    o.seed = seed;
    if (!o.lab) {
        fprintf(stderr, "grader: no lab named '%s'; ./grader --list shows them\n",
                argv[optind]);
        return 2;
    }
    for (const char *t = test; t && *t; t += strcspn(t, ",") + (t[strcspn(t, ",")] != 0)) {
        char one[128];
        snprintf(one, sizeof one, "%.*s", (int)strcspn(t, ","), t);
        if (!*one || !grader_find_test(o.lab, one)) {
            fprintf(stderr, "grader: %s has no test named '%s'; ./grader --list shows them\n",
                    o.lab->name, one);
            return 2;
        }
    }
    if (batch.dir)
        return run_batch(&batch, &o, verbose);
    if (solution && dir) {
        fprintf(stderr, "grader: --solution and --dir each say whose files to grade; "
                        "give one\n");
        return 2;
    }
    char source[4096], label[512];
    snprintf(label, sizeof label, "%s/%s", solution ? "solutions" : "labs", o.lab->name);
    if (dir)
        snprintf(source, sizeof source, "%s", dir);
    else
        snprintf(source, sizeof source, "%s/%s", o.root, label);
    o.label = dir ? dir : label;
    if (!is_dir(source)) {
        fprintf(stderr, "grader: %s: no such folder\n", source);
        return 2;
    }
    o.source_dir = source;
    o.sandbox_say = verbose ? GR_SANDBOX_SAY_ALL
                    : dir   ? GR_SANDBOX_SAY_OTHERS
                            : GR_SANDBOX_SAY_OWN;

    gr_report r;
    lab_error err;
    if (gr_grade(&o, &r, &err) != 0) {
        fprintf(stderr, "grader: %s\n", err.msg);
        gr_report_free(&r);
        return 2;
    }
    int failed = r.nresults - gr_count_status(&r, GR_PASS) - gr_count_status(&r, GR_SKIPPED);
    int rc = write_report(&r, format, verbose, output) != 0 ? 2
             : r.graded_score == r.max_score             ? 0
             : failed == 0                               ? 3
                                                         : 1;
    gr_report_free(&r);
    return rc;
}
