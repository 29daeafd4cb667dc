/*
 * batch_gradescope.c - a batch's scores as a Gradescope upload: Gradescope
 * takes a programming assignment's scores only from its autograder, so
 * --lms gradescope writes one (json_dir/lms-gradescope.zip) that runs no
 * submission and gives each the score this batch gave it.
 *
 * Gradescope unpacks the zip into /autograder/source, runs its setup.sh once
 * and, for every submission, run_autograder, which writes
 * /autograder/results/results.json; /autograder/submission_metadata.json
 * says which submission it is: its "id" and its "users", each with an
 * "email" (gradescope-autograders.readthedocs.io, "Submission Metadata").
 * The zip holds:
 *
 *   setup.sh, run_autograder   grading/gradescope/replay/'s, as they are
 *   batch.txt                  the lab, when the batch was written, how many
 *   scores/<k>.json            row k's results.json: its score, each test's
 *                              points, its scorecard as the output
 *   keys/submission-<n>        "k": Gradescope's submission n was graded as
 *                              row k (a batch of a Gradescope export)
 *   keys/graded-<hex>          "n": the student of that email, in lower case
 *                              and hex (a file name whatever its bytes), was
 *                              a submitter of submission n: a submission's
 *                              submitters now must all have been its then
 *   keys/email-<hex>           "k" and, on a line of its own, row k's score
 *                              and points: that email's student is row k (a
 *                              batch whose ids are email addresses); a
 *                              submission is given a row only if every
 *                              submitter has one, all with the same points
 *   keys/apart-<key>           empty: two rows gave <key> with different
 *                              points, so it is not in the zip
 *
 * A row with neither key is left out and said; a batch with no key at all
 * is refused; a key two rows give with different points is left out, and
 * said.
 */
#define _GNU_SOURCE
#include "batch_state.h"

#include <archive.h>
#include <archive_entry.h>

#include "spawn.h"

int zip_add(struct archive *a, const char *path, const char *text, size_t len, int mode,
            lab_error *err)
{
    struct archive_entry *e = archive_entry_new();
    if (!e)
        out_of_memory();
    archive_entry_set_pathname_utf8(e, path);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, (mode_t)mode);
    archive_entry_set_size(e, (la_int64_t)len);
    archive_entry_set_mtime(e, time(NULL), 0);
    int rc = 0;
    if (archive_write_header(a, e) != ARCHIVE_OK ||
        archive_write_data(a, text, len) != (la_ssize_t)len)
        rc = lab_errorf(err, "%s: cannot write it into the zip: %s", path, archive_error_string(a));
    archive_entry_free(e);
    return rc;
}

/* Where the first line of text says "(graded: ID)", ID the student id a
 * Gradescope export's folder was copied to, it says the submission instead:
 * what the students of a group submission share, and know it by. */
static void name_submission(char **text, size_t *len, const char *id, const char *number)
{
    char *was = gr_asprintf("(graded: %s)", id), *at = strstr(*text, was);
    const char *eol = strchr(*text, '\n');
    if (at && (!eol || at < eol)) {
        char *now = gr_asprintf("%.*s(graded: submission %s)%s", (int)(at - *text), *text, number,
                                at + strlen(was));
        free(*text);
        *text = now;
        *len = strlen(now);
    }
    free(was);
}

/* Row k's results.json, in Gradescope's results format (the fields
 * report.c's gradescope format writes): the score the gradebook has, each
 * test's points, and the student's scorecard (number: the Gradescope
 * submission it was graded on, or NULL). */
static char *results_of(const batch *b, const submission *s, const char *number)
{
    char *card = gr_asprintf("%s/%s.txt", b->json_dir, s->id);
    size_t cap = 0;
    char *text = gr_read_file(card, 16u << 20, &cap);
    free(card);
    if (text && number && strlen(text) == cap)
        name_submission(&text, &cap, s->id, number);
    json_t *root = json_object(), *tests = json_array();
    json_object_set_new(root, "score", json_integer(s->status == SUB_ERROR ? 0 : s->score));
    json_object_set_new(root, "max_score", json_integer(s->max_score));
    json_t *out = text ? json_stringn(text, cap) : NULL;
    if (!out) { /* no scorecard, or not UTF-8 */
        char *shown = text ? ascii_text(text)
                           : gr_asprintf("%s: %d of %d points", b->lab->name,
                                         s->status == SUB_ERROR ? 0 : s->score, s->max_score);
        out = json_string(shown);
        free(shown);
    }
    json_object_set_new(root, "output", out);
    json_object_set_new(root, "output_format", json_string("text"));
    json_object_set_new(root, "visibility", json_string("visible"));
    for (int i = 0; s->points && s->passed && i < b->lab->ntests; i++) {
        const grader_test *t = &b->lab->tests[i];
        json_t *o = json_object();
        char *name = gr_asprintf("%s: %s", t->name, t->title ? t->title : "");
        json_object_set_new(o, "name", json_string(name));
        free(name);
        json_object_set_new(o, "score", json_integer(s->points[i]));
        json_object_set_new(o, "max_score", json_integer(t->points));
        json_object_set_new(o, "status", json_string(s->passed[i] == 1 ? "passed" : "failed"));
        json_object_set_new(o, "visibility", json_string("visible"));
        json_array_append_new(tests, o);
    }
    json_object_set_new(root, "tests", tests);
    char *dump = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    free(text);
    if (!dump)
        out_of_memory();
    return dump;
}

/* s in lower case (ASCII letters) and then in hex, as run_autograder writes
 * an email with od. */
static char *email_key(const char *s)
{
    size_t n = strlen(s);
    char *hex = xcalloc(2 * n + 1, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c - 'A' + 'a');
        snprintf(hex + 2 * i, 3, "%02x", c);
    }
    return hex;
}

/* A row's email address: the export's, or its id where that is one. */
static const char *email_of(const batch *b, const submission *s)
{
    for (int i = 0; b->import.emails && i < b->import.n; i++)
        if (strcmp(b->import.ids[i], s->id) == 0 && b->import.emails[i][0])
            return b->import.emails[i];
    const char *at = strchr(s->id, '@');
    return at && at != s->id && at[1] && !strchr(at + 1, '@') ? s->id : NULL;
}

/* The number of the Gradescope submission the row was graded on, or NULL. */
static const char *submission_of(const batch *b, const submission *s)
{
    const char *id = s->group_of ? s->group_of : s->id;
    for (int i = 0; b->import.submissions && i < b->import.n; i++)
        if (strcmp(b->import.ids[i], id) == 0 && b->import.submissions[i][0])
            return b->import.submissions[i];
    return NULL;
}

typedef struct key {
    char *name;  /* keys/<name> */
    int row;     /* the row it gives; -1: two rows that disagree */
    char *value; /* for keys/graded-*: the submission number */
    char *label; /* what it is, for the summary: "submission 9002", an email */
} key;

static int find_key(const key *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return i;
    return -1;
}

/* A row's score and each test's points, as "score:p1,p2,...": two rows of
 * one submission (a group's members) agree when theirs are the same; their
 * scorecards differ in whose they are. */
static char *verdict_of(const batch *b, const submission *s)
{
    char *v = gr_asprintf("%d:", s->status == SUB_ERROR ? 0 : s->score);
    for (int i = 0; s->points && i < b->lab->ntests; i++) {
        char *w = gr_asprintf("%s%s%d", v, i ? "," : "", s->points[i]);
        free(v);
        v = w;
    }
    return v;
}

/* Adds name -> row, or -> value (keys/graded-*, row the row it is of); a
 * second row for it makes it -1 unless the two have the same verdict (or
 * value): the first one's results stand for both. */
static key *add_key(key *v, int *n, int *cap, char *name, int row, const char *value,
                    const char *label, char *const *verdicts)
{
    int i = find_key(v, *n, name);
    if (i >= 0) {
        if (v[i].row >= 0 && (value ? strcmp(v[i].value, value) != 0
                                    : strcmp(verdicts[v[i].row], verdicts[row]) != 0))
            v[i].row = -1;
        free(name);
        return v;
    }
    v = grow(v, *n, cap, sizeof *v);
    v[(*n)++] = (key){name, row, value ? gr_asprintf("%s", value) : NULL,
                      gr_asprintf("%s", label)};
    return v;
}

/* The file of name in the course's grading/gradescope/replay, whole. */
static char *replay_file(const batch *b, const char *name, size_t *len, lab_error *err)
{
    char *path = gr_asprintf("%s/grading/gradescope/replay/%s", b->o->root, name);
    char *text = gr_read_file(path, 1u << 20, len);
    if (!text || *len == 0) {
        lab_errorf(err, "%s: cannot read it", path);
        free(text);
        text = NULL;
    }
    free(path);
    return text;
}

int write_gradescope_upload(const batch *b, lab_error *err)
{
    char **results = xcalloc((size_t)b->nsubs, sizeof *results);
    char **verdicts = xcalloc((size_t)b->nsubs, sizeof *verdicts);
    key *keys = NULL;
    int nkeys = 0, cap = 0, rows = 0, left_out = 0, rc = 0;
    const char *first_left = NULL;
    for (int k = 0; k < b->nsubs; k++) {
        const submission *s = &b->subs[k];
        if (s->team || s->status == SUB_MISSING || s->refused || !s->points)
            continue; /* no submission of its own to give a score to */
        const char *number = submission_of(b, s), *email = email_of(b, s);
        if (!number && !email) {
            if (left_out++ == 0)
                first_left = s->id;
            continue;
        }
        results[k] = results_of(b, s, number);
        verdicts[k] = verdict_of(b, s);
        rows++;
        char *hex = email ? email_key(email) : NULL;
        char *which = number ? gr_asprintf("submission %s", number) : NULL;
        if (number)
            keys = add_key(keys, &nkeys, &cap, gr_asprintf("submission-%s", number), k, NULL,
                           which, verdicts);
        if (number && hex)
            keys = add_key(keys, &nkeys, &cap, gr_asprintf("graded-%s", hex), k, number, email,
                           verdicts);
        else if (hex)
            keys = add_key(keys, &nkeys, &cap, gr_asprintf("email-%s", hex), k, NULL, email,
                           verdicts);
        free(which);
        free(hex);
    }
    int usable = 0, torn = 0;
    const char *first_torn = NULL;
    for (int i = 0; i < nkeys; i++)
        if (keys[i].row >= 0)
            usable++;
        else if (torn++ == 0)
            first_torn = keys[i].label;
    if (usable == 0) {
        unlink(b->lms); /* an earlier run's, which would look current */
        if (rows > 0)
            lab_errorf(err, "every student's submission number or email address is another "
                            "student's too, with another score: nothing to upload");
        else
            lab_errorf(err, "Gradescope's autograder knows a submission by its number and its "
                            "submitters' email addresses, and this batch has neither for any "
                            "student: a batch of Gradescope's \"Export Submissions\" has both, "
                            "one of folders named by email address the second");
        rc = 1;
        goto done;
    }
    char *tmp = gr_asprintf("%s.tmp", b->lms);
    struct archive *a = archive_write_new();
    if (!a || archive_write_set_format_zip(a) != ARCHIVE_OK ||
        archive_write_open_filename(a, tmp) != ARCHIVE_OK)
        rc = lab_errorf(err, "%s: cannot write: %s", tmp, a ? archive_error_string(a) : "");
    static const char *const scripts[] = {"setup.sh", "run_autograder"};
    for (int i = 0; rc == 0 && i < 2; i++) {
        size_t len = 0;
        char *text = replay_file(b, scripts[i], &len, err);
        rc = text ? zip_add(a, scripts[i], text, len, 0755, err) : -1;
        free(text);
    }
    char when[40] = "";
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
    char *about = gr_asprintf("%s, graded %s by ./grader --batch: %d student%s\n",
                              b->lab->name, when, rows, rows == 1 ? "" : "s");
    if (rc == 0)
        rc = zip_add(a, "batch.txt", about, strlen(about), 0644, err);
    free(about);
    for (int k = 0; rc == 0 && k < b->nsubs; k++) {
        int used = 0; /* a key gives it */
        for (int i = 0; i < nkeys && !used; i++)
            used = keys[i].row == k && !keys[i].value;
        if (!used)
            continue;
        char *path = gr_asprintf("scores/%d.json", k);
        rc = zip_add(a, path, results[k], strlen(results[k]), 0644, err);
        free(path);
    }
    for (int i = 0; rc == 0 && i < nkeys; i++) {
        if (keys[i].row < 0) { /* said so to the student, not "not in the batch" */
            char *path = gr_asprintf("keys/apart-%s", keys[i].name);
            rc = zip_add(a, path, "", 0, 0644, err);
            free(path);
            continue;
        }
        char *path = gr_asprintf("keys/%s", keys[i].name);
        char *text = keys[i].value ? gr_asprintf("%s\n", keys[i].value)
                     : strncmp(keys[i].name, "email-", 6) == 0
                         ? gr_asprintf("%d\n%s\n", keys[i].row, verdicts[keys[i].row])
                         : gr_asprintf("%d\n", keys[i].row);
        rc = zip_add(a, path, text, strlen(text), 0644, err);
        free(text);
        free(path);
    }
    if (a && archive_write_close(a) != ARCHIVE_OK && rc == 0)
        rc = lab_errorf(err, "%s: cannot write: %s", tmp, archive_error_string(a));
    if (a)
        archive_write_free(a);
    if (rc == 0 && rename(tmp, b->lms) != 0)
        rc = lab_errorf(err, "%s: cannot rename to %s: %s", tmp, b->lms, strerror(errno));
    if (rc != 0) {
        unlink(tmp);
        unlink(b->lms);
        rc = -1;
    }
    free(tmp);
    if (rc == 0 && (left_out > 0 || torn > 0)) {
        char *out = left_out == 0 ? gr_asprintf("%s", "")
                    : gr_asprintf("%d student%s (%s%s) %s no email address or Gradescope "
                                  "submission number in this batch: not in it, to grade on "
                                  "Gradescope by hand", left_out, left_out == 1 ? "" : "s",
                                  first_left, left_out > 1 ? ", ..." : "",
                                  left_out == 1 ? "has" : "have");
        char *apart = torn == 0 ? gr_asprintf("%s", "")
                      : gr_asprintf("%s%d student%s or submission%s (%s%s) graded more than "
                                    "once with different points: not in it, to grade on "
                                    "Gradescope by hand", left_out ? "; " : "", torn,
                                    torn == 1 ? "" : "s", torn == 1 ? "" : "s", first_torn,
                                    torn > 1 ? ", ..." : "");
        lab_errorf(err, "%s%s", out, apart);
        free(out);
        free(apart);
        rc = 2;
    }
done:
    for (int k = 0; k < b->nsubs; k++) {
        free(results[k]);
        free(verdicts[k]);
    }
    free(results);
    free(verdicts);
    for (int i = 0; i < nkeys; i++) {
        free(keys[i].name);
        free(keys[i].value);
        free(keys[i].label);
    }
    free(keys);
    return rc;
}
