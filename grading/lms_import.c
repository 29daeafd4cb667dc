/*
 * lms_import.c - a learning platform's bulk download laid out again as one
 * folder per student id (lms_import.h says which layouts, and how each is
 * named).
 */
#include "lms_import.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grade.h"
#include "unpack.h"

#define COPY_MAX_DEPTH 16
#define COPY_MAX_FILE (16L << 20) /* larger files are not copied: no lab's source is */
#define COPY_MAX_ENTRIES 20000
#define METADATA "submission_metadata.yml"

static const char *const from_names[] = {"auto", "plain", "canvas", "moodle", "gradescope"};
static const char *const from_titles[] = {"auto", "plain", "Canvas", "Moodle", "Gradescope"};

int gr_from_parse(const char *name)
{
    for (int i = 0; i < (int)(sizeof from_names / sizeof *from_names); i++)
        if (strcmp(name, from_names[i]) == 0)
            return i;
    return -1;
}

const char *gr_from_name(gr_from from, int title)
{
    if ((int)from < 0 || (int)from >= (int)(sizeof from_names / sizeof *from_names))
        return "?";
    return title ? from_titles[from] : from_names[from];
}

static int is_hidden(const char *name)
{
    return name[0] == '.' || strcmp(name, "__MACOSX") == 0;
}

/* Reads a run of digits at *p; its length, 0 when none. */
static size_t digits(const char *p)
{
    size_t n = 0;
    while (isdigit((unsigned char)p[n]))
        n++;
    return n;
}

/* ---- the names of the entries ----------------------------------------------------------- */

/* A name's parts, each malloc'd. */
typedef struct parsed {
    char *name, *id, *file;
    char *key;      /* what the platform wrote before the file's own name: entries
                       of one id share it, or they are not one student's */
    int onlinetext; /* online text or a link, no files */
    int late;       /* the platform marked it late (Canvas's LATE) */
    int anon;       /* read as Canvas's anonymous form, anon_<id> */
    int ambiguous;  /* the name reads as more than one student's: refused (2: its
                       student was dropped, another of their files not copied) */
} parsed;

static void free_parsed(parsed *p)
{
    free(p->name);
    free(p->id);
    free(p->file);
    free(p->key);
    memset(p, 0, sizeof *p);
}

/* Whether [s, e) is a name as Canvas writes one: word characters only (its
 * sanitize_file_name keeps Unicode letters, marks, digits and '_': bytes of
 * UTF-8 above 0x7f are taken as such), in lower case (sanitize_user_name
 * ends with downcase; the LATE after it is the one word in capitals). A
 * name can hold "_<digits>_": sanitize_user_name takes out the '_' around
 * digits in one pass, which leaves "_48300_" of "x__48300___7", and
 * sanitize_file_name then drops blanks, which leaves it of "x_ 48300_ 7";
 * so every reading is tried (parse_canvas). */
static int canvas_name(const char *s, const char *e)
{
    if (e <= s)
        return 0;
    for (const char *c = s; c < e; c++) {
        unsigned char u = (unsigned char)*c;
        if (!(isalnum(u) || u == '_' || u >= 0x80) || (u >= 'A' && u <= 'Z'))
            return 0;
    }
    return 1;
}

/* The file's own name, without the "-N" Canvas adds before its suffix to a
 * file uploaded again (lab3-1.c). */
static char *canvas_file(const char *file)
{
    const char *dot = strchr(file, '.');
    const char *end = dot ? dot : file + strlen(file);
    const char *dash = end;
    while (dash > file && isdigit((unsigned char)dash[-1]))
        dash--;
    if (dash < end && dash > file + 1 && dash[-1] == '-')
        return gr_asprintf("%.*s%s", (int)(dash - 1 - file), file, end);
    return gr_asprintf("%s", file);
}

/* One reading of a Canvas name from the '_' at u: <name>[_LATE]_<user
 * id>_<attachment id>_<file>, or <name>[_LATE]_<user id>_text.html (and
 * _link.html), an online entry. Returns 1 and fills p when it fits. */
static int canvas_at(const char *entry, const char *u, parsed *p)
{
    if (!canvas_name(entry, u))
        return 0;
    const char *r = u + 1;
    /* Canvas writes the marker in capitals, the name in lower case
     * (content_zipper.rb, get_filename and sanitize_user_name): a name's
     * own "late" is not it */
    if (strncasecmp(r, "LATE_", 5) == 0 && digits(r + 5) > 0) {
        p->late = strncmp(r, "LATE_", 5) == 0;
        r += 5;
    }
    size_t user = digits(r);
    if (user == 0 || r[user] != '_')
        return 0;
    const char *after = r + user + 1;
    int online = strcmp(after, "text.html") == 0 || strcmp(after, "link.html") == 0;
    size_t att = digits(after);
    if (!online && (att == 0 || after[att] != '_' || after[att + 1] == '\0'))
        return 0;
    p->name = gr_asprintf("%.*s", (int)(u - entry), entry);
    p->id = gr_asprintf("%.*s", (int)user, r);
    p->key = gr_asprintf("%s", p->name);
    p->file = online ? gr_asprintf("%s", "") : canvas_file(after + att + 1);
    p->onlinetext = online;
    return 1;
}

/*
 * Canvas "Download Submissions" (lib/content_zipper.rb): each uploaded file
 * is <name>[_LATE]_<user id>_<attachment id>_<file>, the name the student's
 * sortable name, lower case, with what is not a word character taken out;
 * anonymous grading writes [LATE_]anon_<anonymous id>_<attachment id>_<file>
 * (read so only where anon is set: a student whose name is "Anon" writes
 * anon_<user id>_... in a download that is not anonymous).
 * The name and the file are the student's to choose: a name that reads two
 * ways with two ids, files or late marks (a student who called themselves
 * "x__48213___7__y") is marked ambiguous, never taken as either. Returns 1
 * when entry fits.
 */
static int parse_canvas(const char *entry, parsed *p, int anon)
{
    const char *a = entry;
    if (anon && strncmp(a, "LATE_anon_", 10) == 0) {
        a += 5;
        p->late = 1;
    }
    if (anon && strncmp(a, "anon_", 5) == 0) {
        size_t n = 0;
        while (isalnum((unsigned char)a[5 + n]))
            n++;
        const char *r = a + 5 + n;
        size_t att = n > 0 && r[0] == '_' ? digits(r + 1) : 0;
        int online = n > 0 && (strcmp(r, "_text.html") == 0 || strcmp(r, "_link.html") == 0);
        if (!online && (att == 0 || r[1 + att] != '_' || r[2 + att] == '\0'))
            return 0;
        p->id = gr_asprintf("%.*s", (int)(5 + n), a);
        p->name = gr_asprintf("%s", "");
        p->key = gr_asprintf("%s", p->id);
        p->file = online ? gr_asprintf("%s", "") : canvas_file(r + 2 + att);
        p->onlinetext = online;
        p->anon = 1;
        return 1;
    }
    p->late = 0;
    int found = 0;
    for (const char *u = strchr(entry, '_'); u; u = strchr(u + 1, '_')) {
        parsed q = {0};
        if (!canvas_at(entry, u, &q)) {
            free_parsed(&q);
            continue;
        }
        if (!found) {
            *p = q;
            found = 1;
            continue;
        }
        /* Another reading: harmless when it gives the same student, file
         * and mark. */
        if (strcmp(q.id, p->id) != 0 || strcmp(q.file, p->file) != 0 || q.late != p->late ||
            q.onlinetext != p->onlinetext)
            p->ambiguous = 1;
        free_parsed(&q);
    }
    return found;
}

/* Fills p from entry, whose Moodle marker (kind k) starts at at and takes
 * klen bytes; 0 when no "_<digits>" comes before it. A team submission's
 * entry (team) is named by its group, <group name>_<group id>, or, for the
 * default group (students in none), by that group's name alone
 * (downloader.php, get_student_prefix): its id is "group-<group id>",
 * "group-0" for the default group, never read as a participant's. */
static int moodle_at(const char *entry, const char *at, size_t klen, int k, int team,
                     parsed *p)
{
    const char *id = at;
    while (id > entry && isdigit((unsigned char)id[-1]))
        id--;
    if (id == at || id - 1 <= entry || id[-1] != '_') {
        if (!team || at == entry)
            return 0;
        p->name = gr_asprintf("%.*s", (int)(at - entry), entry);
        p->id = gr_asprintf("group-0");
    } else {
        p->name = gr_asprintf("%.*s", (int)(id - 1 - entry), entry);
        p->id = gr_asprintf("%s%.*s", team ? "group-" : "", (int)(at - id), id);
    }
    p->key = gr_asprintf("%.*s", (int)(at + klen - entry), entry);
    p->file = gr_asprintf("%s", at + klen);
    p->onlinetext = k == 1;
    return 1;
}

/*
 * Moodle "Download all submissions" (mod/assign/classes/downloader.php):
 * <Full Name>_<participant id>_assignsubmission_<file|onlinetext>_<file>
 * for a file, or, downloaded in folders, a folder
 * <Full Name>_<participant id>_assignsubmission_<file|onlinetext> (with a
 * '_' at its end before Moodle 4.1) holding the files. Blind marking writes
 * "Participant" for the name. The name and the file's own name are the
 * student's to choose: a folder's id is the one its name ends with; a file
 * whose name holds the marker twice, with two ids, is marked ambiguous,
 * never taken as either. Returns 1 when entry fits.
 */
static int parse_moodle(const char *entry, int folder, int team, parsed *p)
{
    static const char *const kinds[] = {"_assignsubmission_file", "_assignsubmission_onlinetext"};
    size_t len = strlen(entry);
    for (int k = 0; k < 2; k++) {
        size_t klen = strlen(kinds[k]);
        if (folder) {
            /* The marker ends the name, with or without its '_'. */
            for (size_t under = 0; under < 2; under++) {
                if (len < klen + under ||
                    strncmp(entry + len - klen - under, kinds[k], klen) != 0 ||
                    (under && entry[len - 1] != '_'))
                    continue;
                if (moodle_at(entry, entry + len - klen - under, klen + under, k, team, p))
                    return 1;
            }
            continue;
        }
        int found = 0;
        for (const char *at = strstr(entry, kinds[k]); at; at = strstr(at + 1, kinds[k])) {
            if (at[klen] != '_')
                continue;
            parsed q = {0};
            if (!moodle_at(entry, at, klen + 1, k, team, &q))
                continue;
            if (!found) {
                *p = q;
                found = 1;
                continue;
            }
            if (strcmp(q.id, p->id) != 0)
                p->ambiguous = 1;
            free_parsed(&q);
        }
        if (found)
            return 1;
    }
    return 0;
}

int gr_moodle_default_group(const char *entry)
{
    parsed p = {0};
    /* a folder's name ends with the marker; a file's (and a folder's before
     * Moodle 4.1) has a '_' after it */
    int folder = strstr(entry, "_assignsubmission_file_") == NULL;
    int yes = parse_moodle(entry, folder, 1, &p) && p.id && strcmp(p.id, "group-0") == 0;
    free_parsed(&p);
    return yes;
}

/* The folder of dir that holds the Gradescope metadata: dir itself, or its
 * only folder (assignment_<n>_export/); NULL when neither does. */
static char *gradescope_root(const char *dir)
{
    char *meta = gr_asprintf("%s/%s", dir, METADATA);
    struct stat st;
    int here = lstat(meta, &st) == 0 && S_ISREG(st.st_mode);
    free(meta);
    if (here)
        return gr_asprintf("%s", dir);
    DIR *d = opendir(dir);
    char *only = NULL;
    int entries = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || is_hidden(e->d_name))
            continue;
        if (++entries > 1)
            break;
        free(only);
        only = gr_asprintf("%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    if (entries != 1 || lstat(only, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(only);
        return NULL;
    }
    meta = gr_asprintf("%s/%s", only, METADATA);
    here = lstat(meta, &st) == 0 && S_ISREG(st.st_mode);
    free(meta);
    if (!here) {
        free(only);
        return NULL;
    }
    return only;
}

/* How an entry of a platform's download reads: its name parsed as
 * platform from (canvas or moodle); 1 when it fits. Canvas's are files,
 * Moodle's files or folders. */
static int parse_entry(const char *dir, const char *entry, gr_from from, int team, parsed *p)
{
    char *path = gr_asprintf("%s/%s", dir, entry);
    struct stat st;
    int known = lstat(path, &st) == 0;
    free(path);
    if (from == GR_FROM_CANVAS)
        return known && S_ISREG(st.st_mode) && parse_canvas(entry, p, 1);
    return parse_moodle(entry, known && S_ISDIR(st.st_mode), team, p);
}

gr_from gr_detect_layout(const char *dir)
{
    char *root = gradescope_root(dir);
    if (root) {
        free(root);
        return GR_FROM_GRADESCOPE;
    }
    DIR *d = opendir(dir);
    if (!d)
        return GR_FROM_PLAIN;
    int n = 0, canvas = 0, moodle = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || is_hidden(e->d_name))
            continue;
        parsed p = {0};
        n++;
        moodle += parse_entry(dir, e->d_name, GR_FROM_MOODLE, 0, &p);
        free_parsed(&p);
        canvas += parse_entry(dir, e->d_name, GR_FROM_CANVAS, 0, &p);
        free_parsed(&p);
    }
    closedir(d);
    /* A platform's when at least half the entries fit its names (the rest,
     * a stray file or a name it mangled, are listed with why). */
    if (moodle > 0 && 2 * moodle >= n && moodle >= canvas)
        return GR_FROM_MOODLE;
    if (canvas > 0 && 2 * canvas >= n)
        return GR_FROM_CANVAS;
    return GR_FROM_PLAIN;
}

/* ---- copying ------------------------------------------------------------------------- */

typedef struct importer {
    const char *dest;
    gr_import *out;
    int cap, cap_skipped;
    int entries;       /* copied so far, against COPY_MAX_ENTRIES */
} importer;

static void *grow(void *array, int n, int *cap, size_t size)
{
    if (n < *cap)
        return array;
    *cap = *cap ? 2 * *cap : 16;
    void *p = realloc(array, (size_t)*cap * size);
    if (!p) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return p;
}

static void skip_as(importer *im, const char *name, char *why, int refused)
{
    gr_import *o = im->out;
    int cap = im->cap_skipped;
    o->skipped = grow(o->skipped, o->nskipped, &cap, sizeof *o->skipped);
    cap = im->cap_skipped;
    o->why = grow(o->why, o->nskipped, &cap, sizeof *o->why);
    cap = im->cap_skipped;
    o->refused = grow(o->refused, o->nskipped, &cap, sizeof *o->refused);
    im->cap_skipped = cap;
    o->skipped[o->nskipped] = gr_asprintf("%s", name);
    o->refused[o->nskipped] = refused;
    o->why[o->nskipped++] = why;
}

static void skip(importer *im, const char *name, char *why)
{
    skip_as(im, name, why, 0);
}

static void refuse(importer *im, const char *name, char *why)
{
    skip_as(im, name, why, 1);
}

/* An id the folder can be named by: not empty, no '/', not hidden. */
static int usable_id(const char *id)
{
    return id[0] != '\0' && id[0] != '.' && !strchr(id, '/');
}

/* The student's folder, dest/<id>, made when it is new (with the name
 * recorded). */
static char *student_dir(importer *im, const char *id, const char *name, lab_error *err)
{
    char *dir = gr_asprintf("%s/%s", im->dest, id);
    gr_import *o = im->out;
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->ids[i], id) == 0)
            return dir;
    if (mkdir(dir, 0755) != 0) {
        lab_errorf(err, "%s: cannot create: %s", dir, strerror(errno));
        free(dir);
        return NULL;
    }
    int cap = im->cap;
    o->ids = grow(o->ids, o->n, &cap, sizeof *o->ids);
    cap = im->cap;
    o->names = grow(o->names, o->n, &cap, sizeof *o->names);
    im->cap = cap;
    o->ids[o->n] = gr_asprintf("%s", id);
    o->names[o->n++] = gr_asprintf("%s", name ? name : "");
    return dir;
}

/* A path in dir for name that is not taken: dir/name, else dir/again-N/name
 * (the batch then finds two files of one name, and says so). */
static char *free_path(const char *dir, const char *name)
{
    char *path = gr_asprintf("%s/%s", dir, name);
    struct stat st;
    for (int k = 1; lstat(path, &st) == 0; k++) {
        free(path);
        char *sub = gr_asprintf("%s/again-%d", dir, k);
        mkdir(sub, 0755);
        path = gr_asprintf("%s/%s", sub, name);
        free(sub);
    }
    return path;
}

/* Copies the entry name of the folder open at dfd to the path to: a regular
 * file (up to COPY_MAX_FILE), a link as a link, a folder with what is in it. */
static int copy_entry(importer *im, int dfd, const char *name, const char *to, int depth,
                      lab_error *err);

static int copy_folder(importer *im, int fd, const char *to, int depth, lab_error *err)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return lab_errorf(err, "%s: cannot read: %s", to, strerror(errno));
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = gr_asprintf("%s/%s", to, e->d_name);
        rc = copy_entry(im, dirfd(d), e->d_name, path, depth, err);
        free(path);
    }
    closedir(d);
    return rc;
}

static int copy_entry(importer *im, int dfd, const char *name, const char *to, int depth,
                      lab_error *err)
{
    struct stat st;
    if (++im->entries > COPY_MAX_ENTRIES)
        return lab_errorf(err, "more than %d entries in the download", COPY_MAX_ENTRIES);
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return lab_errorf(err, "%s: cannot read: %s", name, strerror(errno));
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        ssize_t n = readlinkat(dfd, name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        if (n <= 0 || symlink(target, to) != 0)
            return lab_errorf(err, "%s: cannot copy the link: %s", to, strerror(errno));
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        if (depth >= COPY_MAX_DEPTH)
            return 0; /* the batch's own search stops before this depth */
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return lab_errorf(err, "%s: cannot open: %s", name, strerror(errno));
        if (mkdir(to, 0755) != 0 && errno != EEXIST) {
            close(fd);
            return lab_errorf(err, "%s: cannot create: %s", to, strerror(errno));
        }
        return copy_folder(im, fd, to, depth + 1, err);
    }
    if (!S_ISREG(st.st_mode) || st.st_size > COPY_MAX_FILE)
        return 0; /* not a source file: nothing a lab takes */
    int in = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int rc = 0;
    if (in < 0 || out < 0)
        rc = lab_errorf(err, "%s: cannot copy: %s", in < 0 ? name : to, strerror(errno));
    char buf[65536];
    ssize_t n;
    long total = 0;
    while (rc == 0 && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 || (total += n) > COPY_MAX_FILE || write(out, buf, (size_t)n) != n)
            rc = lab_errorf(err, "%s: cannot copy: %s", name, n < 0 ? strerror(errno) : "short");
    }
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot write: %s", to, strerror(errno));
    return rc;
}

/* Copies dir/entry into the student's folder: a folder's contents, or a
 * file as file_name. */
static int take(importer *im, const char *dir, const char *entry, const char *id,
                const char *name, const char *file_name, lab_error *err)
{
    char *sdir = student_dir(im, id, name, err);
    if (!sdir)
        return -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
    if (dfd < 0) {
        free(sdir);
        return lab_errorf(err, "%s: cannot open: %s", dir, strerror(errno));
    }
    struct stat st;
    if (fstatat(dfd, entry, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        int fd = openat(dfd, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        rc = fd < 0 ? lab_errorf(err, "%s: cannot open: %s", entry, strerror(errno))
                    : copy_folder(im, fd, sdir, 1, err);
    } else {
        char *to = free_path(sdir, file_name);
        rc = copy_entry(im, dfd, entry, to, 1, err);
        free(to);
    }
    close(dfd);
    free(sdir);
    return rc;
}

/* A student whose folder holds one file, an archive, becomes that archive:
 * dest/<id><suffix>, which the batch unpacks; its own name is kept in
 * uploads, which the student's scorecard names. */
static void archives_as_archives(importer *im)
{
    for (int i = 0; i < im->out->n; i++) {
        char *sdir = gr_asprintf("%s/%s", im->dest, im->out->ids[i]);
        DIR *d = opendir(sdir);
        char *only = NULL;
        int n = 0, regular = 0;
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            n++;
            free(only);
            only = gr_asprintf("%s", e->d_name);
            regular = e->d_type == DT_REG;
        }
        if (d)
            closedir(d);
        size_t suffix = n == 1 && regular ? gr_archive_suffix(only) : 0;
        if (suffix > 0) {
            char *from = gr_asprintf("%s/%s", sdir, only);
            char *to = gr_asprintf("%s%s", sdir, only + strlen(only) - suffix);
            if (rename(from, to) == 0) {
                rmdir(sdir);
                if (!im->out->uploads)
                    im->out->uploads = calloc((size_t)im->out->n, sizeof *im->out->uploads);
                if (im->out->uploads)
                    im->out->uploads[i] = gr_asprintf("%s", only);
            }
            free(from);
            free(to);
        }
        free(only);
        free(sdir);
    }
}

/* ---- the layouts ------------------------------------------------------------------------ */

/* Takes the student id out of what was imported (its folder removed): one
 * of its entries could not be copied, and a student is graded on all of
 * their files or not at all. */
static void drop_student(importer *im, const char *id)
{
    gr_import *o = im->out;
    for (int i = 0; i < o->n; i++) {
        if (strcmp(o->ids[i], id) != 0)
            continue;
        char *sdir = gr_asprintf("%s/%s", im->dest, id);
        gr_remove_tree(sdir);
        free(sdir);
        free(o->ids[i]);
        free(o->names[i]);
        o->ids[i] = o->ids[o->n - 1];
        o->names[i] = o->names[o->n - 1];
        o->n--;
        return;
    }
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Canvas and Moodle: each entry of dir names its student. Every entry is
 * read first: entries that give one id under two names (a student's name
 * that imitates the platform's, or an id typed into a name) are refused
 * together, never merged; an entry that cannot be copied costs its student
 * only. */
static int import_named(importer *im, const char *dir, gr_from from, int team, lab_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", dir, strerror(errno));
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        /* A hidden entry (.DS_Store, __MACOSX, macOS's ._ companions) is
         * no one's, unless it is named as the platform names a submission:
         * a student's display name may begin with a dot (Moodle's
         * clean_filename keeps it). */
        if (is_hidden(e->d_name)) {
            if (strncmp(e->d_name, "._", 2) == 0)
                continue;
            parsed q = {0};
            int fits = parse_entry(dir, e->d_name, from, team, &q);
            free_parsed(&q);
            if (!fits)
                continue;
        }
        names = grow(names, n, &cap, sizeof *names);
        names[n++] = gr_asprintf("%s", e->d_name);
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, by_string);
    parsed *p = calloc((size_t)(n > 0 ? n : 1), sizeof *p);
    int *fits = calloc((size_t)(n > 0 ? n : 1), sizeof *fits);
    if (!p || !fits) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    for (int i = 0; i < n; i++)
        fits[i] = parse_entry(dir, names[i], from, team, &p[i]);
    /* Canvas's download is anonymous or not as a whole: where any entry
     * reads only as a named one, anon_... is a name too ("Anon"). */
    int named = 0;
    for (int i = 0; from == GR_FROM_CANVAS && i < n; i++)
        named += fits[i] && !p[i].anon;
    for (int i = 0; named > 0 && i < n; i++)
        if (fits[i] && p[i].anon) {
            free_parsed(&p[i]);
            fits[i] = parse_canvas(names[i], &p[i], 0);
        }
    const char *title = gr_from_name(from, 1);
    for (int i = 0; i < n; i++) {
        if (p[i].ambiguous == 2)
            continue; /* its student was dropped: refused below */
        /* The other entries of this id under another name, if any. */
        const char *other = NULL;
        for (int k = 0; k < n && fits[i] && !p[i].ambiguous && !p[i].onlinetext && !other; k++)
            if (k != i && fits[k] && !p[k].ambiguous && !p[k].onlinetext &&
                strcmp(p[k].id, p[i].id) == 0 && strcmp(p[k].key, p[i].key) != 0)
                other = names[k];
        lab_error why;
        if (!fits[i])
            skip(im, names[i], gr_asprintf("not named as %s names a submission", title));
        else if (p[i].ambiguous)
            refuse(im, names[i], gr_asprintf("its name reads as more than one student's (%s's "
                                             "form twice, with two ids): find whose it is, put "
                                             "it in a folder named by their id, and grade "
                                             "that folder with --from plain",
                                             title));
        else if (p[i].onlinetext)
            skip_as(im, names[i], gr_asprintf("online text, not files"), 2);
        else if (!usable_id(p[i].id))
            refuse(im, names[i], gr_asprintf("no student id in its name"));
        else if (other)
            refuse(im, names[i], gr_asprintf("its id, %s, is also that of %s, under another "
                                             "name: which is the student's? Rename or remove "
                                             "one", p[i].id, other));
        else if (take(im, dir, names[i], p[i].id, p[i].name, p[i].file, &why) != 0) {
            refuse(im, names[i], gr_asprintf("could not be copied (%s): student %s is not "
                                             "graded", why.msg, p[i].id));
            fits[i] = 0;
            drop_student(im, p[i].id);
            /* The same student's other entries go with it. */
            for (int k = 0; k < n; k++)
                if (k != i && p[k].id && strcmp(p[k].id, p[i].id) == 0 && !p[k].onlinetext)
                    p[k].ambiguous = 2;
        }
    }
    /* The students the platform marked late, in any of their files taken. */
    for (int i = 0; i < n; i++) {
        if (!fits[i] || p[i].ambiguous || p[i].onlinetext || !p[i].late)
            continue;
        int seen = 0;
        for (int k = 0; k < im->out->nlate && !seen; k++)
            seen = strcmp(im->out->late_ids[k], p[i].id) == 0;
        if (!seen) {
            int cap = im->out->nlate;
            im->out->late_ids = grow(im->out->late_ids, im->out->nlate, &cap,
                                     sizeof *im->out->late_ids);
            im->out->late_ids[im->out->nlate++] = gr_asprintf("%s", p[i].id);
        }
    }
    /* Entries of a student dropped after they were taken: refused too. */
    for (int i = 0; i < n; i++)
        if (p[i].ambiguous == 2)
            refuse(im, names[i], gr_asprintf("not graded: another file of student %s could not "
                                             "be copied", p[i].id));
    for (int i = 0; i < n; i++) {
        free_parsed(&p[i]);
        free(names[i]);
    }
    free(p);
    free(fits);
    free(names);
    (void)err;
    return 0;
}

/* A YAML scalar as the metadata writes one: plain, 'single' ('' a quote) or
 * "double" quoted; malloc'd. */
static char *yaml_scalar(const char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strcspn(s, "\r\n");
    while (n > 0 && s[n - 1] == ' ')
        n--;
    if (n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n - 1] == s[0]) {
        char *out = malloc(n), *o = out;
        if (!out)
            return NULL;
        for (size_t i = 1; i + 1 < n; i++) {
            if (s[0] == '\'' && s[i] == '\'' && s[i + 1] == '\'')
                i++;
            else if (s[0] == '"' && s[i] == '\\' && i + 2 < n)
                i++;
            *o++ = s[i];
        }
        *o = '\0';
        return out;
    }
    return gr_asprintf("%.*s", (int)n, s);
}

typedef struct submitter {
    char *folder, *name, *sid, *email;
} submitter;

/* Reads root's submission_metadata.yml: each submission's submitters. The
 * part of YAML it reads is what the export writes: a top-level key per
 * submission folder, its ":submitters:" a list of maps with :name:, :sid:
 * and :email:. Returns how many submitters, -1 with err. */
static int read_metadata(const char *root, submitter **out, lab_error *err)
{
    char *path = gr_asprintf("%s/%s", root, METADATA);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        if (fd >= 0)
            close(fd);
        lab_errorf(err, "%s: cannot read: %s", path, strerror(errno));
        free(path);
        return -1;
    }
    submitter *v = NULL;
    int n = 0, cap = 0, in_submitters = 0;
    /* Each line whole, however long (a name a student chose may be): a line
     * read in pieces would give its tail as a line of its own, at column 0
     * or indented as a field. */
    char *folder = NULL, *line = NULL;
    size_t line_cap = 0;
    while (getline(&line, &line_cap, f) > 0) {
        size_t indent = strspn(line, " ");
        const char *s = line + indent;
        if (*s == '\n' || *s == '\r' || *s == '\0' || *s == '#')
            continue;
        if (indent == 0) {
            char *key = yaml_scalar(s);
            size_t len = key ? strlen(key) : 0;
            free(folder);
            folder = NULL;
            if (len > 1 && key[len - 1] == ':') {
                key[len - 1] = '\0';
                folder = yaml_scalar(key);
            }
            free(key);
            in_submitters = 0;
            continue;
        }
        if (!folder)
            continue;
        int item = strncmp(s, "- ", 2) == 0;
        if (indent <= 2 && !item) {
            in_submitters = strncmp(s, ":submitters:", 12) == 0;
            continue;
        }
        if (!in_submitters)
            continue;
        if (item && indent <= 2) {
            v = grow(v, n, &cap, sizeof *v);
            v[n++] = (submitter){gr_asprintf("%s", folder), NULL, NULL, NULL};
            s += 2;
            s += strspn(s, " ");
        }
        if (n == 0 || strcmp(v[n - 1].folder, folder) != 0)
            continue;
        char **field = strncmp(s, ":name:", 6) == 0    ? &v[n - 1].name
                       : strncmp(s, ":sid:", 5) == 0   ? &v[n - 1].sid
                       : strncmp(s, ":email:", 7) == 0 ? &v[n - 1].email
                                                       : NULL;
        if (field && !*field)
            *field = yaml_scalar(strchr(s + 1, ':') + 1);
    }
    int bad = ferror(f);
    fclose(f);
    free(folder);
    free(line);
    if (bad) {
        lab_errorf(err, "%s: cannot read it whole", path);
        free(path);
        for (int i = 0; i < n; i++)
            free(v[i].folder), free(v[i].name), free(v[i].sid), free(v[i].email);
        free(v);
        return -1;
    }
    free(path);
    *out = v;
    return n;
}

static int import_gradescope(importer *im, const char *dir, lab_error *err)
{
    char *root = gradescope_root(dir);
    if (!root)
        return lab_errorf(err, "%s: no %s in it, or in its only folder: not a Gradescope "
                               "export", dir, METADATA);
    submitter *v = NULL;
    int n = read_metadata(root, &v, err), rc = n < 0 ? -1 : 0;
    for (int i = 0; rc == 0 && i < n; i++) {
        const char *id = v[i].sid && v[i].sid[0] ? v[i].sid : v[i].email ? v[i].email : "";
        char *entry = gr_asprintf("%s (%s)", v[i].folder, v[i].name ? v[i].name : "no name");
        char *path = gr_asprintf("%s/%s", root, v[i].folder);
        struct stat st;
        int twice = 0;
        for (int k = 0; k < n; k++) {
            const char *other = v[k].sid && v[k].sid[0] ? v[k].sid : v[k].email ? v[k].email : "";
            twice |= k != i && strcmp(other, id) == 0;
        }
        if (!usable_id(id))
            refuse(im, entry, gr_asprintf("the metadata gives this submitter no usable :sid: or "
                                        ":email:"));
        else if (twice)
            refuse(im, entry, gr_asprintf("the student id %s is a submitter of more than one "
                                        "submission: remove all but one", id));
        else if (strchr(v[i].folder, '/') || v[i].folder[0] == '.' || lstat(path, &st) != 0 ||
                 !S_ISDIR(st.st_mode))
            refuse(im, entry, gr_asprintf("the metadata names a folder the export does not have"));
        else
            rc = take(im, root, v[i].folder, id, v[i].name, "", err);
        free(entry);
        free(path);
    }
    /* Each student's email and submission number, for a Gradescope upload
     * of the batch's scores (batch_gradescope.c), which finds a submission
     * by them. */
    if (rc == 0) {
        im->out->emails = calloc((size_t)im->out->n + 1, sizeof *im->out->emails);
        im->out->submissions = calloc((size_t)im->out->n + 1, sizeof *im->out->submissions);
        if (!im->out->emails || !im->out->submissions) {
            fputs("grader: out of memory\n", stderr);
            exit(2);
        }
    }
    for (int i = 0; rc == 0 && i < im->out->n; i++) {
        const submitter *w = NULL;
        for (int k = 0; k < n && !w; k++) {
            const char *id = v[k].sid && v[k].sid[0] ? v[k].sid : v[k].email ? v[k].email : "";
            if (strcmp(id, im->out->ids[i]) == 0)
                w = &v[k];
        }
        const char *number = w && strncmp(w->folder, "submission_", 11) == 0 ? w->folder + 11 : "";
        int digits = number[0] && strspn(number, "0123456789") == strlen(number);
        im->out->emails[i] = gr_asprintf("%s", w && w->email ? w->email : "");
        im->out->submissions[i] = gr_asprintf("%s", digits ? number : "");
    }
    /* The export's folders that no submitter names. */
    DIR *d = rc == 0 ? opendir(root) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        int named = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                    is_hidden(e->d_name) || strcmp(e->d_name, METADATA) == 0;
        for (int i = 0; i < n && !named; i++)
            named = strcmp(v[i].folder, e->d_name) == 0;
        if (!named)
            skip(im, e->d_name, gr_asprintf("not in %s", METADATA));
    }
    if (d)
        closedir(d);
    for (int i = 0; i < n; i++)
        free(v[i].folder), free(v[i].name), free(v[i].sid), free(v[i].email);
    free(v);
    free(root);
    return rc;
}

int gr_import_lms(const char *dir, gr_from from, int team, const char *dest, gr_import *out,
                  lab_error *err)
{
    memset(out, 0, sizeof *out);
    out->from = from;
    if (from != GR_FROM_CANVAS && from != GR_FROM_MOODLE && from != GR_FROM_GRADESCOPE)
        return lab_errorf(err, "--from %s: not a platform's download", gr_from_name(from, 0));
    if (mkdir(dest, 0755) != 0)
        return lab_errorf(err, "%s: cannot create: %s", dest, strerror(errno));
    importer im = {dest, out, 0, 0, 0};
    int rc = from == GR_FROM_GRADESCOPE ? import_gradescope(&im, dir, err)
                                        : import_named(&im, dir, from, team, err);
    if (rc == 0)
        archives_as_archives(&im);
    else
        gr_import_free(out);
    return rc;
}

void gr_import_free(gr_import *in)
{
    for (int i = 0; i < in->n; i++) {
        free(in->ids[i]);
        free(in->names[i]);
        if (in->uploads)
            free(in->uploads[i]);
        if (in->emails)
            free(in->emails[i]);
        if (in->submissions)
            free(in->submissions[i]);
    }
    free(in->uploads);
    free(in->emails);
    free(in->submissions);
    for (int i = 0; i < in->nlate; i++)
        free(in->late_ids[i]);
    free(in->late_ids);
    for (int i = 0; i < in->nskipped; i++) {
        free(in->skipped[i]);
        free(in->why[i]);
    }
    free(in->ids);
    free(in->names);
    free(in->skipped);
    free(in->why);
    free(in->refused);
    memset(in, 0, sizeof *in);
}
