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
    json_t *late = json_object_get(json_object_get(root, "late_penalty"), "points");
    s->late_points = json_is_integer(late) ? (int)json_integer_value(late) : 0;
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
    json_t *late = json_object_get(json_object_get(root, "late_penalty"), "percent");
    int late_had = json_is_integer(late) ? (int)json_integer_value(late) : 0;
    int late_want = s->late == 1 ? b->o->late_penalty : 0;
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
    if (!why && !b->o->merge && late_had != late_want)
        why = gr_asprintf("its late penalty, %d%%, is not this run's, %d%% (--late-penalty)",
                          late_had, late_want);
    /* A report with tests skipped holds only if its score was re-weighted
     * (or not) as this run's --reweight-skipped says (s as read_report read
     * it). */
    if (!why && !b->o->merge && s->skipped > 0 && s->reweighted != b->o->reweight)
        why = gr_asprintf(s->reweighted ? "its score was re-weighted to the points graded, and "
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
    o.late_penalty = s->late == 1 ? b->o->late_penalty : 0;
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

