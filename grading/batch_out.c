/*
 * batch_out.c - what a batch writes at the end: the CSV gradebook
 * (atomically), the LMS's own files, the histogram and the summary.
 */
#define _GNU_SOURCE
#include "batch_state.h"

#include <archive.h>
#include <archive_entry.h>

/* How the gradebook's status column spells each sub_status. */
static const char *const status_names[] = {"graded", "build_failed", "error", "missing"};

/* ---- the gradebook, the histogram, the summary ------------------------------------------ */

/* student,score,max_score,status,<test>...,hidden_inputs,late,late_penalty,group:
 * one row per submission, the points each test earned, whether its report
 * drew hidden inputs (yes or no), whether the platform marked the work late
 * (yes or no; empty where the layout has no such mark) and the points
 * --late-penalty took from the score, and its group (--groups; empty for
 * none); CRLF line ends, as RFC 4180 has them. */
int write_gradebook(const batch *b, lab_error *err)
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
    fputs(",hidden_inputs,late,late_penalty,group\r\n", af.f);
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        gr_write_csv_cell(af.f, s->id);
        fprintf(af.f, ",%d,%d,%s", s->score, s->max_score, status_names[s->status]);
        for (int i = 0; i < lab->ntests; i++)
            fprintf(af.f, ",%d", s->points[i]);
        fprintf(af.f, ",%s,%s,%d,", s->hidden ? "yes" : "no",
                s->late == 1 ? "yes" : s->late == 0 ? "no" : "", s->late_points);
        gr_write_csv_cell(af.f, s->group ? s->group : "");
        fputs("\r\n", af.f);
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
 * grading worksheet (Identifier "Participant N", Full name, Grade, Maximum
 * Grade, Last modified (grade) and Feedback comments, the columns of its
 * own worksheet; its import requires Identifier, Grade and Last modified
 * (grade)), which its "Upload grading worksheet" reads. A
 * submission that ended in an error scores 0 there, which the import keeps
 * (an empty cell would leave an older grade in place: a student could keep
 * one by making the new submission fail); Moodle's feedback says why,
 * Canvas's import has no column for it, and the summary lists every error
 * with its cause. */
/* A graded submission's feedback in a line: its score, and the tests it
 * did not pass by name (its scorecard, <id>.txt, says what each compared). */
static char *graded_feedback(const batch *b, const submission *s)
{
    char *f = gr_asprintf("%s: %d of %d points", b->lab->name, s->score, s->max_score);
    int n = 0;
    for (int i = 0; s->passed && i < b->lab->ntests; i++) {
        if (s->passed[i] == 1)
            continue;
        char *g = gr_asprintf("%s%s %s%s", f, n++ ? "," : "; not passed:", b->lab->tests[i].name,
                              s->passed[i] < 0 ? " (skipped)" : "");
        free(f);
        f = g;
    }
    char *g = gr_asprintf("%s%s", f, n ? "; the scorecard says what each test compared"
                                       : "; every test passed");
    free(f);
    if (s->late_points > 0) {
        f = gr_asprintf("%s; late: %d points taken", g, s->late_points);
        free(g);
        g = f;
    }
    return g;
}

/* ---- feedback files, for the platform's bulk upload -------------------------------- */

/*
 * Moodle's "Upload multiple feedback files in a zip" (the file feedback
 * plugin; mod/assign/feedback/file/importziplib.php,
 * is_valid_filename_for_import): each path part of an entry is split at its
 * first four '_' (explode('_', $part, 5)); the second piece is the
 * participant id (numeric, one of the assignment's), the third and fourth
 * the plugin (assignfeedback, file), and what follows the fourth '_' is the
 * file's name in the student's feedback. So each student's scorecard is
 * <name>_<participant id>_assignfeedback_file_<lab>-scorecard.txt at the
 * zip's top (the flat form the importer still reads), the name with no '_'
 * or '/' (the importer does not read it). Returns the students written, or
 * -1 with err set.
 */
static int write_moodle_feedback(const batch *b, const char *path, lab_error *err)
{
    char *tmp = gr_asprintf("%s.tmp", path);
    struct archive *a = archive_write_new();
    int n = 0, rc = 0;
    /* Names in UTF-8, flagged so (the zip's language encoding bit), whatever
     * the locale: a student's name is often not ASCII. */
    if (!a || archive_write_set_format_zip(a) != ARCHIVE_OK ||
        archive_write_set_options(a, "zip:hdrcharset=UTF-8") != ARCHIVE_OK ||
        archive_write_open_filename(a, tmp) != ARCHIVE_OK) {
        rc = lab_errorf(err, "%s: cannot write: %s", tmp, a ? archive_error_string(a) : "");
        goto done;
    }
    for (int k = 0; rc == 0 && k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        char *card = gr_asprintf("%s/%s.txt", b->json_dir, s->id);
        FILE *f = s->status == SUB_MISSING || s->team ? NULL : fopen(card, "rb");
        free(card);
        if (!f)
            continue;
        struct stat st;
        size_t len = 0, size = fstat(fileno(f), &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 1;
        char *text = xcalloc(size, 1);
        len = fread(text, 1, size, f);
        fclose(f);
        const char *given = s->import_name ? s->import_name : s->name;
        char *name = gr_clean_line(given && *given ? given : "Participant");
        for (char *c = name; *c; c++)
            if (*c == '_' || *c == '/' || *c == '\\')
                *c = ' ';
        char *entry_path = gr_asprintf("%s_%s_assignfeedback_file_%s-scorecard.txt", name,
                                       s->id, b->lab->name);
        rc = zip_add(a, entry_path, text, len, 0644, err);
        free(entry_path);
        free(name);
        free(text);
        n++;
    }
    if (archive_write_close(a) != ARCHIVE_OK && rc == 0)
        rc = lab_errorf(err, "%s: cannot write: %s", tmp, archive_error_string(a));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = lab_errorf(err, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
done:
    if (a)
        archive_write_free(a);
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc != 0 ? -1 : n;
}

/* The shards a merge lacks: those of the N its folder's shard gradebooks
 * (grades.shard-K-of-N.csv) say, for which there is none, as "3 of 4, 4 of
 * 4"; NULL when the gradebooks do not say. */
static char *missing_shards(const batch *b)
{
    DIR *d = opendir(b->json_dir);
    struct dirent *e;
    int n = 0, seen[65] = {0};
    while (d && (e = readdir(d)) != NULL) {
        int k, m, len = 0;
        if (sscanf(e->d_name, "grades.shard-%d-of-%d.csv%n", &k, &m, &len) == 2 &&
            e->d_name[len] == '\0' && m >= 1 && m <= 64 && k >= 1 && k <= m &&
            (n == 0 || n == m)) {
            n = m;
            seen[k] = 1;
        }
    }
    if (d)
        closedir(d);
    char *out = NULL;
    for (int k = 1; k <= n; k++)
        if (!seen[k]) {
            char *o = gr_asprintf("%s%s%d of %d", out ? out : "", out ? ", " : "", k, n);
            free(out);
            out = o;
        }
    return out;
}

/* ---- Moodle's grading worksheet, as downloaded (--lms-worksheet) ---------------------- */

/*
 * Moodle's worksheet import (mod/assign/feedback/offline/importgradeslib.php,
 * init and next) finds its columns by the site's own strings, in the site's
 * language: the identifier by get_string('recordid', 'assign'), the grade
 * by get_string('grade'), the time of grading by
 * get_string('lastmodifiedgrade', 'assign'), each feedback field by its
 * description; and reads a participant's number from the identifier less as
 * many bytes as get_string('hiddenuser', 'assign') has ("Participant ").
 * So the worksheet the assignment itself gave is filled in: its header and
 * every row kept as downloaded, and for each student of the batch the
 * grade, the time and the feedback. The columns are found by their English
 * names, or given by number (--lms-worksheet-columns) where the site writes
 * another language; then the grader says where Moodle's own worksheet
 * (mod/assign/gradingtable.php, in a download: the identifier first, the
 * grade and then its maximum, ..., the time of grading, then the feedback
 * fields) puts them.
 */
enum { WS_ID, WS_GRADE, WS_MODIFIED, WS_FEEDBACK, WS_ROLES };
static const char *const ws_english[WS_ROLES] = {"Identifier", "Grade", "Last modified (grade)",
                                                 "Feedback comments"};

typedef struct sheet {
    char ***cell;      /* cell[r][c], row 0 the header */
    int *n;            /* the cells of row r */
    int rows, cap;
} sheet;

static void free_sheet(sheet *t)
{
    for (int r = 0; r < t->rows; r++) {
        for (int c = 0; c < t->n[r]; c++)
            free(t->cell[r][c]);
        free(t->cell[r]);
    }
    free(t->cell);
    free(t->n);
}

static const char *ws_cell(const sheet *t, int r, int c)
{
    return c >= 0 && c < t->n[r] ? t->cell[r][c] : "";
}

/* A number as Moodle writes one (format_float: "100.00", or "100,00" in a
 * language whose decimal point is a comma), into *v. */
static int ws_number(const char *s, double *v)
{
    char buf[64];
    size_t n = strlen(s);
    if (n == 0 || n >= sizeof buf || strspn(s, "0123456789.,") != n || !strchr("0123456789", *s))
        return 0;
    memcpy(buf, s, n + 1);
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    char *end;
    *v = strtod(buf, &end);
    return *end == '\0';
}

static int read_sheet(const char *path, sheet *t, lab_error *err)
{
    char *text = read_csv_file("--lms-worksheet", path, err);
    if (!text)
        return -1;
    if (moodle_csv_refused("--lms-worksheet", path, text, err) != 0) {
        free(text);
        return -1;
    }
    int line = 1;
    for (const char *p = text; *p;) {
        int end = 0, n = 0, cap = 0;
        char **row = NULL;
        while (!end) {
            row = grow(row, n, &cap, sizeof *row);
            row[n++] = csv_cell(&p, &end, &line);
        }
        if (n == 1 && !*row[0]) { /* an empty line */
            free(row[0]);
            free(row);
            continue;
        }
        int ncap = t->cap;
        t->cell = grow(t->cell, t->rows, &t->cap, sizeof *t->cell);
        t->n = grow(t->n, t->rows, &ncap, sizeof *t->n);
        t->cell[t->rows] = row;
        t->n[t->rows++] = n;
    }
    free(text);
    if (t->rows == 0)
        return lab_errorf(err, "--lms-worksheet %s: empty: not the worksheet Moodle's "
                          "\"Download grading worksheet\" gives", path);
    return 0;
}

/* Where Moodle's own worksheet puts the columns, in col (-1: not found):
 * the identifier first; the grade, the one column g followed by its
 * maximum (one number, the same on every row); the time of grading and
 * the feedback comments last, where the feedback plugin is on and outcomes
 * are off. */
static void guess_columns(const sheet *t, int col[WS_ROLES])
{
    int cols = t->n[0];
    col[WS_ID] = 0;
    col[WS_GRADE] = -1;
    for (int g = 1; g + 1 < cols && t->rows > 1; g++) {
        int ok = 1;
        double max = 0, v, x;
        for (int r = 1; ok && r < t->rows; r++) {
            const char *grade = ws_cell(t, r, g);
            if (!ws_number(ws_cell(t, r, g + 1), &v) || v <= 0 || (r > 1 && v != max))
                ok = 0;
            else if (*grade && strcmp(grade, "-") != 0 && !ws_number(grade, &x))
                ok = 0;
            max = v;
        }
        if (ok)
            col[WS_GRADE] = col[WS_GRADE] == -1 ? g : -2;
    }
    col[WS_MODIFIED] = col[WS_GRADE] >= 0 && cols - 2 > col[WS_GRADE] + 1 ? cols - 2 : -1;
    col[WS_FEEDBACK] = col[WS_MODIFIED] >= 0 ? cols - 1 : -1;
}

/* The columns by number, "ID,GRADE,MODIFIED[,FEEDBACK]" from 1, into col;
 * 0, or -1 with err set. */
static int given_columns(const char *spec, int cols, int col[WS_ROLES], lab_error *err)
{
    int v[WS_ROLES] = {0, 0, 0, 0}, n = 0, used = 0;
    n = sscanf(spec, "%d,%d,%d%n,%d%n", &v[0], &v[1], &v[2], &used, &v[3], &used);
    if (n < 3 || spec[used] != '\0')
        return lab_errorf(err, "--lms-worksheet-columns %s: ID,GRADE,MODIFIED or "
                          "ID,GRADE,MODIFIED,FEEDBACK, the columns' numbers from 1", spec);
    for (int i = 0; i < WS_ROLES; i++) {
        col[i] = i < n ? v[i] - 1 : -1;
        if (i < n && (v[i] < 1 || v[i] > cols))
            return lab_errorf(err, "--lms-worksheet-columns %s: the worksheet has columns 1 "
                              "to %d", spec, cols);
        for (int j = 0; j < i; j++)
            if (i < n && col[i] == col[j])
                return lab_errorf(err, "--lms-worksheet-columns %s: column %d twice", spec,
                                  v[i]);
    }
    return 0;
}

/* The feedback a worksheet cell gets: what a teacher wrote there (Moodle's
 * HTML, as downloaded) kept, and the grader's own, from an earlier upload,
 * replaced by ours (HTML already). The grader's begins with the lab's name
 * and ": ", "not graded: " or "no submission", at the cell's start or after
 * a "<br>" the grader put before it. */
static char *merge_feedback(const char *lab, const char *old, const char *ours)
{
    char *mine = gr_asprintf("%s: ", lab);
    const char *marks[] = {mine, "not graded: ", "no submission", NULL};
    size_t keep = strlen(old);
    for (int m = 0; marks[m]; m++) {
        if (strncmp(old, marks[m], strlen(marks[m])) == 0)
            keep = 0;
        char *after_br = gr_asprintf("<br>%s", marks[m]);
        const char *at = strstr(old, after_br);
        if (at && (size_t)(at - old) < keep)
            keep = (size_t)(at - old);
        free(after_br);
    }
    free(mine);
    while (keep > 0 && (old[keep - 1] == ' ' || old[keep - 1] == '\n' || old[keep - 1] == '\r'))
        keep--;
    return keep == 0 ? gr_asprintf("%s", ours)
                     : gr_asprintf("%.*s<br>%s", (int)keep, old, ours);
}

/* The feedback of s, as every Moodle file gives it (plain text). */
static char *moodle_feedback(const batch *b, const submission *s)
{
    return s->status == SUB_ERROR ? gr_asprintf("not graded: %s", s->error ? s->error : "an error")
           : s->status == SUB_MISSING ? gr_asprintf("no submission")
                                      : graded_feedback(b, s);
}

/* A name as compared with a download's: as the download writes it
 * (moodle_download_name), folded as ids are (id_key: case, Unicode
 * normalisation), its words in order (a site writes "first last" or "last
 * first" by the language of who downloads). malloc'd. */
static int by_word(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *name_key(const char *name)
{
    char *d = moodle_download_name(name), *why = id_refusal(d);
    if (why) { /* not UTF-8, or a control character: as it is */
        free(why);
        return d;
    }
    char *k = id_key(d);
    size_t len = strlen(k); /* the words joined by one space are no longer */
    free(d);
    char *words[64], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(k, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    qsort(words, (size_t)n, sizeof *words, by_word);
    char *out = xcalloc(len + 1, 1);
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, words[i]);
    }
    free(k);
    return out;
}

/* Fills in the worksheet at b->o->lms_worksheet into b->lms. Returns 0; 1
 * with err saying why it was not written (the worksheet cannot be read,
 * its columns are not found, a grade is above its maximum); 2 when written,
 * with err naming the batch's students it has no row for; -1 with err set
 * when b->lms cannot be written. */
static int write_worksheet(const batch *b, lab_error *err)
{
    const char *path = b->o->lms_worksheet;
    sheet t = {0};
    int col[WS_ROLES], rc = 0;
    if (read_sheet(path, &t, err) != 0) {
        free_sheet(&t);
        unlink(b->lms); /* an earlier run's, which would look current */
        return 1;
    }
    int cols = t.n[0];
    for (int i = 0; i < WS_ROLES; i++) {
        col[i] = -1;
        for (int c = 0; c < cols; c++)
            if (strcmp(t.cell[0][c], ws_english[i]) == 0)
                col[i] = c;
    }
    int english = col[WS_ID] >= 0 && col[WS_GRADE] >= 0 && col[WS_MODIFIED] >= 0;
    if (b->o->lms_worksheet_columns) { /* the instructor's word first */
        english = 0;
        if (given_columns(b->o->lms_worksheet_columns, cols, col, err) != 0)
            rc = 1;
    } else if (!english) {
        int g[WS_ROLES];
        guess_columns(&t, g);
        char *say = gr_asprintf("--lms-worksheet %s: its header is not English Moodle's (no "
                                "\"Identifier\", \"Grade\" and \"Last modified (grade)\"): the "
                                "site writes another language, whose names the grader does not "
                                "know", path);
        if (g[WS_GRADE] >= 0 && g[WS_MODIFIED] >= 0) {
            char *h[WS_ROLES];
            for (int i = 0; i < WS_ROLES; i++)
                h[i] = gr_clean_line(t.cell[0][g[i]]);
            char *more = gr_asprintf("%s. Where Moodle's worksheet puts them (mod/assign/"
                                     "gradingtable.php), the identifier is column %d (\"%s\"), "
                                     "the grade %d (\"%s\"), last modified (grade) %d (\"%s\") "
                                     "and feedback comments %d (\"%s\"): if so, run again with "
                                     "--lms-worksheet-columns %d,%d,%d,%d; if not, give their "
                                     "numbers so", say, g[0] + 1, h[0], g[1] + 1, h[1],
                                     g[2] + 1, h[2], g[3] + 1, h[3], g[0] + 1, g[1] + 1,
                                     g[2] + 1, g[3] + 1);
            for (int i = 0; i < WS_ROLES; i++)
                free(h[i]);
            free(say);
            say = more;
        } else {
            char *more = gr_asprintf("%s. Give its columns by number: --lms-worksheet-columns "
                                     "ID,GRADE,MODIFIED,FEEDBACK (from 1)", say);
            free(say);
            say = more;
        }
        lab_errorf(err, "%s", say);
        free(say);
        rc = 1;
    }
    /* The identifier's prefix: the hidden user's string, then the number. */
    char *prefix = NULL;
    for (int r = 1; rc == 0 && r < t.rows; r++) {
        const char *id = ws_cell(&t, r, col[WS_ID]);
        size_t n = strlen(id), d = n;
        while (d > 0 && id[d - 1] >= '0' && id[d - 1] <= '9')
            d--;
        if (d == n || (prefix && (strlen(prefix) != d || strncmp(prefix, id, d) != 0))) {
            char *shown = gr_clean_line(id);
            rc = 1;
            lab_errorf(err, "--lms-worksheet %s: row %d: the identifier \"%s\" is not as the "
                       "others (a word and the participant's number, \"Participant 123456\" "
                       "in English)%s", path, r + 1, shown,
                       english ? "" : ": is --lms-worksheet-columns's first number the identifier?");
            free(shown);
        } else if (!prefix) {
            prefix = gr_asprintf("%.*s", (int)d, id);
        }
    }
    if (rc == 0 && t.rows < 2) {
        rc = 1;
        lab_errorf(err, "--lms-worksheet %s: no student's row", path);
    }
    /* The maximum grade: the column after the grade, in every download. */
    double max = 0;
    for (int r = 1; rc == 0 && r < t.rows; r++) {
        double v;
        if (!ws_number(ws_cell(&t, r, col[WS_GRADE] + 1), &v) || v <= 0) {
            char *h = gr_clean_line(col[WS_GRADE] + 1 < cols ? t.cell[0][col[WS_GRADE] + 1] : "");
            rc = 1;
            lab_errorf(err, "--lms-worksheet %s: row %d: no maximum grade after the grade (column "
                       "%d, \"%s\"): an assignment graded by points has one; one graded on a "
                       "scale cannot take the lab's points", path, r + 1, col[WS_GRADE] + 2, h);
            free(h);
        }
        max = v > max ? v : max;
    }
    /* Each row's student in the batch, and the grades over the maximum. */
    int *sub_of = xcalloc((size_t)t.rows, sizeof *sub_of);
    char *over = NULL;
    int nover = 0;
    char *used = xcalloc((size_t)(b->nsubs > 0 ? b->nsubs : 1), 1);
    for (int r = 1; rc == 0 && r < t.rows; r++) {
        const char *num = ws_cell(&t, r, col[WS_ID]) + strlen(prefix);
        sub_of[r] = -1;
        for (int k = 0; k < b->nsubs && sub_of[r] < 0; k++)
            if (strcmp(b->subs[k].id, num) == 0)
                sub_of[r] = k;
        if (sub_of[r] < 0)
            continue;
        const submission *s = &b->subs[sub_of[r]];
        used[sub_of[r]] = 1;
        int score = s->status == SUB_ERROR ? 0 : s->score;
        if (score > max && nover++ < 5) {
            char *o = gr_asprintf("%s%s%s %d", over ? over : "", over ? ", " : "", s->id, score);
            free(over);
            over = o;
        }
    }
    /* A download read as participants' whose names are mostly not those
     * of the worksheet's participants of the same numbers: a team
     * assignment's (each number a group's) whose worksheet was not known as
     * one (its Group column is found by its English name), or another
     * assignment's worksheet. Either would put grades in the wrong rows.
     * Names are compared as name_key folds them. Under blind marking the
     * download gives every entry one name, the site's word for a
     * participant, and the worksheet none: not compared then, nor in a
     * download of one entry. */
    int named = 0, same = 0, first_odd = 0, one_name = 1;
    for (int i = 1; i < b->import.n; i++)
        one_name &= strcmp(b->import.names[i], b->import.names[0]) == 0;
    for (int r = 1; rc == 0 && b->from == GR_FROM_MOODLE && !b->team && !one_name && r < t.rows;
         r++) {
        const submission *s = sub_of[r] >= 0 ? &b->subs[sub_of[r]] : NULL;
        if (!s || !s->import_name || !*s->import_name)
            continue;
        named++;
        int found = 0;
        char *want = name_key(s->import_name);
        for (int c = 0; c < t.n[r] && !found; c++) {
            char *cell = name_key(t.cell[r][c]);
            found = strcmp(cell, want) == 0;
            free(cell);
        }
        free(want);
        same += found;
        if (!found && !first_odd)
            first_odd = r;
    }
    if (rc == 0 && named > 0 && 2 * same < named) {
        rc = 1;
        char *who = gr_clean_line(b->subs[sub_of[first_odd]].import_name);
        lab_errorf(err, "--lms-worksheet %s: of the download's entries whose number is a "
                   "participant's in it, %d of %d are not named as that participant (%s's is "
                   "\"%s\", in no cell of row %d): a team assignment's download, whose numbers "
                   "are the groups', with a worksheet not known as a team's (its Group column is "
                   "found by its English name: download the worksheet with English as your "
                   "language), or another assignment's worksheet", path, named - same, named,
                   b->subs[sub_of[first_odd]].id, who, first_odd + 1);
        free(who);
    }
    if (rc == 0 && nover > 0) {
        rc = 1;
        lab_errorf(err, "--lms-worksheet %s: %d student%s scored above the assignment's maximum "
                   "grade, %g (%s%s), which Moodle's import skips without a word (locallib.php, "
                   "process_import_grades: \"Out of range\"): set the maximum to the lab's %d "
                   "points, download the worksheet again and merge again (--merge)",
                   path, nover, nover > 1 ? "s" : "", max, over, nover > 5 ? ", ..." : "",
                   grader_lab_points(b->lab));
    }
    free(over);
    char modified[40] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(modified, sizeof modified, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    atomic_file af;
    if (rc == 0 && atomic_file_open(&af, b->lms, err) != 0)
        rc = -1;
    for (int r = 0; rc == 0 && r < t.rows; r++) {
        const submission *s = r > 0 && sub_of[r] >= 0 ? &b->subs[sub_of[r]] : NULL;
        int n = t.n[r] > cols ? t.n[r] : cols;
        for (int c = 0; c < n; c++) {
            if (c > 0)
                fputc(',', af.f);
            if (s && c == col[WS_GRADE]) {
                fprintf(af.f, "%d", s->status == SUB_ERROR ? 0 : s->score);
            } else if (s && c == col[WS_MODIFIED]) {
                fputs(modified, af.f);
            } else if (s && c == col[WS_FEEDBACK]) {
                char *text = moodle_feedback(b, s), *html = gr_html_text(text);
                char *cell = merge_feedback(b->lab->name, ws_cell(&t, r, c), html);
                gr_write_csv_cell(af.f, cell);
                free(cell);
                free(html);
                free(text);
            } else if (strcmp(ws_cell(&t, r, c), "-") == 0) {
                fputc('-', af.f); /* Moodle's "none", not a formula */
            } else {
                gr_write_csv_cell(af.f, ws_cell(&t, r, c));
            }
        }
        fputs("\r\n", af.f);
    }
    if (rc == 0)
        rc = atomic_file_commit(&af, err);
    /* The batch's students it has no row for: not imported. */
    int missing = 0;
    char *who = NULL;
    for (int k = 0; rc == 0 && k < b->nsubs; k++)
        if (!used[k] && b->subs[k].status != SUB_MISSING && !b->subs[k].team && missing++ < 5) {
            char *w = gr_asprintf("%s%s%s", who ? who : "", who ? ", " : "", b->subs[k].id);
            free(who);
            who = w;
        }
    if (rc == 0 && missing > 0) {
        rc = 2;
        lab_errorf(err, "%d graded student%s %s no row in the worksheet %s (%s%s), so no grade "
                   "there: not among the assignment's participants?", missing,
                   missing > 1 ? "s" : "", missing > 1 ? "have" : "has", path, who,
                   missing > 5 ? ", ..." : "");
    }
    if (rc == 1)
        unlink(b->lms); /* an earlier run's, which would look current */
    free(who);
    free(used);
    free(sub_of);
    free(prefix);
    free_sheet(&t);
    return rc;
}

int write_lms(const batch *b, lab_error *err)
{
    int canvas = strcmp(b->o->lms, "canvas") == 0;
    /* A merge that lacks a shard's reports: those students would import as
     * 0, not for anything they did. */
    int unmerged = 0;
    const char *first = NULL;
    for (int k = 0; k < b->nsubs; k++)
        if (b->subs[k].unmerged && unmerged++ == 0)
            first = b->subs[k].id;
    if (unmerged > 0) {
        char *shards = missing_shards(b), *which = shards ? gr_asprintf("shard %s", shards)
                                                         : gr_asprintf("their shard");
        lab_errorf(err, "%d submission%s (%s%s) %s no report: %s has not run, or not finished. "
                   "A file for %s's import now would give them 0. Run %s (the others resume), "
                   "then merge again",
                   unmerged, unmerged > 1 ? "s" : "", first, unmerged > 1 ? ", ..." : "",
                   unmerged > 1 ? "have" : "has", which, b->o->lms,
                   shards ? "it with --shard K/N" : "every shard");
        free(shards);
        free(which);
        unlink(b->lms); /* an earlier run's, which would look current */
        return 1;
    }
    /* Canvas's anonymous download names each student by an anonymous id:
     * its import finds a student by Canvas user id, SIS ids or name
     * (GradebookImporter#process_student), none of which that is, and
     * takes no grade for an assignment whose anonymous submissions are
     * unposted (#gradeable?). No file beats one that imports nothing. */
    for (int k = 0; canvas && k < b->nsubs; k++)
        if (strncmp(b->subs[k].id, "anon_", 5) == 0) {
            lab_errorf(err, "the submissions are Canvas's anonymous download (%s, ...): "
                       "Canvas's gradebook import can match no row of anonymous ids to a "
                       "student, nor grade an assignment whose anonymous submissions are not "
                       "posted. Each anonymous id's score is in %s; enter them in "
                       "SpeedGrader, or grade a download made with anonymous grading off",
                       b->subs[k].id, b->csv);
            unlink(b->lms); /* an earlier run's, which would look current */
            return 1;
        }
    if (strcmp(b->o->lms, "gradescope") == 0)
        return write_gradescope_upload(b, err);
    if (!canvas && b->o->lms_worksheet)
        return write_worksheet(b, err);
    int canvas_ids = canvas && b->from == GR_FROM_CANVAS;
    int worksheet = !canvas && b->from == GR_FROM_MOODLE;
    atomic_file af;
    if (atomic_file_open(&af, b->lms, err) != 0)
        return -1;
    char *column = canvas && b->o->lms_assignment
                       ? gr_asprintf("%s", b->o->lms_assignment)
                       : gr_asprintf("%s (%s)", b->lab->name, b->lab->title ? b->lab->title : "");
    if (canvas)
        fputs("Student,ID,SIS User ID,SIS Login ID,Section,", af.f);
    else
        fputs(worksheet ? "Identifier,Full name,Grade,Maximum Grade,Last modified (grade),"
                          "Feedback comments\r\n"
                        : "Username,",
              af.f);
    /* The worksheet's time of grading: Moodle's import (importgradeslib.php)
     * requires the column and reads it with PHP's strtotime; a grade in
     * Moodle newer than it is kept (an empty one would keep every grade a
     * student already has). ISO 8601 with its offset reads the same
     * everywhere. */
    char modified[40] = "";
    time_t t = time(NULL);
    struct tm tm;
    if (worksheet && gmtime_r(&t, &tm))
        strftime(modified, sizeof modified, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    if (!worksheet) {
        gr_write_csv_cell(af.f, column);
        fputs(canvas ? "\r\n" : ",Feedback\r\n", af.f);
    }
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        const char *name = s->name ? s->name : s->import_name;
        if (s->team)
            continue; /* a group's: its members have their rows */
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
        if (worksheet)
            fprintf(af.f, ",%d,%s", grader_lab_points(b->lab), modified);
        if (!canvas) {
            /* Moodle shows its feedback as HTML (FORMAT_HTML); every row
             * has some, so a worksheet never blanks a comment with an empty
             * cell */
            fputc(',', af.f);
            char *why = moodle_feedback(b, s);
            gr_write_csv_html_cell(af.f, why);
            free(why);
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

/* Each test of the rubric over the submissions that built (a test
 * SKIPPED, a GPU test where there is none, was not failed). */
typedef struct test_tally {
    int built;
    int *passed, *failed, *skipped; /* one per test, in rubric order */
    double *points;                 /* points earned, summed */
} test_tally;

static test_tally tally_tests(const batch *b)
{
    int n = b->lab->ntests;
    test_tally t = {0, xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(int)),
                    xcalloc((size_t)n, sizeof(int)), xcalloc((size_t)n, sizeof(double))};
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        /* each submission once: a member scored on a groupmate's is not one */
        if (s->status != SUB_GRADED || !s->passed || s->group_of)
            continue;
        t.built++;
        for (int i = 0; i < n; i++) {
            t.passed[i] += s->passed[i] == 1;
            t.failed[i] += s->passed[i] == 0;
            t.skipped[i] += s->passed[i] < 0;
            t.points[i] += s->points[i];
        }
    }
    return t;
}

static void free_tally(test_tally *t)
{
    free(t->passed), free(t->failed), free(t->skipped), free(t->points);
}

/*
 * Every test of the rubric, over the submissions that built: how many
 * passed it, did not, or had it SKIPPED, and its mean points, in
 * <json_dir>/per-test.csv (CRLF, as the gradebook), and the share that
 * passed each as a plot, per-test.{dat,gp,png}; says where. The summary
 * names the five most failed; this is the whole table.
 */
static void write_per_test(const batch *b, const test_tally *t)
{
    const grader_lab *lab = b->lab;
    int n = lab->ntests, built = t->built;
    const int *passed = t->passed, *failed = t->failed, *skipped = t->skipped;
    const double *points = t->points;
    double *x = xcalloc((size_t)n, sizeof *x), *share = xcalloc((size_t)n, sizeof *share);
    char *stem = b->o->shard_n > 0 ? gr_asprintf("%s/per-test.shard-%d-of-%d", b->json_dir,
                                                 b->o->shard_k, b->o->shard_n)
                                    : gr_asprintf("%s/per-test", b->json_dir);
    char *csv = gr_asprintf("%s.csv", stem);
    atomic_file af;
    lab_error err;
    int rc = atomic_file_open(&af, csv, &err);
    if (rc == 0) {
        fputs("test,title,max_points,passed,failed,skipped,mean_points\r\n", af.f);
        for (int i = 0; i < n; i++) {
            gr_write_csv_cell(af.f, lab->tests[i].name);
            fputc(',', af.f);
            gr_write_csv_cell(af.f, lab->tests[i].title ? lab->tests[i].title : "");
            fprintf(af.f, ",%d,%d,%d,%d,%.2f\r\n", lab->tests[i].points, passed[i], failed[i],
                    skipped[i], built ? points[i] / built : 0.0);
        }
        rc = atomic_file_commit(&af, &err);
    }
    if (rc == 0)
        printf("Per test:  %s, every test's passes and failures over the %d that built\n", csv,
               built);
    else
        printf("Per test:  not written: %s\n", err.msg);
    int m = 0; /* the tests that ran somewhere: a share of those that ran them */
    for (int i = 0; i < n; i++)
        if (passed[i] + failed[i] > 0) {
            x[m] = i + 1;
            share[m++] = 100.0 * passed[i] / (passed[i] + failed[i]);
        }
    char *title = gr_asprintf("%s: each test's share of passes, over the %d that built",
                              lab->name, built);
    plot *p = m > 0 ? plot_new(stem, title, "test (its row in per-test.csv)",
                               "submissions that passed it (%)", &err) : NULL;
    rc = p ? plot_add_series(p, NULL, x, share, (size_t)m, &err) : -1;
    if (rc == 0)
        rc = plot_set_marks(p, PLOT_MARKS_ALL, &err);
    if (rc == 0)
        rc = plot_set_xrange(p, 0.5, n + 0.5, &err);
    if (rc == 0)
        rc = plot_set_yrange(p, 0, 105, &err);
    if (rc == 0)
        rc = plot_render(p, NULL, &err);
    if (rc == 0)
        printf("           %s.png (and .gp, .dat), the share that passed each\n", stem);
    else if (m > 0 && rc == PLOT_NO_GNUPLOT)
        printf("           its plot not drawn, gnuplot is missing; gnuplot %s.gp draws it\n",
               stem);
    else if (m > 0)
        printf("           its plot not drawn: %s\n", err.msg);
    plot_free(p);
    free(title), free(stem), free(csv);
    free(x), free(share);
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
static void print_most_failed(const batch *b, const test_tally *t)
{
    const grader_lab *lab = b->lab;
    int *failed = xcalloc((size_t)lab->ntests, sizeof *failed), built = t->built, name_w = 0;
    memcpy(failed, t->failed, (size_t)lab->ntests * sizeof *failed); /* zeroed as shown */
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

int count_refused(const batch *b)
{
    int n = 0;
    for (int k = 0; k < b->nskipped; k++)
        n += b->skipped[k].refused;
    return n;
}

int count_attention(const batch *b, int *look)
{
    int n[LOOK_KINDS] = {0};
    for (int k = 0; k < b->nskipped; k++) {
        n[0] += b->skipped[k].refused;
        n[1] += !b->skipped[k].refused && !b->skipped[k].ignored;
    }
    for (int k = 0; k < b->nsubs; k++) {
        n[2] += b->subs[k].status == SUB_MISSING;
        n[3] += b->subs[k].status == SUB_ERROR;
        n[4] += b->subs[k].team && !b->subs[k].group;
    }
    int all = 0;
    for (int i = 0; i < LOOK_KINDS; i++) {
        all += n[i];
        if (look)
            look[i] = n[i];
    }
    return all;
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

/* What a list of the summary says of a submission, "" for its id alone;
 * NULL leaves it out. */
typedef const char *(*list_detail)(const submission *s);
static const char *error_of(const submission *s)
{
    return s->status == SUB_ERROR ? (s->error ? s->error : "") : NULL;
}
static const char *build_failed_of(const submission *s)
{
    return s->status == SUB_BUILD_FAILED ? "" : NULL;
}
static const char *note_of(const submission *s)
{
    return s->note && s->status != SUB_ERROR ? s->note : NULL;
}
static const char *missing_of(const submission *s)
{
    return s->status == SUB_MISSING ? (s->name ? s->name : "") : NULL;
}
static const char *group_of_of(const submission *s)
{
    return s->group_of && s->status != SUB_MISSING ? s->group_of : NULL;
}
static const char *group_several_of(const submission *s)
{
    return s->group_several ? s->group : NULL;
}
static const char *off_roster_of(const submission *s)
{
    return s->on_roster ? NULL : "";
}
static const char *team_of(const submission *s)
{
    return s->team && s->group ? s->group : NULL;
}
static const char *team_alone_of(const submission *s)
{
    return s->team && !s->group ? (s->import_name ? s->import_name : "") : NULL;
}

/* The submissions detail picks, under title, each id cleaned for a
 * terminal; nothing when it picks none. */
static void print_list(const batch *b, const char *title, list_detail detail, int w)
{
    int listed = 0;
    for (int k = 0; k < b->nsubs; k++) {
        const char *d = detail(&b->subs[k]);
        if (!d)
            continue;
        if (listed++ == 0)
            printf("\n%s:\n", title);
        char *id = gr_clean_line(b->subs[k].id), *what = gr_clean_line(d);
        if (*what)
            printf("  %-*s  %s\n", w, id, what);
        else
            printf("  %s\n", id);
        free(id);
        free(what);
    }
}

void print_summary(const batch *b, const char *gradebook_error, const char *lms_refused,
                   const char *lms_note)
{
    int resumed = 0, errors = 0, resumed_errors = 0, build_failed = 0, n = 0, with_skips = 0;
    int reweighted = 0, late = 0, late_points = 0;
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
        reweighted += s->status != SUB_ERROR && s->skipped > 0 && s->reweighted;
        late += s->late == 1;
        late_points += s->status != SUB_ERROR ? s->late_points : 0;
        missing += s->status == SUB_MISSING;
        not_on_roster += !s->on_roster;
        if (s->status != SUB_ERROR && s->status != SUB_MISSING && !s->team) {
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
    if (late > 0 && b->o->late_penalty > 0)
        printf("  %-9s %6d  marked late by %s: --late-penalty %d%% took %d points in all\n",
               "late", late, gr_from_name(b->from, 1), b->o->late_penalty, late_points);
    else if (b->o->late_penalty > 0 && b->from != GR_FROM_CANVAS)
        printf("  %-9s %6s  --late-penalty %d%%: nothing taken, a %s layout marks no work "
               "late (only Canvas's download does)\n", "late", "-", b->o->late_penalty,
               gr_from_name(b->from, 0));
    else if (late > 0)
        printf("  %-9s %6d  marked late by %s (the gradebook's late column; --late-penalty "
               "P takes P %% of their scores)\n", "late", late, gr_from_name(b->from, 1));
    if (with_skips > 0 && reweighted == 0)
        printf("  %-9s %6d  had tests SKIPPED, which earn nothing: this machine cannot run "
               "them (no GPU?); --reweight-skipped scores out of the points graded\n",
               "SKIPPED", with_skips);
    else if (with_skips > 0)
        printf("  %-9s %6d  had tests SKIPPED (this machine cannot run them: no GPU?); %d "
               "of them scored out of the points graded, scaled to the rubric's "
               "(--reweight-skipped)%s\n", "SKIPPED", with_skips, reweighted,
               reweighted < with_skips ? ", the others not: their reports were graded "
                                         "without it (--force grades them again)" : "");
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
    print_list(b, "Errors (the report says what happened)", error_of, w);
    /* Each student with a 0 that may not be the work's, by name, as the
     * errors are (an empty file, a roster student who sent nothing), and
     * each graded under the lab's file name. */
    print_list(b, "Did not build, or a file was missing (score 0; each scorecard's build log "
                  "says why)", build_failed_of, w);
    print_list(b, "Graded under the lab's file name (each scorecard says so; the score stands)",
               note_of, w);
    print_list(b, "Scored on a groupmate's submission, the group's one (--groups; each "
                  "scorecard says so)", group_of_of, w);
    print_list(b, "In a group with more than one submission (--groups): each graded on their "
                  "own", group_several_of, w);
    print_list(b, "A group's submission (a Moodle team assignment): its members have its "
                  "score, each in their own row", team_of, w);
    print_list(b, "A group's submission given to no member (the groups' file has no group "
                  "of its name, or more than one: the run said which): graded, in no LMS file",
               team_alone_of, w);
    print_list(b, "Missing (on the roster or in a group, no submission; score 0)", missing_of, w);
    print_list(b, "Not on the roster (graded all the same)", off_roster_of, w);
    test_tally tally = tally_tests(b);
    print_most_failed(b, &tally);
    int look[LOOK_KINDS];
    if (count_attention(b, look) > 0) {
        static const char *const what[LOOK_KINDS] = {
            "refused", "not recognised as submissions", "on the roster with no submission",
            "not graded", "group submissions given to no member"};
        printf("\nNeeds your eye (exit status 1):");
        for (int i = 0, m = 0; i < LOOK_KINDS; i++)
            if (look[i] > 0)
                printf("%s %d %s", m++ ? "," : "", look[i], what[i]);
        printf("; each is listed above\n");
    }
    putchar('\n');
    if (gradebook_error)
        printf("Gradebook: not written: %s\n", gradebook_error);
    else
        printf("Gradebook: %s\n", b->csv);
    if (b->lms && !gradebook_error && lms_refused) {
        char *why = gr_clean_line(lms_refused);
        printf("For LMS:   not written: %s\n", why);
        free(why);
    } else if (b->lms && !gradebook_error) {
        if (strcmp(b->o->lms, "gradescope") == 0)
            printf("For LMS:   %s (Gradescope: upload it as the assignment's autograder, then "
                   "\"Regrade All Submissions\")\n", b->lms);
        else
            printf("For LMS:   %s (%s's %s)\n", b->lms, b->o->lms,
                   b->o->lms_worksheet ? "\"Upload grading worksheet\", filled in from the one "
                                         "downloaded"
                                       : "grade import");
        if (lms_note) {
            char *why = gr_clean_line(lms_note);
            printf("           but: %s\n", why);
            free(why);
        }
    }
    printf("Reports:   %s/<id>.json\n", b->json_dir);
    printf("For each student: %s/<id>.txt, the scorecard to return\n", b->json_dir);
    if (b->from == GR_FROM_MOODLE && !gradebook_error) {
        char *zip = gr_asprintf("%s/feedback-moodle.zip", b->json_dir);
        lab_error zerr;
        int n = write_moodle_feedback(b, zip, &zerr);
        if (n >= 0)
            printf("For Moodle: %s, scorecards as feedback files: %d (the assignment's "
                   "\"Upload multiple feedback files in a zip\")\n", zip, n);
        else
            printf("For Moodle: feedback files not written: %s\n", zerr.msg);
        free(zip);
    }
    write_per_test(b, &tally);
    free_tally(&tally);
    draw_histogram(b, scores, n, max);
    free(scores);
}

