/*
 * batch.c - grades a folder of submissions, each in a child process of its
 * own (see batch.h).
 *
 * The parent lists the folder, then keeps up to `jobs` children running.
 * Each child grades one submission with gr_grade and writes its json report;
 * the parent reads every report back, so that a fresh report and one resumed
 * from an earlier run go into the gradebook the same way. At the end come
 * the gradebook, the histogram and the summary.
 *
 * Killing a child does not stop what it started: gr_grade runs the compiler
 * and each test runner in a process group of its own. So the parent makes
 * itself a child subreaper (prctl, Linux): whatever a dead child leaves
 * running becomes the parent's child, and kill_strays kills it with its
 * group. And each child grades in a work folder of its own, which looks like
 * the build folder to gr_grade (make_work), so that the pristine tree a
 * killed child leaves behind is removed with that folder.
 *
 * Not for: grading one submission (grade.c) or formatting a report
 * (report.c); this file runs gr_grade and reads what gr_write_report wrote.
 */
#define _GNU_SOURCE
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
#include "unicode_fold.h"
#include "unpack.h"

#define CAP_PER_LIMIT 10.0      /* the default cap: 10 x each test's limit, */
#define CAP_MIN_LIMIT 1.0       /* counted as at least 1 s, */
#define CAP_BUILD_S 120.0       /* + 120 s for the build */
#define POLL_NS (20 * 1000000L) /* how often the parent looks at its children */
#define TOP_FAILED 5            /* tests in the summary's "most failed" list */
#define HIST_BINS 10            /* bars of the histogram, from 0 to full marks */
#define ID_WIDTH_MAX 24         /* widest id column in the summary */

/* ---- small helpers ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Out of memory is the one failure that is not returned (as in grade.c). */
static void out_of_memory(void)
{
    fputs("grader: out of memory\n", stderr);
    exit(2);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        out_of_memory();
    return p;
}

/* Room for one more element in *array, which holds n of capacity *cap. */
static void *grow(void *array, int n, int *cap, size_t size)
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
static double timeout_multiplier(void)
{
    const char *s = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end;
    double m = s ? strtod(s, &end) : 1.0;
    return s && end != s && *end == '\0' && m >= 0 ? m : 1.0;
}

/* s in ASCII, for a JSON string when s is not UTF-8: control characters
 * and every byte past 0x7F become '?'. (For a terminal: gr_clean_line.) */
static char *ascii_text(const char *s)
{
    char *p = gr_asprintf("%s", s);
    for (unsigned char *c = (unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c >= 0x7F)
            *c = '?';
    return p;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Creates path and its missing parents, as mkdir -p does. */
static int make_dirs(const char *path, lab_error *err)
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

/* ---- the run's state --------------------------------------------------------------- */

typedef enum sub_status { SUB_GRADED = 0, SUB_BUILD_FAILED, SUB_ERROR, SUB_MISSING } sub_status;

/* How the gradebook's status column spells each. */
static const char *const status_names[] = {"graded", "build_failed", "error", "missing"};

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
    int on_roster;     /* the roster lists it (always 1 without a roster) */
    int refused;       /* not graded: error says why (its id and another's are one) */
} submission;

typedef struct skipped_entry {
    char *name;
    char *why;
    int refused;       /* it may be a student's: not graded until the instructor acts */
} skipped_entry;

typedef struct batch {
    const gr_batch_options *o;
    const grader_lab *lab;
    char *dir;         /* o->dir without trailing slashes; for a platform's
                          download, the folder it was read into (<work>/class) */
    char *download;    /* o->dir without trailing slashes */
    gr_from from;      /* the layout read */
    gr_import import;  /* what was read from a platform's download */
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

/* ---- student ids ---------------------------------------------------------------------
 *
 * An id is the name of a folder or an archive, so it is whatever bytes a
 * file name holds. One that is not UTF-8 or holds a control character is
 * refused (a gradebook, an LMS and a terminal each read it differently).
 * Two ids are one student's when Unicode calls them canonical caseless
 * equal (D145): "alice" and "Alice", "café" with its é precomposed and
 * decomposed. The test compares NFD(fold(NFD(id))), which is equal exactly
 * when the NFC forms of the folded ids are (unicode_fold.h has the tables).
 */

typedef struct codepoints {
    uint32_t *v;
    int n, cap;
} codepoints;

static void cp_push(codepoints *c, uint32_t cp)
{
    c->v = grow(c->v, c->n, &c->cap, sizeof *c->v);
    c->v[c->n++] = cp;
}

static const uf_map *uf_find(const uf_map *table, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (table[mid].cp == cp)
            return &table[mid];
        if (table[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int combining_class(uint32_t cp)
{
    size_t lo = 0, hi = GRADER_COUNT(uf_ccc);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (uf_ccc[mid].cp == cp)
            return uf_ccc[mid].ccc;
        if (uf_ccc[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Appends cp's full canonical decomposition: Hangul syllables by the
 * algorithm of Unicode's section 3.12, the others from the table. */
static void push_decomposed(codepoints *c, uint32_t cp)
{
    const uint32_t s_base = 0xAC00, l_base = 0x1100, v_base = 0x1161, t_base = 0x11A7;
    const uint32_t t_count = 28, n_count = 21 * 28, s_count = 19 * 21 * 28;
    if (cp >= s_base && cp < s_base + s_count) {
        uint32_t i = cp - s_base;
        cp_push(c, l_base + i / n_count);
        cp_push(c, v_base + (i % n_count) / t_count);
        if (i % t_count)
            cp_push(c, t_base + i % t_count);
        return;
    }
    const uf_map *m = uf_find(uf_decomp, GRADER_COUNT(uf_decomp), cp);
    if (!m) {
        cp_push(c, cp);
        return;
    }
    for (int i = 0; i < m->len; i++)
        cp_push(c, uf_decomp_data[m->off + i]);
}

/* The canonical ordering: marks in a run sorted by class, stably. */
static void canonical_order(codepoints *c)
{
    for (int i = 1; i < c->n; i++) {
        for (int k = i; k > 0; k--) {
            int ck = combining_class(c->v[k]), cprev = combining_class(c->v[k - 1]);
            if (ck == 0 || cprev <= ck)
                break;
            uint32_t t = c->v[k];
            c->v[k] = c->v[k - 1];
            c->v[k - 1] = t;
        }
    }
}

/* NFD of in, into out (emptied first); with fold, each code point's full case
 * folding first. */
static void nfd(const codepoints *in, codepoints *out, int fold)
{
    out->n = 0;
    for (int i = 0; i < in->n; i++) {
        const uf_map *m = fold ? uf_find(uf_fold, GRADER_COUNT(uf_fold), in->v[i]) : NULL;
        if (!m) {
            push_decomposed(out, in->v[i]);
            continue;
        }
        for (int k = 0; k < m->len; k++)
            push_decomposed(out, uf_fold_data[m->off + k]);
    }
    canonical_order(out);
}

/* Why id cannot be a student id, malloc'd; NULL when it can. */
static char *id_refusal(const char *id)
{
    if (!*id)
        return gr_asprintf("an empty id");
    for (const char *p = id; *p;) {
        unsigned cp;
        int len = gr_utf8_next(p, &cp);
        if (len < 0)
            return gr_asprintf("its name is not UTF-8 (byte 0x%02X at %d): rename it",
                               (unsigned char)*p, (int)(p - id));
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
            return gr_asprintf("its name holds the control character U+%04X at byte %d: "
                               "rename it", cp, (int)(p - id));
        p += len;
    }
    return NULL;
}

/* id folded for comparison, as UTF-8, malloc'd; id is valid (id_refusal). */
static char *id_key(const char *id)
{
    codepoints raw = {0}, a = {0}, b = {0};
    for (const char *p = id; *p;) {
        unsigned cp;
        int len = gr_utf8_next(p, &cp);
        cp_push(&raw, cp);
        p += len;
    }
    nfd(&raw, &a, 0);
    nfd(&a, &b, 1);
    char *key = xcalloc((size_t)b.n * 4 + 1, 1), *o = key;
    for (int i = 0; i < b.n; i++) {
        uint32_t cp = b.v[i];
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | cp >> 6);
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | cp >> 12);
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | cp >> 18);
            *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    free(raw.v);
    free(a.v);
    free(b.v);
    return key;
}

/* ---- the submissions folder ------------------------------------------------------- */

/* Archives the grader does not read (unpack.h lists those it does). */
static const char *const unread_suffixes[] = {".7z", ".rar", ".gz", ".bz2", ".xz", 0};

static int unread_archive(const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; unread_suffixes[i]; i++) {
        size_t n = strlen(unread_suffixes[i]);
        if (len > n && strcasecmp(name + len - n, unread_suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

/* Why an entry of the submissions folder is not graded; NULL when it is.
 * *refused: the entry may be a student's, and the instructor must act. A
 * link is never followed (the grader runs as root: it could lead anywhere). */
static const char *why_skipped(const char *name, const char *path, const struct stat *grades,
                               int *refused)
{
    struct stat st;
    *refused = 0;
    if (name[0] == '.')
        return "hidden";
    if (lstat(path, &st) != 0)
        return "cannot be read";
    if (st.st_dev == grades->st_dev && st.st_ino == grades->st_ino)
        return "the folder the reports go to";
    if (S_ISLNK(st.st_mode)) {
        *refused = 1;
        return "a symbolic link, which the grader does not follow: put the folder or "
               "archive itself in its place";
    }
    if (S_ISDIR(st.st_mode))
        return NULL;
    if (S_ISREG(st.st_mode) && gr_archive_suffix(name))
        return NULL;
    if (unread_archive(name))
        return "an archive the grader does not read (it reads .zip and .tar, plain or "
               "compressed with gzip, bzip2 or xz)";
    return "not a folder or an archive";
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const submission *)a)->id, ((const submission *)b)->id);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const skipped_entry *)a)->name, ((const skipped_entry *)b)->name);
}

static void hash_submission(const batch *b, submission *s);

/* The submission's name in the submissions folder: "alice", "bob.zip". */
static const char *entry_name(const submission *s)
{
    const char *slash = strrchr(s->source, '/');
    return slash ? slash + 1 : s->source;
}

static void add_skipped(batch *b, const char *name, char *why, int refused, int *cap)
{
    b->skipped = grow(b->skipped, b->nskipped, cap, sizeof *b->skipped);
    b->skipped[b->nskipped++] = (skipped_entry){gr_asprintf("%s", name), why, refused};
}

/* The entry name (a folder, or an archive) becomes submission id, unless
 * it cannot be one (id_refusal): then it is refused. */
static void add_submission(batch *b, const char *name, char *source, int *cap, int *cap_skipped)
{
    size_t suffix = is_dir(source) ? 0 : gr_archive_suffix(name);
    char *id = gr_asprintf("%.*s", (int)(strlen(name) - suffix), name);
    char *why = id_refusal(id);
    if (why) {
        add_skipped(b, name, why, 1, cap_skipped);
        free(id);
        free(source);
        return;
    }
    b->subs = grow(b->subs, b->nsubs, cap, sizeof *b->subs);
    submission *s = &b->subs[b->nsubs++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->key = id_key(id);
    s->archive = suffix > 0;
    s->source = source;
    s->report = gr_asprintf("%s/%s.json", b->json_dir, s->id);
    s->points = xcalloc((size_t)b->lab->ntests, sizeof *s->points);
    hash_submission(b, s);
    s->passed = xcalloc((size_t)b->lab->ntests, sizeof *s->passed);
}

static void free_submission(submission *s)
{
    free(s->id);
    free(s->source);
    free(s->report);
    free(s->points);
    free(s->passed);
    free(s->error);
    free(s->key);
    free(s->hashes);
    free(s->name);
}

/* Two entries with one id (alice/ and alice.zip): the folder is graded, the
 * archive skipped. b->subs is sorted by id. */
static void skip_duplicates(batch *b, int *cap_skipped)
{
    int kept = 0;
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        if (kept > 0 && strcmp(b->subs[kept - 1].id, s->id) == 0) {
            submission *first = &b->subs[kept - 1];
            if (first->archive && !s->archive) {
                submission t = *first;
                *first = *s;
                *s = t;
            }
            const char *slash = strrchr(s->source, '/');
            add_skipped(b, slash ? slash + 1 : s->source,
                        gr_asprintf("the same student id as another entry, which is graded: "
                                    "remove one"), 0, cap_skipped);
            free_submission(s);
            continue;
        }
        if (kept != k)
            b->subs[kept] = *s;
        kept++;
    }
    b->nsubs = kept;
}

static int by_key(const void *a, const void *b)
{
    const submission *x = *(submission *const *)a, *y = *(submission *const *)b;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->id, y->id);
}

/* Two or more ids that are one student's (id_key): each is refused, an
 * error naming the others, never a second row that looks like a grade. */
static void refuse_collisions(batch *b)
{
    submission **order = xcalloc((size_t)b->nsubs, sizeof *order);
    for (int k = 0; k < b->nsubs; k++)
        order[k] = &b->subs[k];
    qsort(order, (size_t)b->nsubs, sizeof *order, by_key);
    for (int k = 0, end; k < b->nsubs; k = end) {
        for (end = k + 1; end < b->nsubs && strcmp(order[end]->key, order[k]->key) == 0;)
            end++;
        if (end - k < 2)
            continue;
        for (int i = k; i < end; i++) {
            char *others = gr_asprintf("%s", "");
            for (int m = k; m < end; m++) {
                if (m == i)
                    continue;
                char *more = gr_asprintf("%s%s'%s'", others, *others ? ", " : "", order[m]->id);
                free(others);
                others = more;
            }
            submission *s = order[i];
            s->refused = 1;
            s->status = SUB_ERROR;
            s->max_score = grader_lab_points(b->lab);
            s->error = gr_asprintf("not graded: the same student as %s once case and Unicode "
                                   "normalisation are set aside: rename or remove one",
                                   others);
            free(others);
        }
    }
    free(order);
}

/* Marks the submissions --only names; each must be one of them. */
static int mark_only(batch *b, lab_error *err)
{
    for (int i = 0; i < b->o->nonly; i++) {
        const char *id = b->o->only[i];
        int found = 0;
        for (int k = 0; k < b->nsubs; k++)
            if (strcmp(b->subs[k].id, id) == 0)
                found = b->subs[k].only = 1;
        if (!found) {
            char *shown = gr_clean_line(id);
            lab_errorf(err, "--only %s: no submission with that id in %s", shown, b->download);
            free(shown);
            return -1;
        }
    }
    return 0;
}

/* ---- the roster ---------------------------------------------------------------------
 *
 * --roster FILE: a CSV file (RFC 4180) of the class, a row per student: the
 * id, then the name; a first row whose first cell is "id" is a header. Each
 * id must be one the grader takes (id_refusal), and no two may be one
 * student's (id_key). A submission is matched to the roster by id_key; a
 * student with none gets a row "missing" (score 0); a submission whose id
 * the roster lacks is graded all the same, and listed.
 */

#define ROSTER_MAX_BYTES (16L << 20)

typedef struct roster_entry {
    char *id, *name, *key;
    int line;
    int matched;
} roster_entry;

/* The next cell at *p (RFC 4180: quoted or not), malloc'd; *end_of_row set
 * when a line end or the end of the text follows it. *line counts lines. */
static char *csv_cell(const char **p, int *end_of_row, int *line)
{
    const char *c = *p;
    char *out = xcalloc(strlen(c) + 1, 1), *o = out;
    if (*c == '"') {
        for (c++; *c; c++) {
            if (*c == '"' && c[1] == '"')
                *o++ = *c++;
            else if (*c == '"')
                break;
            else {
                *line += *c == '\n';
                *o++ = *c;
            }
        }
        if (*c == '"')
            c++;
    }
    while (*c && *c != ',' && *c != '\n' && *c != '\r')
        *o++ = *c++;
    *end_of_row = *c != ',';
    if (*c == ',')
        c++;
    else if (*c == '\r' && c[1] == '\n')
        c += 2;
    else if (*c)
        c++;
    *line += *end_of_row && c > *p && c[-1] == '\n';
    *p = c;
    return out;
}

static void free_roster(roster_entry *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].id);
        free(r[i].name);
        free(r[i].key);
    }
    free(r);
}

/* Reads the roster at path into *out (n entries). Returns n, or -1 with
 * err naming the file, the line and what is wrong. */
static int read_roster(const char *path, roster_entry **out, lab_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return lab_errorf(err, "--roster %s: cannot open: %s", path, strerror(errno));
    char *text = xcalloc(ROSTER_MAX_BYTES + 1, 1);
    size_t len = fread(text, 1, ROSTER_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || len > ROSTER_MAX_BYTES || memchr(text, '\0', len)) {
        free(text);
        return lab_errorf(err, "--roster %s: %s", path,
                          bad ? "cannot be read" : len > ROSTER_MAX_BYTES
                                                       ? "larger than 16 MiB"
                                                       : "holds a NUL byte: not a CSV file");
    }
    roster_entry *r = NULL;
    int n = 0, cap = 0, line = 1, rc = 0;
    const char *p = text;
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) /* a BOM, as spreadsheets write */
        p += 3;
    while (*p && rc == 0) {
        int row = line, end = 0;
        char *cells[2] = {NULL, NULL};
        for (int i = 0; !end; i++) {
            char *c = csv_cell(&p, &end, &line);
            if (i < 2)
                cells[i] = c;
            else
                free(c);
        }
        char *why = cells[0] && *cells[0] ? id_refusal(cells[0]) : NULL;
        if (!cells[0] || !*cells[0]) {
            /* an empty line */
        } else if (n == 0 && row == 1 && strcasecmp(cells[0], "id") == 0) {
            /* the header */
        } else if (why) {
            char *id = gr_clean_line(cells[0]);
            rc = lab_errorf(err, "--roster %s:%d: the id '%s': %s", path, row, id, why);
            free(id);
        } else {
            r = grow(r, n, &cap, sizeof *r);
            r[n] = (roster_entry){cells[0], cells[1] ? cells[1] : gr_asprintf("%s", ""),
                                  id_key(cells[0]), row, 0};
            for (int k = 0; k < n && rc == 0; k++)
                if (strcmp(r[k].key, r[n].key) == 0)
                    rc = lab_errorf(err, "--roster %s:%d: the same student as line %d, once "
                                         "case and Unicode normalisation are set aside",
                                    path, row, r[k].line);
            n++;
            cells[0] = cells[1] = NULL;
        }
        free(why);
        free(cells[0]);
        free(cells[1]);
    }
    free(text);
    if (rc != 0) {
        free_roster(r, n);
        return -1;
    }
    *out = r;
    return n;
}

/* Matches the submissions to the roster (before keep_shard); then, unless
 * this is a shard, adds a "missing" row for each student without one. */
static int apply_roster(batch *b, lab_error *err)
{
    for (int k = 0; k < b->nsubs; k++)
        b->subs[k].on_roster = 1;
    if (!b->o->roster)
        return 0;
    roster_entry *r = NULL;
    int n = read_roster(b->o->roster, &r, err);
    if (n < 0)
        return -1;
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        s->on_roster = 0;
        for (int i = 0; i < n && !s->on_roster; i++) {
            if (strcmp(r[i].key, s->key) != 0)
                continue;
            s->on_roster = r[i].matched = 1;
            s->name = gr_asprintf("%s", r[i].name);
        }
    }
    int cap = b->nsubs;
    for (int i = 0; i < n && b->o->shard_n == 0; i++) {
        if (r[i].matched)
            continue;
        b->subs = grow(b->subs, b->nsubs, &cap, sizeof *b->subs);
        submission *s = &b->subs[b->nsubs++];
        memset(s, 0, sizeof *s);
        s->id = gr_asprintf("%s", r[i].id);
        s->key = gr_asprintf("%s", r[i].key);
        s->name = gr_asprintf("%s", r[i].name);
        s->source = gr_asprintf("%s", "");
        s->report = gr_asprintf("%s", "");
        s->points = xcalloc((size_t)b->lab->ntests, sizeof *s->points);
        s->passed = xcalloc((size_t)b->lab->ntests, sizeof *s->passed);
        s->status = SUB_MISSING;
        s->max_score = grader_lab_points(b->lab);
        s->on_roster = 1;
    }
    free_roster(r, n);
    if (b->nsubs > 1)
        qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, by_id);
    return 0;
}

/* A shard keeps every shard_n-th submission (in id order) from the shard_k-th. */
static void keep_shard(batch *b)
{
    int n = b->o->shard_n, k = b->o->shard_k, kept = 0;
    if (n <= 0)
        return;
    for (int i = 0; i < b->nsubs; i++) {
        if (i % n == k - 1)
            b->subs[kept++] = b->subs[i];
        else
            free_submission(&b->subs[i]);
    }
    b->nsubs = kept;
}

/* Sorts b->dir's entries into submissions and skipped ones. */
static int list_submissions(batch *b, lab_error *err)
{
    struct stat grades;
    int cap_subs = 0, cap_skipped = 0;
    if (stat(b->json_dir, &grades) != 0)
        return lab_errorf(err, "%s: %s", b->json_dir, strerror(errno));
    DIR *d = opendir(b->dir);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", b->dir, strerror(errno));
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e)
            break;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = gr_asprintf("%s/%s", b->dir, e->d_name);
        int refused;
        const char *why = why_skipped(e->d_name, path, &grades, &refused);
        if (!why) {
            add_submission(b, e->d_name, path, &cap_subs, &cap_skipped);
            continue;
        }
        free(path);
        add_skipped(b, e->d_name, gr_asprintf("%s", why), refused, &cap_skipped);
    }
    int read_errno = errno;
    closedir(d);
    if (read_errno)
        return lab_errorf(err, "%s: cannot read: %s", b->dir, strerror(read_errno));
    for (int i = 0; i < b->import.nskipped; i++)
        add_skipped(b, b->import.skipped[i], gr_asprintf("%s", b->import.why[i]),
                    b->import.refused[i], &cap_skipped);
    /* The download's names, where it has them (a roster's win: apply_roster). */
    for (int k = 0; k < b->nsubs; k++)
        for (int i = 0; i < b->import.n; i++)
            if (strcmp(b->subs[k].id, b->import.ids[i]) == 0 && b->import.names[i][0])
                b->subs[k].import_name = b->import.names[i];
    if (b->nsubs > 1)
        qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, by_id);
    skip_duplicates(b, &cap_skipped);
    refuse_collisions(b);
    if (mark_only(b, err) != 0)
        return -1;
    if (b->o->roster && b->o->shard_n > 0) {
        /* The missing rows are the merge's: a shard only reads the roster. */
        roster_entry *r = NULL;
        int n = read_roster(b->o->roster, &r, err);
        if (n < 0)
            return -1;
        free_roster(r, n);
    }
    keep_shard(b);
    if (apply_roster(b, err) != 0)
        return -1;
    if (b->nskipped > 1)
        qsort(b->skipped, (size_t)b->nskipped, sizeof *b->skipped, by_name);
    return 0;
}

/* "<dir>.grades" beside dir; for "." and "..", beside the folder they name. */
static char *default_json_dir(const char *dir, lab_error *err)
{
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (*base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0)
        return gr_asprintf("%s.grades", dir);
    char *real = realpath(dir, NULL), *json_dir = NULL;
    if (!real)
        lab_errorf(err, "%s: %s", dir, strerror(errno));
    else if (strcmp(real, "/") == 0)
        lab_errorf(err, "no folder beside / for the reports: name one with --json-dir");
    else
        json_dir = gr_asprintf("%s.grades", real);
    free(real);
    return json_dir;
}

/*
 * Makes work look like the build folder to gr_grade: a link to each of the
 * build folder's entries (the suites, libfp8lab.a, ...) but grade/, and a
 * grade/ of its own, where gr_grade makes the pristine tree.
 */
static int make_work(const char *build, const char *work, lab_error *err)
{
    if (mkdir(work, 0755) != 0)
        return lab_errorf(err, "%s: cannot create: %s", work, strerror(errno));
    DIR *d = opendir(build);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", build, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, "grade") == 0)
            continue;
        char *target = gr_asprintf("%s/%s", build, e->d_name);
        char *link = gr_asprintf("%s/%s", work, e->d_name);
        if (symlink(target, link) != 0)
            rc = lab_errorf(err, "%s: cannot link to %s: %s", link, target, strerror(errno));
        free(target);
        free(link);
    }
    closedir(d);
    char *grade = gr_asprintf("%s/grade", work);
    if (rc == 0 && mkdir(grade, 0755) != 0)
        rc = lab_errorf(err, "%s: cannot create: %s", grade, strerror(errno));
    free(grade);
    return rc;
}

/*
 * Removes the work folders of batches that ended without removing their own
 * (killed, the machine stopped): each running batch holds a lock on
 * <work>/.lock, so a folder whose lock can be taken is no one's. A folder
 * without a lock file is left alone (a batch that has just made it).
 * Returns how many it removed.
 */
static int remove_stale_work(const char *grade)
{
    DIR *d = opendir(grade);
    struct dirent *e;
    int removed = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "batch.", 6) != 0)
            continue;
        char *dir = gr_asprintf("%s/%s", grade, e->d_name), *lock = gr_asprintf("%s/.lock", dir);
        int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            gr_remove_tree(dir);
            removed++;
        }
        if (fd >= 0)
            close(fd);
        free(dir);
        free(lock);
    }
    if (d)
        closedir(d);
    return removed;
}

/* Makes b->work, this run's folder of work folders, and takes its lock. */
static int make_batch_work(batch *b, lab_error *err)
{
    char *grade = gr_asprintf("%s/grade", b->build);
    int made = mkdir(grade, 0755) == 0 || errno == EEXIST;
    int stale = made ? remove_stale_work(grade) : 0;
    if (stale > 0)
        fprintf(stderr, "grader: removed %d work folder%s that an interrupted batch left in "
                        "%s\n", stale, stale == 1 ? "" : "s", grade);
    b->work = gr_asprintf("%s/batch.XXXXXX", grade);
    free(grade);
    if (!made || !mkdtemp(b->work))
        return lab_errorf(err, "%s: cannot create: %s", b->work, strerror(errno));
    /* mkdtemp makes it 0700; the sandbox's user must reach the trees below. */
    int rc = chmod(b->work, 0755) != 0
                 ? lab_errorf(err, "%s: cannot open it up: %s", b->work, strerror(errno))
                 : 0;
    char *lock = gr_asprintf("%s/.lock", b->work);
    if (rc == 0)
        b->lock = open(lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (rc == 0 && (b->lock < 0 || flock(b->lock, LOCK_EX | LOCK_NB) != 0))
        rc = lab_errorf(err, "%s: cannot lock: %s", lock, strerror(errno));
    free(lock);
    if (rc != 0)
        gr_remove_tree(b->work);
    return rc;
}

/* ---- reports ------------------------------------------------------------------------ */

static json_t *test_named(json_t *tests, const char *name)
{
    size_t i;
    json_t *t;
    json_array_foreach(tests, i, t) {
        json_t *n = json_object_get(t, "name");
        if (json_is_string(n) && strcmp(json_string_value(n), name) == 0)
            return t;
    }
    return NULL;
}

/*
 * Reads the json report at path into s: its score, status and every test's
 * points. Returns 0, or -1 with err set when it cannot be read, is not a
 * report, or is one for another lab or rubric (it lacks one of the tests).
 */
static int read_report(const grader_lab *lab, const char *path, submission *s, lab_error *err)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root)
        return lab_errorf(err, "%s: not JSON (line %d: %s)", path, jerr.line, jerr.text);
    json_t *name = json_object_get(root, "lab"), *score = json_object_get(root, "score");
    json_t *max = json_object_get(root, "max_score"), *ok = json_object_get(root, "build_ok");
    json_t *tests = json_object_get(root, "tests"), *error = json_object_get(root, "error");
    int rc = 0, skipped = 0;
    if (!json_is_string(name) || !json_is_integer(score) || !json_is_integer(max) ||
        !json_is_boolean(ok) || !json_is_array(tests)) {
        rc = lab_errorf(err, "%s: not a grader report (no lab, score, max_score, build_ok or "
                             "tests)", path);
        goto done;
    }
    if (strcmp(json_string_value(name), lab->name) != 0) {
        rc = lab_errorf(err, "%s: a report on %s, not %s", path, json_string_value(name),
                        lab->name);
        goto done;
    }
    for (int i = 0; i < lab->ntests; i++) {
        json_t *t = test_named(tests, lab->tests[i].name);
        json_t *points = json_object_get(t, "points"), *status = json_object_get(t, "status");
        if (!json_is_integer(points) || !json_is_string(status)) {
            rc = lab_errorf(err, "%s: no result for %s's test %s (graded against another "
                                 "rubric?)", path, lab->name, lab->tests[i].name);
            goto done;
        }
        s->points[i] = (int)json_integer_value(points);
        int skip = strcmp(json_string_value(status), "skipped") == 0;
        s->passed[i] = (signed char)(skip ? -1 : strcmp(json_string_value(status), "pass") == 0);
        skipped += skip;
    }
    s->skipped = skipped;
    s->hidden = json_is_true(json_object_get(root, "hidden_inputs"));
    s->score = (int)json_integer_value(score);
    s->max_score = (int)json_integer_value(max);
    s->status = json_is_string(error) ? SUB_ERROR
                : json_is_true(ok)    ? SUB_GRADED
                                      : SUB_BUILD_FAILED;
    free(s->error);
    s->error = json_is_string(error) ? gr_asprintf("%s", json_string_value(error)) : NULL;
done:
    json_decref(root);
    return rc;
}

/* ---- a folder submission ---------------------------------------------------------------
 *
 * A folder is searched as gr_unpack searches an archive: at any depth, the
 * one regular file of each wanted name, macOS's __MACOSX/ and ._ files
 * skipped, never following a link; a wanted name that is a link or not a
 * regular file, two files of the name, one over GR_UNPACK_MAX_FILE, or a
 * folder past FOLDER_MAX_DEPTH or GR_UNPACK_MAX_ENTRIES refuse the folder.
 */

#define FOLDER_MAX_DEPTH 32
#define MAX_WANTED 16

static int wanted_index(const char *const *wanted, const char *name)
{
    for (int i = 0; wanted[i]; i++)
        if (strcmp(wanted[i], name) == 0)
            return i;
    return -1;
}

/* Searches the folder open at fd (rel its path in the submission, "" at the
 * top), taking fd; found[i] gets wanted[i]'s path. */
static int search_folder(int fd, const char *rel, int depth, const char *const *wanted,
                         char **found, int *entries, lab_error *err)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return lab_errorf(err, "%s: cannot read: %s", *rel ? rel : ".", strerror(errno));
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strncmp(name, "._", 2) == 0 ||
            strcmp(name, "__MACOSX") == 0)
            continue;
        if (++*entries > GR_UNPACK_MAX_ENTRIES) {
            rc = lab_errorf(err, "more than %d entries", GR_UNPACK_MAX_ENTRIES);
            break;
        }
        char *path = *rel ? gr_asprintf("%s/%s", rel, name) : gr_asprintf("%s", name);
        struct stat st;
        int w = wanted_index(wanted, name);
        if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = lab_errorf(err, "%s: cannot read: %s", path, strerror(errno));
        else if (w >= 0 && S_ISLNK(st.st_mode))
            rc = lab_errorf(err, "%s is a symbolic link: put the file itself in its place", path);
        else if (w >= 0 && !S_ISREG(st.st_mode))
            rc = lab_errorf(err, "%s is not a regular file", path);
        else if (w >= 0 && found[w])
            rc = lab_errorf(err, "two files named %s, %s and %s: keep one", name, found[w], path);
        else if (w >= 0 && st.st_size > GR_UNPACK_MAX_FILE)
            rc = lab_errorf(err, "%s is larger than %ld KiB: not a source file", path,
                            GR_UNPACK_MAX_FILE >> 10);
        else if (w >= 0) {
            found[w] = path;
            path = NULL;
        } else if (S_ISDIR(st.st_mode) && depth >= FOLDER_MAX_DEPTH) {
            rc = lab_errorf(err, "%s: folders nested more than %d deep", path, FOLDER_MAX_DEPTH);
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = sub < 0 ? lab_errorf(err, "%s: cannot open: %s", path, strerror(errno))
                         : search_folder(sub, path, depth + 1, wanted, found, entries, err);
        }
        free(path);
    }
    closedir(d);
    return rc;
}

/* found[i]: the path in folder of wanted[i], or NULL where there is none;
 * each to be freed. Returns 0, or -1 with the refusal in err. */
static int find_in_folder(const char *folder, const char *const *wanted, char **found,
                          lab_error *err)
{
    int entries = 0;
    for (int i = 0; wanted[i]; i++)
        found[i] = NULL;
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return lab_errorf(err, "%s: cannot open: %s", folder, strerror(errno));
    return search_folder(fd, "", 0, wanted, found, &entries, err);
}

/* Copies the regular file at folder/rel (never through a link at its end)
 * to dest/name. */
static int copy_found(const char *folder, const char *rel, const char *dest, const char *name,
                      lab_error *err)
{
    char *from = gr_asprintf("%s/%s", folder, rel), *to = gr_asprintf("%s/%s", dest, name);
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), out = -1, rc = 0;
    struct stat st;
    if (in < 0 || fstat(in, &st) != 0 || !S_ISREG(st.st_mode))
        rc = lab_errorf(err, "%s: cannot read it as a file", rel);
    else if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
        rc = lab_errorf(err, "%s: cannot create: %s", to, strerror(errno));
    char buf[65536];
    ssize_t n = 0;
    long total = 0;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0 && total <= GR_UNPACK_MAX_FILE) {
        total += n;
        if (write(out, buf, (size_t)n) != n)
            rc = lab_errorf(err, "%s: cannot write: %s", to, strerror(errno));
    }
    if (rc == 0 && (n < 0 || total > GR_UNPACK_MAX_FILE))
        rc = lab_errorf(err, "%s: cannot read it whole", rel);
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot write: %s", to, strerror(errno));
    free(from);
    free(to);
    return rc;
}

/* Writes dest/NAME for each wanted NAME found in folder (find_in_folder). */
static int take_from_folder(const char *folder, const char *dest, const char *const *wanted,
                            lab_error *err)
{
    char *found[MAX_WANTED + 1];
    int n = 0;
    while (wanted[n])
        n++;
    if (n > MAX_WANTED)
        return lab_errorf(err, "more than %d student files", MAX_WANTED);
    int rc = find_in_folder(folder, wanted, found, err);
    for (int i = 0; i < n; i++) {
        if (rc == 0 && found[i])
            rc = copy_found(folder, found[i], dest, wanted[i], err);
        free(found[i]);
    }
    return rc;
}

/* ---- what a report was made from ------------------------------------------------------
 *
 * A report records the sha256 of what it graded (each student file of a
 * folder; the archive, for an archive), the grader's version (its commit,
 * for people) with the sha256 of what grades the lab (grader_fingerprint),
 * and whether hidden inputs were drawn. A resume takes a report only when
 * the hashes and hidden inputs match this run; otherwise the submission is
 * graded again (report_stale).
 */

#define HASH_MAX_BYTES (256L << 20) /* a file past this is not read: it cannot be graded */

/* The sha256 of the regular file at path, in hex; "" when there is none
 * there (missing, a link, not a regular file, too large). The file is the
 * student's: opened without following a link or blocking on a FIFO. */
static void hash_file(const char *path, char hex[65])
{
    hex[0] = '\0';
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > HASH_MAX_BYTES) {
        close(fd);
        return;
    }
    struct sha256_ctx ctx;
    unsigned char buf[65536], digest[SHA256_DIGEST_SIZE];
    ssize_t n;
    sha256_init(&ctx);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&ctx, (size_t)n, buf);
    close(fd);
    if (n < 0)
        return;
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* s->hashes: each student file of a folder, or the archive itself. */
static void hash_submission(const batch *b, submission *s)
{
    const char *const *files = b->lab->student_files;
    int n = 0;
    while (files[n])
        n++;
    if (s->archive) {
        const char *slash = strrchr(s->source, '/');
        s->nhashes = 1;
        s->hashes = xcalloc(1, sizeof *s->hashes);
        s->hashes[0].name = slash ? slash + 1 : s->source;
        hash_file(s->source, s->hashes[0].sha256);
        return;
    }
    s->nhashes = n;
    s->hashes = xcalloc((size_t)n, sizeof *s->hashes);
    char *found[MAX_WANTED + 1] = {0};
    lab_error err;
    int refused = n > MAX_WANTED || find_in_folder(s->source, files, found, &err) != 0;
    for (int i = 0; i < n; i++) {
        s->hashes[i].name = files[i];
        if (!refused && found[i]) {
            char *path = gr_asprintf("%s/%s", s->source, found[i]);
            hash_file(path, s->hashes[i].sha256);
            free(path);
        }
        if (i <= MAX_WANTED)
            free(found[i]);
    }
}

/* The grader's version: the course's commit (git), with "+changes" when
 * its files differ from it; GRADER_VERSION when the build set one;
 * "unknown" where neither can be had (a copy without .git). */
static char *grader_version(const char *root)
{
#ifdef GRADER_VERSION
    (void)root;
    return gr_asprintf("%s", GRADER_VERSION);
#else
    char *cmd = gr_asprintf("git -C '%s' rev-parse HEAD 2>/dev/null && "
                            "{ git -C '%s' diff --quiet HEAD -- grading common data 2>/dev/null "
                            "|| echo +changes; }", root, root);
    char line[128] = "", more[32] = "";
    FILE *p = strchr(root, '\'') ? NULL : popen(cmd, "r");
    free(cmd);
    if (p) {
        if (!fgets(line, sizeof line, p))
            line[0] = '\0';
        if (!fgets(more, sizeof more, p))
            more[0] = '\0';
        pclose(p);
    }
    line[strcspn(line, "\n")] = '\0';
    more[strcspn(more, "\n")] = '\0';
    if (strlen(line) != 40)
        return gr_asprintf("unknown");
    return gr_asprintf("%s%s", line, more);
#endif
}

/* The sha256 of what decides a grade for the lab: the grader's program,
 * the lab's suite and reference objects and data/MANIFEST (so the goldens),
 * in hex. Unlike the commit, it stays when the course changes elsewhere. */
static char *grader_fingerprint(const batch *b)
{
    char *exe = realpath("/proc/self/exe", NULL);
    char *paths[] = {gr_asprintf("%s", exe ? exe : "/proc/self/exe"),
                     gr_asprintf("%s/grading/%s_suite.o", b->build, b->lab->name),
                     gr_asprintf("%s/grading/%s_reference.o", b->build, b->lab->name),
                     gr_asprintf("%s/data/MANIFEST", b->o->root)};
    struct sha256_ctx ctx;
    unsigned char digest[SHA256_DIGEST_SIZE];
    char hex[65];
    sha256_init(&ctx);
    for (int i = 0; i < GRADER_COUNT(paths); i++) {
        char one[65];
        hash_file(paths[i], one); /* "" for a file that is not there (no lab5 reference) */
        sha256_update(&ctx, sizeof one, (const uint8_t *)one);
        free(paths[i]);
    }
    free(exe);
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return gr_asprintf("%s", hex);
}

/* Why s's report at its path does not hold for this run, malloc'd; NULL when
 * it does. A merge has no seed of its own unless given one: then hidden
 * inputs are not compared. */
static char *report_stale(const batch *b, const submission *s)
{
    json_t *root = json_load_file(s->report, 0, NULL);
    json_t *files = json_object_get(root, "sha256"), *grader = json_object_get(root, "grader_sha256");
    json_t *hidden = json_object_get(root, "hidden_inputs");
    int want_hidden = b->o->seed != NULL;
    char *why = NULL;
    if (!json_is_object(files) || !json_is_string(grader) || !json_is_boolean(hidden))
        why = gr_asprintf("its report does not say what it graded (an older grader's)");
    for (int i = 0; !why && i < s->nhashes; i++) {
        json_t *h = json_object_get(files, s->hashes[i].name);
        const char *was = json_is_string(h) ? json_string_value(h) : "";
        if (strcmp(was, s->hashes[i].sha256) != 0)
            why = gr_asprintf("%s changed since its report", s->hashes[i].name);
    }
    if (!why && strcmp(json_string_value(grader), b->fingerprint) != 0)
        why = gr_asprintf("the grader, the lab's tests or its goldens changed since its report");
    if (!why && (!b->o->merge || want_hidden) && json_is_true(hidden) != want_hidden)
        why = gr_asprintf(want_hidden ? "its report was graded without hidden inputs"
                                      : "its report drew hidden inputs, and this run has "
                                        "no seed");
    json_decref(root);
    return why;
}

/* Writes r as a json report to path, whole or not at all. */
static int save_as(const gr_report *r, const char *path, gr_format format, int verbose,
                   lab_error *err)
{
    atomic_file af;
    if (atomic_file_open(&af, path, err) != 0)
        return -1;
    if (gr_write_report(af.f, r, format, verbose, err) != 0) {
        atomic_file_abort(&af);
        return -1;
    }
    return atomic_file_commit(&af, err);
}

/* <json_dir>/<id>.txt: the scorecard, for the student. */
static char *scorecard_path(const batch *b, const submission *s)
{
    return gr_asprintf("%s/%s.txt", b->json_dir, s->id);
}

/* s's scorecard (<id>.txt), then its json report: the json last, since a
 * resume takes a submission whose json is there as done. */
static int save_report(const batch *b, const submission *s, const gr_report *r, lab_error *err)
{
    char *text = scorecard_path(b, s);
    int rc = save_as(r, text, GR_FORMAT_TEXT, 0, err);
    free(text);
    return rc == 0 ? save_as(r, s->report, GR_FORMAT_JSON, b->o->verbose, err) : -1;
}

/*
 * The report for a submission that was not graded: the json format's own
 * (gr_write_report), with score 0 and every test "error" saying what
 * happened, and one field more, "error", that says it again: what tells a
 * reader that this is not a grade.
 */
static int save_error_report(const batch *b, const submission *s, const char *what,
                             lab_error *err)
{
    const grader_lab *lab = b->lab;
    gr_result *results = xcalloc((size_t)lab->ntests, sizeof *results);
    char *message = gr_asprintf("not graded: %s", what), *text = NULL;
    size_t len = 0;
    gr_report r = {0};
    r.lab = lab;
    r.source = entry_name(s);
    r.student = s->id;
    r.grader = b->version;
    r.grader_sha256 = b->fingerprint;
    r.files = s->hashes;
    r.nfiles = s->nhashes;
    r.hidden_inputs = b->o->seed != NULL;
    r.build_ok = 1; /* unknown; "error" says the report is not a grade */
    r.results = results;
    r.nresults = lab->ntests;
    r.max_score = grader_lab_points(lab);
    r.seconds = s->seconds;
    for (int i = 0; i < lab->ntests; i++)
        results[i] = (gr_result){&lab->tests[i], GR_ERROR, 0, message, NULL, 0};

    /* gr_write_report writes the json format; jansson adds "error" to it. */
    FILE *mem = open_memstream(&text, &len);
    int written = mem && gr_write_report(mem, &r, GR_FORMAT_JSON, 0, err) == 0;
    if (mem && fclose(mem) != 0)
        written = 0;
    json_t *root = written ? json_loadb(text, len, 0, NULL) : NULL;
    json_t *why = json_string(what);
    if (!why) { /* not UTF-8: a student id can be any bytes */
        char *ascii = ascii_text(what);
        why = json_string(ascii);
        free(ascii);
    }
    char *scorecard = scorecard_path(b, s);
    int rc = save_as(&r, scorecard, GR_FORMAT_TEXT, 0, err);
    free(scorecard);
    if (rc != 0) {
        json_decref(why);
    } else if (json_object_set_new(root, "error", why) != 0) { /* NULL root: why is released */
        rc = lab_errorf(err, "%s: cannot build the error report (out of memory?)", s->report);
    } else {
        atomic_file af;
        rc = atomic_file_open(&af, s->report, err);
        if (rc == 0) {
            json_dumpf(root, af.f, JSON_INDENT(2));
            fputc('\n', af.f);
            rc = atomic_file_commit(&af, err);
        }
    }
    json_decref(root);
    free(text);
    free(message);
    free(results);
    return rc;
}

/* Removes the temporary files (atomic_file's "<id>.json.tmp.XXXXXX" and
 * "<id>.txt.tmp.XXXXXX") that a child killed while writing its report left. */
static void remove_temporaries(const batch *b, const submission *s)
{
    char *prefix = gr_asprintf("%s.json.tmp.", s->id), *text = gr_asprintf("%s.txt.tmp.", s->id);
    size_t n = strlen(prefix), nt = strlen(text);
    DIR *d = opendir(b->json_dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int ours = (strncmp(e->d_name, prefix, n) == 0 && strlen(e->d_name + n) == 6) ||
                   (strncmp(e->d_name, text, nt) == 0 && strlen(e->d_name + nt) == 6);
        if (!ours)
            continue;
        char *path = gr_asprintf("%s/%s", b->json_dir, e->d_name);
        unlink(path);
        free(path);
    }
    if (d)
        closedir(d);
    free(prefix);
    free(text);
}

/* ---- progress ------------------------------------------------------------------------- */

/* "[3/100] alice 87/100 (4.2 s)", on standard error. */
static void progress(batch *b, const submission *s)
{
    char *id = gr_clean_line(s->id);
    b->done++;
    fprintf(stderr, "[%d/%d] %s ", b->done, b->nsubs, id);
    if (s->status == SUB_MISSING) {
        fputs("missing: on the roster, no submission\n", stderr);
        free(id);
        return;
    }
    if (s->status == SUB_ERROR) {
        char *why = gr_clean_line(s->error ? s->error : "");
        fprintf(stderr, "error: %s", why);
        free(why);
    } else {
        fprintf(stderr, "%d/%d%s", s->score, s->max_score,
                s->status == SUB_BUILD_FAILED ? ", did not build" : "");
    }
    if (s->resumed)
        fputs(" (resumed)\n", stderr);
    else
        fprintf(stderr, " (%.1f s)\n", s->seconds);
    free(id);
}

/* Marks s as not graded, for the reason what, and writes its error report. */
static void record_error(const batch *b, submission *s, const char *what)
{
    lab_error err = {{0}};
    s->status = SUB_ERROR;
    s->score = 0;
    s->max_score = grader_lab_points(b->lab);
    memset(s->points, 0, (size_t)b->lab->ntests * sizeof *s->points);
    memset(s->passed, 0, (size_t)b->lab->ntests * sizeof *s->passed);
    free(s->error);
    if (save_error_report(b, s, what, &err) != 0)
        s->error = gr_asprintf("%s; and its error report could not be written: %s", what, err.msg);
    else
        s->error = gr_asprintf("%s", what);
}

/*
 * Takes s's report from an earlier run, unless force, or there is none, or
 * it cannot be used (then s is graded again, and this says why). Returns 1
 * when it was taken.
 */
static int try_resume(batch *b, submission *s)
{
    lab_error err;
    if (b->o->force || s->only || access(s->report, F_OK) != 0)
        return 0;
    if (read_report(b->lab, s->report, s, &err) != 0) {
        char *why = gr_clean_line(err.msg);
        fprintf(stderr, "grader: %s; grading it again\n", why);
        free(why);
        return 0;
    }
    char *stale = report_stale(b, s);
    if (stale) {
        char *id = gr_clean_line(s->id), *why = gr_clean_line(stale);
        fprintf(stderr, "grader: %s: %s; %s\n", id, why,
                b->o->merge ? "a merge cannot grade: run its shard again" : "grading it again");
        free(id);
        free(why);
        if (b->o->merge) {
            s->status = SUB_ERROR;
            s->score = 0;
            free(s->error);
            s->error = gr_asprintf("its report is stale: %s (run its shard again)", stale);
            free(stale);
            progress(b, s);
            return 1;
        }
        s->regraded = 1;
        free(stale);
        return 0;
    }
    s->resumed = 1;
    progress(b, s);
    return 1;
}

/* A merge found no report for s: an error, recorded in the gradebook only
 * (its shard may still be running, and will write the report). */
static void no_report(batch *b, submission *s)
{
    s->status = SUB_ERROR;
    s->score = 0;
    s->max_score = grader_lab_points(b->lab);
    s->error = gr_asprintf("no report in %s: its shard has not run, or not finished",
                           b->json_dir);
    progress(b, s);
}

/* ---- the children ----------------------------------------------------------------------- */

/*
 * In the child: grades s in the work folder, where the student files are
 * first taken from its archive or folder, and writes its report. Exits 0
 * (full marks) or 1 when the report is written; 2 when not, 4 when the
 * archive is refused and 5 when the folder is, with what went wrong written
 * to fd.
 */
static void grade_child(const batch *b, const submission *s, const char *work, int fd,
                        int slot)
{
    gr_options o = {0};
    gr_report r;
    lab_error err;
    gr_jobres_enter(slot);
    o.lab = b->lab;
    o.root = b->o->root;
    o.build = work;
    o.source_dir = s->source;
    o.label = entry_name(s); /* the student reads it: not the instructor's paths */
    o.show = b->o->show;
    o.seed = b->o->seed;
    char *unpacked = gr_asprintf("%s/submission", work);
    int bad = mkdir(unpacked, 0755) != 0
                  ? lab_errorf(&err, "%s: cannot create: %s", unpacked, strerror(errno))
              : s->archive ? gr_unpack_isolated(s->source, unpacked, b->lab->student_files, &err)
                           : take_from_folder(s->source, unpacked, b->lab->student_files, &err);
    if (bad) {
        if (write(fd, err.msg, strlen(err.msg)) < 0)
            _exit(3);
        _exit(s->archive ? 4 : 5);
    }
    o.source_dir = unpacked;
    int rc = gr_grade(&o, &r, &err);
    r.student = s->id;
    r.grader = b->version;
    r.grader_sha256 = b->fingerprint;
    r.files = s->hashes;
    r.nfiles = s->nhashes;
    if (rc == 0)
        rc = save_report(b, s, &r, &err);
    int full = r.score == r.max_score;
    gr_report_free(&r);
    free(unpacked);
    if (rc != 0) {
        if (write(fd, err.msg, strlen(err.msg)) < 0)
            _exit(3);
        _exit(2);
    }
    _exit(full ? 0 : 1);
}

/* Starts grading submission sub in the free slot j. On failure s is marked
 * as an error at once. */
static void start_job(batch *b, job *jobs, job *j, int sub)
{
    submission *s = &b->subs[sub];
    lab_error err;
    int fds[2] = {-1, -1};
    j->sub = sub;
    j->start = now_s();
    j->stopped = 0;
    j->work = gr_asprintf("%s/%d", b->work, sub);
    int rc = make_work(b->build, j->work, &err);
    if (rc == 0 && pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        rc = lab_errorf(&err, "cannot create a pipe: %s", strerror(errno));
    pid_t pid = -1;
    if (rc == 0) {
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            close(fds[0]);
            for (int k = 0; k < b->o->jobs; k++)
                if (jobs[k].pid > 0)
                    close(jobs[k].fd);
            grade_child(b, s, j->work, fds[1], (int)(j - jobs));
        }
        close(fds[1]);
        if (pid < 0) {
            rc = lab_errorf(&err, "cannot start a process: %s", strerror(errno));
            close(fds[0]);
        }
    }
    if (rc == 0) {
        j->pid = pid;
        j->fd = fds[0];
        return;
    }
    char *what = gr_asprintf("the grader could not start on it: %s", err.msg);
    s->seconds = now_s() - j->start;
    record_error(b, s, what);
    progress(b, s);
    gr_remove_tree(j->work);
    free(j->work);
    j->work = NULL;
    free(what);
}

/* The parent of process pid (a /proc entry's name), or -1. */
static pid_t parent_of(const char *pid)
{
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* "pid (command) state ppid ...": any command */
    int ppid;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

static job *job_of(job *jobs, int njobs, pid_t pid)
{
    for (int k = 0; k < njobs; k++)
        if (jobs[k].pid == pid)
            return &jobs[k];
    return NULL;
}

/* Kills, each with its process group, the processes the children left: as
 * the subreaper, the parent has inherited them. A stray's own children
 * (Check puts each test in a group of its own) come to the parent when it
 * dies, so this looks again until it finds none. */
static void kill_strays(job *jobs, int njobs)
{
    pid_t self = getpid();
    for (int pass = 0, found = 1; found && pass < 100; pass++) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        found = 0;
        while (d && (e = readdir(d)) != NULL) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (*end != '\0' || pid <= 0 || parent_of(e->d_name) != self ||
                job_of(jobs, njobs, (pid_t)pid))
                continue;
            pid_t group = getpgid((pid_t)pid);
            if (group > 0 && group != getpgrp())
                kill(-group, SIGKILL);
            kill((pid_t)pid, SIGKILL);
            waitpid((pid_t)pid, NULL, 0);
            found = 1;
        }
        if (d)
            closedir(d);
    }
}

/* Collects the child in slot j, which ended with wait status `status`. */
static void finish_job(batch *b, job *jobs, job *j, int status)
{
    submission *s = &b->subs[j->sub];
    char msg[sizeof(lab_error)];
    lab_error err;
    char *what = NULL;

    ssize_t n = read(j->fd, msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(j->fd);
    s->seconds = now_s() - j->start;
    j->pid = 0;
    kill_strays(jobs, b->o->jobs);
    gr_jobres_release((int)(j - jobs));
    gr_remove_tree(j->work);
    free(j->work);
    j->work = NULL;

    if (j->stopped)
        what = gr_asprintf("stopped after %.0f s, the cap on one submission (--timeout)",
                         b->cap_s);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 4)
        what = gr_asprintf("its archive was refused: %s", msg);
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 5)
        what = gr_asprintf("its folder was refused: %s", msg);
    else if (WIFSIGNALED(status))
        what = gr_asprintf("the grader's process for it was killed by signal %d (%s)",
                         WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
        what = msg[0] ? gr_asprintf("the grader failed on it: %s", msg)
                      : gr_asprintf("the grader's process for it exited with status %d",
                                  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else if (read_report(b->lab, s->report, s, &err) != 0)
        what = gr_asprintf("its report could not be read back: %s", err.msg);
    if (what) {
        remove_temporaries(b, s);
        record_error(b, s, what);
        free(what);
    } else {
        b->graded++;
        b->regraded += s->regraded;
    }
    progress(b, s);
}

/* Grades or resumes every submission, up to o->jobs children at once. */
static void grade_all(batch *b, job *jobs)
{
    int njobs = b->o->jobs, running = 0, next = 0;
    while (next < b->nsubs || running > 0) {
        while (next < b->nsubs && running < njobs) {
            int sub = next++;
            if (b->subs[sub].refused || b->subs[sub].status == SUB_MISSING) {
                progress(b, &b->subs[sub]);
                continue;
            }
            if (try_resume(b, &b->subs[sub]))
                continue;
            if (b->o->merge) {
                no_report(b, &b->subs[sub]);
                continue;
            }
            job *j = job_of(jobs, njobs, 0);
            start_job(b, jobs, j, sub);
            running += j->pid > 0;
        }
        if (running == 0)
            continue;
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) { /* one of ours, or a stray a child left (kill_strays) */
            job *j = job_of(jobs, njobs, pid);
            if (j) {
                finish_job(b, jobs, j, status);
                running--;
            }
            continue;
        }
        if (pid < 0 && errno == ECHILD) { /* cannot happen while running > 0 */
            for (int k = 0; k < njobs; k++)
                if (jobs[k].pid > 0)
                    finish_job(b, jobs, &jobs[k], W_EXITCODE(127, 0));
            running = 0;
            continue;
        }
        double now = now_s();
        for (int k = 0; k < njobs; k++) {
            if (jobs[k].pid > 0 && !jobs[k].stopped && now - jobs[k].start > b->cap_s) {
                kill(jobs[k].pid, SIGKILL);
                jobs[k].stopped = 1;
            }
        }
        struct timespec pause = {0, POLL_NS};
        nanosleep(&pause, NULL);
    }
}

/* ---- the gradebook, the histogram, the summary ------------------------------------------ */

/* student,score,max_score,status,<test>...,hidden_inputs: one row per
 * submission, the points each test earned, and whether its report drew
 * hidden inputs (yes or no); CRLF line ends, as RFC 4180 has them. */
static int write_gradebook(const batch *b, lab_error *err)
{
    const grader_lab *lab = b->lab;
    atomic_file af;
    if (atomic_file_open(&af, b->csv, err) != 0)
        return -1;
    fputs("student,score,max_score,status", af.f);
    for (int i = 0; i < lab->ntests; i++) {
        fputc(',', af.f);
        gr_write_csv_cell(af.f, lab->tests[i].name);
    }
    fputs(",hidden_inputs\r\n", af.f);
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        gr_write_csv_cell(af.f, s->id);
        fprintf(af.f, ",%d,%d,%s", s->score, s->max_score, status_names[s->status]);
        for (int i = 0; i < lab->ntests; i++)
            fprintf(af.f, ",%d", s->points[i]);
        fputs(s->hidden ? ",yes\r\n" : ",no\r\n", af.f);
    }
    return atomic_file_commit(&af, err);
}

/* The LMS's file (o->lms): "canvas", Canvas's gradebook import (its
 * export's first five columns, Student, ID, SIS User ID, SIS Login ID and
 * Section, then the assignment's points; rows matched by SIS Login ID, the
 * submission's id, or by ID, the Canvas user id, when the submissions came
 * from Canvas's own download); "moodle", Moodle's CSV grade import
 * (Username, the points and Feedback, mapped by the import's form), or,
 * when the submissions came from Moodle's own download, the assignment's
 * grading worksheet (Identifier "Participant N", Full name, Grade and
 * Feedback comments), which its "Upload grading worksheet" reads. A
 * submission that ended in an error scores 0 there, which the import keeps
 * (an empty cell would leave an older grade in place: a student could keep
 * one by making the new submission fail); Moodle's feedback says why,
 * Canvas's import has no column for it, and the summary lists every error
 * with its cause. */
static int write_lms(const batch *b, lab_error *err)
{
    int canvas = strcmp(b->o->lms, "canvas") == 0;
    int canvas_ids = canvas && b->from == GR_FROM_CANVAS;
    int worksheet = !canvas && b->from == GR_FROM_MOODLE;
    atomic_file af;
    if (atomic_file_open(&af, b->lms, err) != 0)
        return -1;
    char *column = gr_asprintf("%s (%s)", b->lab->name, b->lab->title ? b->lab->title : "");
    if (canvas)
        fputs("Student,ID,SIS User ID,SIS Login ID,Section,", af.f);
    else
        fputs(worksheet ? "Identifier,Full name,Grade,Feedback comments\r\n" : "Username,",
              af.f);
    if (!worksheet) {
        gr_write_csv_cell(af.f, column);
        fputs(canvas ? "\r\n" : ",Feedback\r\n", af.f);
    }
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        const char *name = s->name ? s->name : s->import_name;
        if (canvas) {
            gr_write_csv_cell(af.f, name ? name : s->id);
            fputc(',', af.f);
            if (canvas_ids)
                gr_write_csv_cell(af.f, s->id);
            fputs(",,", af.f);
            if (!canvas_ids)
                gr_write_csv_cell(af.f, s->id);
            fputc(',', af.f);
        } else if (worksheet) {
            char *who = gr_asprintf("Participant %s", s->id);
            gr_write_csv_cell(af.f, who);
            free(who);
            fputc(',', af.f);
            gr_write_csv_cell(af.f, name ? name : "");
        } else {
            gr_write_csv_cell(af.f, s->id);
        }
        fprintf(af.f, ",%d", s->status == SUB_ERROR ? 0 : s->score);
        if (!canvas) {
            fputc(',', af.f);
            if (s->status == SUB_ERROR) {
                char *why = gr_asprintf("not graded: %s", s->error ? s->error : "an error");
                gr_write_csv_cell(af.f, why);
                free(why);
            } else if (s->status == SUB_MISSING) {
                gr_write_csv_cell(af.f, "no submission");
            }
        }
        fputs("\r\n", af.f);
    }
    free(column);
    return atomic_file_commit(&af, err);
}

/*
 * The scores' histogram as a step line (plot.h draws lines, not bars): the
 * outline of HIST_BINS bars from 0 to full marks, the last one holding full
 * marks too. Writes <json_dir>/scores.{dat,gp,png} and says so.
 */
static void draw_histogram(const batch *b, const int *scores, int n, int max)
{
    if (n == 0 || max <= 0) {
        printf("Histogram: none (no scores)\n");
        return;
    }
    int nbins = max < HIST_BINS ? max : HIST_BINS, count[HIST_BINS] = {0};
    double width = (double)max / nbins, x[2 * HIST_BINS + 2], y[2 * HIST_BINS + 2];
    for (int i = 0; i < n; i++) {
        int k = (int)floor(scores[i] / width);
        count[k < 0 ? 0 : k >= nbins ? nbins - 1 : k]++;
    }
    /* Up the left edge of each bar, across its top; down after the last. */
    int m = 0;
    for (int k = 0; k <= nbins; k++) {
        x[m] = k * width;
        y[m++] = k == 0 ? 0 : count[k - 1];
        x[m] = k * width;
        y[m++] = k == nbins ? 0 : count[k];
    }

    char *stem = b->o->shard_n > 0 ? gr_asprintf("%s/scores.shard-%d-of-%d", b->json_dir,
                                                 b->o->shard_k, b->o->shard_n)
                                    : gr_asprintf("%s/scores", b->json_dir);
    char *title = gr_asprintf("%s: the scores of %d submissions", b->lab->name, n);
    char *xlabel = gr_asprintf("score (points of %d, in bins of %g)", max, width);
    lab_error err;
    plot *p = plot_new(stem, title, xlabel, "submissions", &err);
    int rc = p ? 0 : -1;
    if (rc == 0)
        rc = plot_add_series(p, NULL, x, y, (size_t)m, &err);
    if (rc == 0)
        rc = plot_set_xrange(p, 0, max, &err);
    int highest = 0;
    for (int k = 0; k < nbins; k++)
        highest = count[k] > highest ? count[k] : highest;
    if (rc == 0) /* room above the highest bar, whose top would be the frame */
        rc = plot_set_yrange(p, 0, highest + 1, &err);
    if (rc == 0)
        rc = plot_render(p, NULL, &err);
    if (rc == 0)
        printf("Histogram: %s.png (and .gp, .dat)\n", stem);
    else if (rc == PLOT_NO_GNUPLOT)
        printf("Histogram: not drawn, gnuplot is missing (make deps installs it); then\n"
               "           gnuplot %s.gp draws it from %s.dat\n", stem, stem);
    else
        printf("Histogram: not drawn: %s\n", err.msg);
    plot_free(p);
    free(stem);
    free(title);
    free(xlabel);
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The id column's width in the summary's lists. */
static int id_width(const batch *b)
{
    int w = 0;
    for (int k = 0; k < b->nsubs; k++)
        if (b->subs[k].status == SUB_ERROR && (int)strlen(b->subs[k].id) > w)
            w = (int)strlen(b->subs[k].id);
    for (int k = 0; k < b->nskipped; k++)
        if ((int)strlen(b->skipped[k].name) > w)
            w = (int)strlen(b->skipped[k].name);
    return w < ID_WIDTH_MAX ? w : ID_WIDTH_MAX;
}

/* The tests most often not passed by the submissions that built (a test
 * SKIPPED, a GPU test where there is none, was not failed). */
static void print_most_failed(const batch *b)
{
    const grader_lab *lab = b->lab;
    int *failed = xcalloc((size_t)lab->ntests, sizeof *failed), built = 0, name_w = 0;
    for (int k = 0; k < b->nsubs; k++) {
        if (b->subs[k].status != SUB_GRADED)
            continue;
        built++;
        for (int i = 0; i < lab->ntests; i++)
            failed[i] += b->subs[k].passed[i] == 0;
    }
    for (int i = 0; i < lab->ntests; i++)
        if (failed[i] > 0 && (int)strlen(lab->tests[i].name) > name_w)
            name_w = (int)strlen(lab->tests[i].name);
    printf("\nMost failed tests (submissions that did not pass each, of the %d that "
           "built):\n", built);
    int shown = 0;
    for (; shown < TOP_FAILED; shown++) {
        int top = -1; /* the most failed not shown yet; ties in rubric order */
        for (int i = 0; i < lab->ntests; i++)
            if (failed[i] > 0 && (top < 0 || failed[i] > failed[top]))
                top = i;
        if (top < 0)
            break;
        printf("  %-*s  %3d  %s\n", name_w, lab->tests[top].name, failed[top],
               lab->tests[top].title ? lab->tests[top].title : "");
        failed[top] = 0;
    }
    int skips = 0;
    for (int k = 0; k < b->nsubs; k++)
        skips += b->subs[k].status == SUB_GRADED && b->subs[k].skipped > 0;
    if (shown == 0 && skips)
        printf("  none failed; %d had tests SKIPPED (not run here, so neither passed nor "
               "failed)\n", skips);
    else if (shown == 0)
        printf("  none: every one that built passed every test\n");
    free(failed);
}

static int count_refused(const batch *b)
{
    int n = 0;
    for (int k = 0; k < b->nskipped; k++)
        n += b->skipped[k].refused;
    return n;
}

/* The entries skipped (refused 0) or refused (1), each with why. */
static void print_skipped(const batch *b, const char *title, int refused, int w)
{
    printf("\n%s:\n", title);
    for (int k = 0; k < b->nskipped; k++) {
        if (b->skipped[k].refused != refused)
            continue;
        char *name = gr_clean_line(b->skipped[k].name), *why = gr_clean_line(b->skipped[k].why);
        printf("  %-*s  %s\n", w, name, why);
        free(name);
        free(why);
    }
}

static void print_summary(const batch *b, const char *gradebook_error)
{
    int resumed = 0, errors = 0, resumed_errors = 0, build_failed = 0, n = 0, with_skips = 0;
    int max = grader_lab_points(b->lab), w = id_width(b), refused = count_refused(b);
    int only = 0, hidden = 0, reports = 0, missing = 0, not_on_roster = 0;
    int *scores = xcalloc((size_t)b->nsubs, sizeof *scores);
    double sum = 0;
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        resumed += s->resumed;
        only += s->only;
        hidden += s->hidden && s->status != SUB_ERROR;
        reports += s->status != SUB_ERROR && s->status != SUB_MISSING;
        errors += s->status == SUB_ERROR;
        resumed_errors += s->status == SUB_ERROR && s->resumed;
        build_failed += s->status == SUB_BUILD_FAILED;
        with_skips += s->status != SUB_ERROR && s->skipped > 0;
        missing += s->status == SUB_MISSING;
        not_on_roster += !s->on_roster;
        if (s->status != SUB_ERROR && s->status != SUB_MISSING) {
            scores[n++] = s->score;
            sum += s->score;
        }
    }
    printf("\n%s (%s): %d submissions in %s", b->lab->name,
           b->lab->title ? b->lab->title : "", b->nsubs, b->download);
    if (b->o->shard_n > 0)
        printf(", shard %d of %d", b->o->shard_k, b->o->shard_n);
    printf(b->o->merge ? ", merged from the reports\n" : "\n");
    if (b->o->seed)
        printf("  hidden inputs: on (a seed was given); %d of the %d graded drew them\n", hidden,
               reports);
    else
        printf("  hidden inputs: %s; %d of the %d graded drew them\n",
               b->o->merge ? "not checked (a merge without a seed)" : "off (no seed)", hidden,
               reports);
    printf("  %-9s %6d  this run\n", "graded", b->graded);
    if (b->regraded > 0)
        printf("  %-9s %6d  of them had a stale report (what it graded changed)\n", "regraded",
               b->regraded);
    if (only > 0)
        printf("  %-9s %6d  of them named by --only\n", "only", only);
    printf("  %-9s %6d  from the reports of an earlier run\n", "resumed", resumed);
    printf("  %-9s %6d  not graded", "errors", errors);
    if (resumed_errors > 0)
        printf(" (%d of them resumed: --force grades again)", resumed_errors);
    printf("\n  %-9s %6d  not submissions\n", "skipped", b->nskipped - refused);
    if (refused > 0)
        printf("  %-9s %6d  not graded, and not in the gradebook: see why below\n", "refused",
               refused);
    printf("  %-9s %6d  did not build, or a file was missing (score 0)\n", "no build",
           build_failed);
    if (b->o->roster)
        printf("  %-9s %6d  on the roster, with no submission (score 0)\n", "missing", missing);
    if (with_skips > 0)
        printf("  %-9s %6d  had tests SKIPPED, which earn nothing: this machine cannot run "
               "them (no GPU?)\n", "SKIPPED", with_skips);
    if (n > 0) {
        qsort(scores, (size_t)n, sizeof *scores, by_value);
        double median = n % 2 ? scores[n / 2] : 0.5 * (scores[n / 2 - 1] + scores[n / 2]);
        printf("  %-9s %6.1f  of %d, over the %d graded (errors and missing left out)\n", "mean",
               sum / n, max, n);
        printf("  %-9s %6.1f  of %d\n", "median", median, max);
    }
    if (b->nskipped - refused > 0)
        print_skipped(b, "Skipped", 0, w);
    if (refused > 0)
        print_skipped(b, "Refused (each may be a student's: fix it, then run again)", 1, w);
    if (errors > 0) {
        printf("\nErrors (the report says what happened):\n");
        for (int k = 0; k < b->nsubs; k++) {
            if (b->subs[k].status != SUB_ERROR)
                continue;
            char *id = gr_clean_line(b->subs[k].id), *why = gr_clean_line(b->subs[k].error);
            printf("  %-*s  %s\n", w, id, why);
            free(id);
            free(why);
        }
    }
    if (not_on_roster > 0) {
        printf("\nNot on the roster (graded all the same):\n");
        for (int k = 0; k < b->nsubs; k++) {
            if (b->subs[k].on_roster)
                continue;
            char *id = gr_clean_line(b->subs[k].id);
            printf("  %s\n", id);
            free(id);
        }
    }
    print_most_failed(b);
    putchar('\n');
    if (gradebook_error)
        printf("Gradebook: not written: %s\n", gradebook_error);
    else
        printf("Gradebook: %s\n", b->csv);
    if (b->lms && !gradebook_error)
        printf("For LMS:   %s (%s's grade import)\n", b->lms, b->o->lms);
    printf("Reports:   %s/<id>.json\n", b->json_dir);
    printf("For each student: %s/<id>.txt, the scorecard to return\n", b->json_dir);
    draw_histogram(b, scores, n, max);
    free(scores);
}

/* ---- the whole run ------------------------------------------------------------------------ */

double gr_batch_default_cap(const grader_lab *lab)
{
    double m = timeout_multiplier(), sum = 0;
    for (int i = 0; i < lab->ntests; i++)
        sum += fmax(m * lab->tests[i].timeout_s, CAP_MIN_LIMIT);
    return CAP_PER_LIMIT * sum + CAP_BUILD_S;
}

/* Everything that must hold before the first child starts. */
/* A platform's bulk download (o->from, or detected) is read into
 * <work>/class, which is then graded as a plain class folder; its students'
 * names go with them, and its entries not taken are listed as skipped. */
static int read_download(batch *b, lab_error *err)
{
    b->from = b->o->from == GR_FROM_AUTO ? gr_detect_layout(b->download) : b->o->from;
    if (b->from == GR_FROM_PLAIN)
        return 0;
    char *class = gr_asprintf("%s/class", b->work);
    if (gr_import_lms(b->download, b->from, class, &b->import, err) != 0) {
        free(class);
        return -1;
    }
    free(b->dir);
    b->dir = class;
    fprintf(stderr, "grader: %s: %s's download (%s): %d student%s%s\n", b->download,
            gr_from_name(b->from, 1),
            b->o->from == GR_FROM_AUTO ? "recognised; --from plain reads it as folders"
                                       : "--from",
            b->import.n, b->import.n == 1 ? "" : "s",
            b->import.nskipped ? ", and entries not taken (listed at the end)" : "");
    return 0;
}

/* --similarity: the student files of every submission that has them, as
 * graded, compared (similarity.h); the account goes after the summary. */
static void report_similarity(const batch *b)
{
    gr_sim_input *in = xcalloc((size_t)(b->nsubs > 0 ? b->nsubs : 1), sizeof *in);
    char **dirs = xcalloc((size_t)(b->nsubs > 0 ? b->nsubs : 1), sizeof *dirs);
    char *top = gr_asprintf("%s/similarity-in", b->work);
    int n = 0;
    lab_error err;
    if (mkdir(top, 0755) != 0) {
        printf("\nSimilarity: not computed: %s: %s\n", top, strerror(errno));
        free(top);
        free(in);
        free(dirs);
        return;
    }
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        if (s->status == SUB_MISSING || s->refused || !s->source[0])
            continue;
        char *dir = gr_asprintf("%s/%d", top, k);
        int bad = mkdir(dir, 0755) != 0 ||
                  (s->archive ? gr_unpack_isolated(s->source, dir, b->lab->student_files, &err)
                              : take_from_folder(s->source, dir, b->lab->student_files, &err));
        if (bad) {
            gr_remove_tree(dir);
            free(dir);
            continue;
        }
        dirs[n] = dir;
        in[n].id = s->id;
        in[n].dir = dir;
        n++;
    }
    char *skeleton = gr_asprintf("%s/labs/%s", b->o->root, b->lab->name);
    char *work = gr_asprintf("%s/similarity", b->work);
    char *out = gr_asprintf("%s/similarity.txt", b->json_dir);
    fflush(stdout);
    if (gr_similarity(in, n, b->lab->student_files, skeleton, b->o->similarity, work, out, stdout,
                      &err) != 0)
        printf("\nSimilarity: not written: %s\n", err.msg);
    for (int k = 0; k < n; k++)
        free(dirs[k]);
    free(dirs);
    free(in);
    free(skeleton);
    free(work);
    free(out);
    gr_remove_tree(top);
    free(top);
}

static int set_up(batch *b, lab_error *err)
{
    const gr_batch_options *o = b->o;
    size_t len = strlen(o->dir);
    while (len > 1 && o->dir[len - 1] == '/')
        len--;
    b->dir = gr_asprintf("%.*s", (int)len, o->dir);
    b->download = gr_asprintf("%s", b->dir);
    if (!is_dir(b->dir))
        return lab_errorf(err, "%s: no such folder", o->dir);
    b->json_dir = o->json_dir ? gr_asprintf("%s", o->json_dir) : default_json_dir(b->dir, err);
    if (!b->json_dir || make_dirs(b->json_dir, err) != 0)
        return -1;
    if (o->lms)
        b->lms = gr_asprintf("%s/lms-%s.csv", b->json_dir, o->lms);
    if (o->csv)
        b->csv = gr_asprintf("%s", o->csv);
    else if (o->shard_n > 0)
        b->csv = gr_asprintf("%s/grades.shard-%d-of-%d.csv", b->json_dir, o->shard_k,
                             o->shard_n);
    else
        b->csv = gr_asprintf("%s/grades.csv", b->json_dir);
    char *slash = strrchr(b->csv, '/');
    char *csv_dir = slash ? gr_asprintf("%.*s", (int)(slash - b->csv), b->csv) : NULL;
    int csv_ok = !csv_dir || !*csv_dir || is_dir(csv_dir);
    free(csv_dir);
    if (!csv_ok)
        return lab_errorf(err, "%s: the gradebook's folder does not exist", b->csv);
    b->cap_s = o->timeout_s > 0 ? o->timeout_s : gr_batch_default_cap(b->lab);
    b->version = grader_version(o->root);

    /* A golden that does not match would fail every submission alike (a
     * lab with no goldens computes what it expects). */
    char *data = gr_asprintf("%s/data", o->root), *golden = gr_asprintf("golden/%s", b->lab->name);
    int verified = b->lab->no_goldens ? 0 : gr_verify_goldens(data, golden, err);
    free(data);
    free(golden);
    if (verified != 0)
        return -1;

    if (!(b->build = realpath(o->build, NULL)))
        return lab_errorf(err, "%s: the build folder: %s (make grader builds it)", o->build,
                          strerror(errno));
    b->fingerprint = grader_fingerprint(b);
    /* Decided here, once, and inherited by every child. */
    const char *const readable[] = {o->root, b->build, NULL};
    gr_sandbox_warn(gr_sandbox_get(readable));
    if (make_batch_work(b, err) != 0)
        return -1;
    if (read_download(b, err) != 0 || list_submissions(b, err) != 0) {
        gr_remove_tree(b->work);
        return -1;
    }
    return 0;
}

static void free_batch(batch *b)
{
    for (int k = 0; k < b->nsubs; k++)
        free_submission(&b->subs[k]);
    for (int k = 0; k < b->nskipped; k++) {
        free(b->skipped[k].name);
        free(b->skipped[k].why);
    }
    free(b->subs);
    free(b->skipped);
    free(b->dir);
    free(b->download);
    gr_import_free(&b->import);
    free(b->json_dir);
    free(b->csv);
    free(b->lms);
    free(b->build);
    free(b->work);
    free(b->version);
    free(b->fingerprint);
    if (b->lock >= 0)
        close(b->lock);
}

int gr_batch(const gr_batch_options *o, lab_error *err)
{
    batch b = {0};
    b.lock = -1;
    b.o = o;
    b.lab = o->lab;
    if (o->jobs < 1) {
        lab_errorf(err, "-j %d: at least one submission at a time", o->jobs);
        return -1;
    }
    if (set_up(&b, err) != 0) { /* the work folder is its last step: none was made */
        free_batch(&b);
        return -1;
    }
    if (b.nskipped > 0)
        fprintf(stderr, "grader: in %s, not submissions: %d (listed at the end)\n", b.download,
                b.nskipped);

    job *jobs = xcalloc((size_t)o->jobs, sizeof *jobs);
    if (!o->merge)
        gr_jobres_init(o->jobs, b.lab->cuda);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    grade_all(&b, jobs);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    while (waitpid(-1, NULL, WNOHANG) > 0) /* strays killed but not yet collected */
        ;
    free(jobs);
    gr_jobres_fini();

    lab_error book_err;
    int book = write_gradebook(&b, &book_err);
    if (book == 0 && b.lms)
        book = write_lms(&b, &book_err);
    print_summary(&b, book == 0 ? NULL : book_err.msg);
    if (o->similarity > 0)
        report_similarity(&b);
    gr_remove_tree(b.work);
    int errors = count_refused(&b);
    for (int k = 0; k < b.nsubs; k++)
        errors += b.subs[k].status == SUB_ERROR;
    free_batch(&b);
    if (book != 0) {
        lab_errorf(err, "the gradebook: %s", book_err.msg);
        return -1;
    }
    return errors > 0 ? 1 : 0;
}
