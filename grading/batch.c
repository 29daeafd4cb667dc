/*
 * batch.c - grades a folder of submissions, each in a child process of its
 * own (see batch.h): the run, from the options to the summary. Finding the
 * submissions is batch_find.c, their files batch_files.c, the groups
 * batch_groups.c, grading them batch_jobs.c, writing the gradebook and the
 * summary batch_out.c, Gradescope's upload batch_gradescope.c; batch_state.h
 * is what they share. The calls go one way: batch.c calls the others (but
 * batch_gradescope.c), batch_jobs.c calls batch_find.c and batch_files.c,
 * batch_groups.c and batch_out.c call batch_find.c (its CSV reader: the
 * groups file, Moodle's worksheet), batch_out.c calls batch_gradescope.c,
 * batch_find.c calls batch_files.c, and batch_files.c and
 * batch_gradescope.c call none of them.
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
 * the build folder to gr_grade (batch_jobs.c's make_work), so that the
 * pristine tree a killed child leaves behind is removed with that folder.
 *
 * Not for: grading one submission (grade.c) or formatting a report
 * (report.c); this file runs gr_grade and reads what gr_write_report wrote.
 */
#define _GNU_SOURCE
#include "batch_state.h"

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
    if (gr_import_lms(b->download, b->from, b->team && b->from == GR_FROM_MOODLE, class,
                      &b->import, err) != 0) {
        free(class);
        return -1;
    }
    free(b->dir);
    b->dir = class;
    /* A team assignment's download read as participants' would give group
     * 42's score to participant 42. */
    for (int i = 0; b->from == GR_FROM_MOODLE && !b->team && i < b->import.nskipped; i++)
        if (gr_moodle_default_group(b->import.skipped[i])) {
            char *shown = gr_clean_line(b->import.skipped[i]);
            lab_errorf(err, "%s: %s is a Moodle team assignment's default group's entry: its "
                            "download names the groups, not the participants; give the "
                            "assignment's grading worksheet (--lms-worksheet FILE, or --groups "
                            "FILE), whose Group column says who is in which group",
                       b->download, shown);
            free(shown);
            return -1;
        }
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
                  (s->archive ? gr_unpack_isolated(s->source, entry_name(s), dir,
                                                   b->lab->student_files, &err)
                              : take_from_folder(s->source, dir, b->lab->student_files, &err));
        if (bad) {
            gr_remove_tree(dir);
            free(dir);
            continue;
        }
        free(accept_near_names(dir, b->lab->student_files)); /* compared as graded */
        dirs[n] = dir;
        in[n].id = s->id;
        in[n].dir = dir;
        n++;
    }
    char *skeleton = gr_asprintf("%s/labs/%s", b->o->root, b->lab->name);
    char *work = gr_asprintf("%s/similarity", b->work);
    char *out = gr_asprintf("%s/similarity.log", b->json_dir);
    fflush(stdout);
    if (gr_similarity(in, n, b->lab->student_files, skeleton, b->o->similarity,
                      b->o->similarity_common, work, out, stdout, &err) != 0)
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
        b->lms = gr_asprintf("%s/lms-%s.%s", b->json_dir, o->lms,
                             strcmp(o->lms, "gradescope") == 0 ? "zip" : "csv");
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
    gr_sandbox_warn(gr_sandbox_get(readable), GR_SANDBOX_SAY_ALL);
    if (make_batch_work(b, err) != 0)
        return -1;
    groups_team(b);
    if (read_download(b, err) != 0 || list_submissions(b, err) != 0 ||
        apply_groups(b, err) != 0) {
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

/* The batch was stopped by signal sig, its children already killed: no
 * gradebook, no summary; the work folder goes, the reports saved stay for
 * the next run, and the batch ends by that signal, as a program stopped by
 * it does. */
static void stop_batch(batch *b, int sig)
{
    gr_remove_tree(b->work);
    fprintf(stderr,
            "grader: stopped by SIG%s: %d of %d submissions graded or resumed, no gradebook "
            "written; the same command grades the rest and keeps what was graded\n",
            sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", b->done, b->nsubs);
    free_batch(b);
    fflush(NULL);
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig);
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
    int stopped = grade_all(&b, jobs);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    while (waitpid(-1, NULL, WNOHANG) > 0) /* strays killed but not yet collected */
        ;
    free(jobs);
    gr_jobres_fini();
    fill_groups(&b);
    if (stopped)
        stop_batch(&b, stopped);

    lab_error book_err, lms_err;
    int book = write_gradebook(&b, &book_err), lms = 0;
    if (book == 0 && b.lms && (lms = write_lms(&b, &lms_err)) < 0) {
        book = -1;
        book_err = lms_err;
    }
    print_summary(&b, book == 0 ? NULL : book_err.msg, lms == 1 ? lms_err.msg : NULL,
                  lms == 2 ? lms_err.msg : NULL);
    if (o->similarity > 0)
        report_similarity(&b);
    gr_remove_tree(b.work);
    int look = count_attention(&b, NULL);
    free_batch(&b);
    if (book != 0) {
        lab_errorf(err, "the gradebook: %s", book_err.msg);
        return -1;
    }
    return look > 0 || lms > 0 ? 1 : 0;
}

