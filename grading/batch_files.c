/*
 * batch_files.c - a submission's files: the lab's student files found in a
 * folder (at any depth, as an archive is searched) and taken from it, a
 * file sent under a near name accepted, and each file's sha256, which a
 * resumed report is checked against. It calls no other batch file.
 */
#define _GNU_SOURCE
#include "batch_state.h"

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
void hash_file(const char *path, char hex[65])
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

/* ---- near names ----------------------------------------------------------------------- */

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
