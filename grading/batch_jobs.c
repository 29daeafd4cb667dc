/*
 * batch_jobs.c - grading a batch's submissions: the children, each grading
 * one submission in a work folder of its own (up to -j at once, each with
 * its own user id and cgroup: jobres.h); the reports they write, read back,
 * or resumed from an earlier run when nothing they were made from changed;
 * the progress lines.
 */
#define _GNU_SOURCE
#include "batch_state.h"

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
    s->reweighted = json_is_object(json_object_get(root, "reweighted"));
    s->hidden = json_is_true(json_object_get(root, "hidden_inputs"));
    s->score = (int)json_integer_value(score);
    s->max_score = (int)json_integer_value(max);
    s->status = json_is_string(error) ? SUB_ERROR
                : json_is_true(ok)    ? SUB_GRADED
                                      : SUB_BUILD_FAILED;
    free(s->error);
    s->error = json_is_string(error) ? gr_asprintf("%s", json_string_value(error)) : NULL;
    json_t *note = json_object_get(root, "note");
    free(s->note);
    s->note = json_is_string(note) ? gr_asprintf("%s", json_string_value(note)) : NULL;
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

/* Which of wanted name nearly is (gr_near_name: "Lab1.c", "lab1-1.c" for
 * lab1.c), or -1. */
static int near_index(const char *const *wanted, const char *name)
{
    for (int i = 0; wanted[i]; i++)
        if (gr_near_name(name, wanted[i]))
            return i;
    return -1;
}

/* Searches the folder open at fd (rel its path in the submission, "" at the
 * top), taking fd; found[i] gets wanted[i]'s path. */
static int search_folder(int fd, const char *rel, int depth, const char *const *wanted,
                         char **found, char **near, int *entries, lab_error *err)
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
        int w = wanted_index(wanted, name), n = w < 0 ? near_index(wanted, name) : -1;
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
        } else if (n >= 0 && S_ISREG(st.st_mode) && !near[n] && st.st_size <= GR_UNPACK_MAX_FILE) {
            near[n] = path;
            path = NULL;
        } else if (S_ISDIR(st.st_mode) && depth >= FOLDER_MAX_DEPTH) {
            rc = lab_errorf(err, "%s: folders nested more than %d deep", path, FOLDER_MAX_DEPTH);
        } else if (S_ISDIR(st.st_mode)) {
            int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc = sub < 0 ? lab_errorf(err, "%s: cannot open: %s", path, strerror(errno))
                         : search_folder(sub, path, depth + 1, wanted, found, near, entries, err);
        }
        free(path);
    }
    closedir(d);
    return rc;
}

/* found[i]: the path in folder of wanted[i], or NULL where there is none;
 * near[i], of a file named wanted[i] but for case, or NULL; each to be
 * freed. Returns 0, or -1 with the refusal in err. */
static int find_in_folder(const char *folder, const char *const *wanted, char **found,
                          char **near, lab_error *err)
{
    int entries = 0;
    for (int i = 0; wanted[i]; i++)
        found[i] = near[i] = NULL;
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) /* a student reads it: the folder, not its path */
        return lab_errorf(err, "cannot open the folder: %s", strerror(errno));
    return search_folder(fd, "", 0, wanted, found, near, &entries, err);
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
        rc = lab_errorf(err, "%s: cannot copy it: %s", rel, strerror(errno));
    char buf[65536];
    ssize_t n = 0;
    long total = 0;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) > 0 && total <= GR_UNPACK_MAX_FILE) {
        total += n;
        if (write(out, buf, (size_t)n) != n)
            rc = lab_errorf(err, "%s: cannot copy it: %s", rel, strerror(errno));
    }
    if (rc == 0 && (n < 0 || total > GR_UNPACK_MAX_FILE))
        rc = lab_errorf(err, "%s: cannot read it whole", rel);
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot copy it: %s", rel, strerror(errno));
    free(from);
    free(to);
    return rc;
}

/* Writes dest/NAME for each wanted NAME found in folder (find_in_folder). */
int take_from_folder(const char *folder, const char *dest, const char *const *wanted,
                            lab_error *err)
{
    char *found[MAX_WANTED + 1];
    int n = 0;
    while (wanted[n])
        n++;
    if (n > MAX_WANTED)
        return lab_errorf(err, "more than %d student files", MAX_WANTED);
    char *near[MAX_WANTED + 1];
    int rc = find_in_folder(folder, wanted, found, near, err);
    for (int i = 0; i < n; i++) {
        if (rc == 0 && found[i])
            rc = copy_found(folder, found[i], dest, wanted[i], err);
        /* A file named but for case is copied under its own name, for the
         * grader to say "rename it" (grade.c). */
        if (rc == 0 && !found[i] && near[i]) {
            const char *base = strrchr(near[i], '/');
            rc = copy_found(folder, near[i], dest, base ? base + 1 : near[i], err);
        }
        free(found[i]);
        free(near[i]);
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
void hash_submission(const batch *b, submission *s)
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
    char *found[MAX_WANTED + 1] = {0}, *near[MAX_WANTED + 1] = {0};
    lab_error err;
    int refused = n > MAX_WANTED || find_in_folder(s->source, files, found, near, &err) != 0;
    for (int i = 0; i < n; i++) {
        s->hashes[i].name = files[i];
        if (!refused && found[i]) {
            char *path = gr_asprintf("%s/%s", s->source, found[i]);
            hash_file(path, s->hashes[i].sha256);
            free(path);
        }
        if (i <= MAX_WANTED)
            free(found[i]), free(near[i]);
    }
}

/* The grader's version: the course's commit (git), with "+changes" when
 * its files differ from it; GRADER_VERSION when the build set one;
 * "unknown" where neither can be had (a copy without .git). */
char *grader_version(const char *root)
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
char *grader_fingerprint(const batch *b)
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
    /* A report with tests skipped holds only if its score was re-weighted
     * (or not) as this run's --reweight-skipped says. */
    int skipped = 0;
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(root, "tests"), i, t) {
        json_t *status = json_object_get(t, "status");
        skipped += json_is_string(status) && strcmp(json_string_value(status), "skipped") == 0;
    }
    int reweighted = json_is_object(json_object_get(root, "reweighted"));
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
    if (!why && !b->o->merge && skipped > 0 && reweighted != b->o->reweight)
        why = gr_asprintf(reweighted ? "its score was re-weighted to the points graded, and "
                                       "this run has no --reweight-skipped"
                                     : "its score was not re-weighted to the points graded, "
                                       "and this run has --reweight-skipped");
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
    s->unmerged = 1;
    progress(b, s);
}

/* ---- the children ----------------------------------------------------------------------- */

/* In a batch, a student file sent under a near name (gr_near_name:
 * "Lab1.c", "lab1-1.c") is graded as the lab's file, renamed in dir, and
 * said in the note the report and the summary carry; a student's own
 * ./grader still stops at it and says to rename it (grade.c). Returns the
 * note, or NULL. */
char *accept_near_names(const char *dir, const char *const *wanted)
{
    char *note = NULL;
    for (int i = 0; wanted[i]; i++) {
        char *want = gr_asprintf("%s/%s", dir, wanted[i]);
        struct stat st;
        DIR *d = lstat(want, &st) != 0 ? opendir(dir) : NULL;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char *path = gr_asprintf("%s/%s", dir, e->d_name);
            int taken = gr_near_name(e->d_name, wanted[i]) && lstat(path, &st) == 0 &&
                        S_ISREG(st.st_mode) && rename(path, want) == 0;
            free(path);
            if (taken) {
                char *n = gr_asprintf("%s%s%s graded as %s", note ? note : "", note ? "; " : "",
                                      e->d_name, wanted[i]);
                free(note);
                note = n;
                break;
            }
        }
        if (d)
            closedir(d);
        free(want);
    }
    if (note) {
        char *n = gr_asprintf("%s (the lab's file names are exact: use them next time)", note);
        free(note);
        note = n;
    }
    return note;
}

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
    o.reweight = b->o->reweight;
    /* What goes wrong here is written into the student's report: it names
     * the entry, never the instructor's folders nor the work folder. */
    char *unpacked = gr_asprintf("%s/submission", work);
    int bad = mkdir(unpacked, 0755) != 0
                  ? lab_errorf(&err, "cannot create its work folder: %s", strerror(errno))
              : s->archive ? gr_unpack_isolated(s->source, o.label, unpacked,
                                                b->lab->student_files, &err)
                           : take_from_folder(s->source, unpacked, b->lab->student_files, &err);
    if (bad) {
        if (write(fd, err.msg, strlen(err.msg)) < 0)
            _exit(3);
        _exit(s->archive ? 4 : 5);
    }
    o.source_dir = unpacked;
    char *note = accept_near_names(unpacked, b->lab->student_files);
    o.note = note;
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
    free(note);
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

/* ---- stopping ----------------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* Kills every running child and what it started (each child's processes
 * come to this one, the subreaper, and kill_strays ends them with their
 * groups), and removes their work folders and half-written files: what a
 * child had saved stays, for the next run to resume. */
static void stop_jobs(batch *b, job *jobs)
{
    int njobs = b->o->jobs;
    for (int k = 0; k < njobs; k++)
        if (jobs[k].pid > 0)
            kill(jobs[k].pid, SIGKILL);
    for (int k = 0; k < njobs; k++) {
        if (jobs[k].pid <= 0)
            continue;
        waitpid(jobs[k].pid, NULL, 0);
        jobs[k].pid = 0;
        close(jobs[k].fd);
        kill_strays(jobs, njobs);
        gr_jobres_release(k);
        remove_temporaries(b, &b->subs[jobs[k].sub]);
        gr_remove_tree(jobs[k].work);
        free(jobs[k].work);
        jobs[k].work = NULL;
    }
    kill_strays(jobs, njobs);
}

/* Grades or resumes every submission, up to o->jobs children at once. */
int grade_all(batch *b, job *jobs)
{
    int njobs = b->o->jobs, running = 0, next = 0;
    int stops[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction stop = {0}, before[3];
    stop.sa_handler = on_stop; /* no SA_RESTART: the pause below ends at once */
    sigemptyset(&stop.sa_mask);
    stop_signal = 0;
    for (int k = 0; k < 3; k++)
        sigaction(stops[k], &stop, &before[k]);
    while ((next < b->nsubs || running > 0) && !stop_signal) {
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
    int sig = stop_signal;
    if (sig)
        stop_jobs(b, jobs);
    for (int k = 0; k < 3; k++)
        sigaction(stops[k], &before[k], NULL);
    return sig;
}

