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
    int onlinetext; /* moodle: online text, no files */
} parsed;

static void free_parsed(parsed *p)
{
    free(p->name);
    free(p->id);
    free(p->file);
    memset(p, 0, sizeof *p);
}

/* Canvas: <name>[_late]_<user id>_<submission id>_<file>, name letters and
 * digits. Returns 1 and fills p when entry fits. */
static int parse_canvas(const char *entry, parsed *p)
{
    const char *u = strchr(entry, '_');
    if (!u || u == entry)
        return 0;
    for (const char *c = entry; c < u; c++)
        if (!isalnum((unsigned char)*c))
            return 0;
    const char *q = u + 1;
    if (strncasecmp(q, "late_", 5) == 0)
        q += 5;
    size_t user = digits(q);
    if (user == 0 || q[user] != '_')
        return 0;
    size_t sub = digits(q + user + 1);
    if (sub == 0 || q[user + 1 + sub] != '_' || q[user + 2 + sub] == '\0')
        return 0;
    const char *file = q + user + 2 + sub;
    /* The file's own name, without the "-N" an upload again adds before its suffix. */
    const char *dot = strchr(file, '.');
    const char *end = dot ? dot : file + strlen(file);
    const char *dash = end;
    while (dash > file && isdigit((unsigned char)dash[-1]))
        dash--;
    p->name = gr_asprintf("%.*s", (int)(u - entry), entry);
    p->id = gr_asprintf("%.*s", (int)user, q);
    if (dash < end && dash > file + 1 && dash[-1] == '-')
        p->file = gr_asprintf("%.*s%s", (int)(dash - 1 - file), file, end);
    else
        p->file = gr_asprintf("%s", file);
    return 1;
}

/* Moodle: <Full Name>_<participant id>_assignsubmission_<file|onlinetext>_[<file>].
 * Returns 1 and fills p when entry fits (p->file "" for a folder). */
static int parse_moodle(const char *entry, parsed *p)
{
    static const char *const kinds[] = {"_assignsubmission_file_", "_assignsubmission_onlinetext_"};
    for (int k = 0; k < 2; k++) {
        const char *at = strstr(entry, kinds[k]);
        if (!at)
            continue;
        const char *id = at;
        while (id > entry && isdigit((unsigned char)id[-1]))
            id--;
        if (id == at || id - 1 <= entry || id[-1] != '_')
            return 0;
        p->name = gr_asprintf("%.*s", (int)(id - 1 - entry), entry);
        p->id = gr_asprintf("%.*s", (int)(at - id), id);
        p->file = gr_asprintf("%s", at + strlen(kinds[k]));
        p->onlinetext = k == 1;
        return 1;
    }
    return 0;
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
        char *path = gr_asprintf("%s/%s", dir, e->d_name);
        struct stat st;
        int file = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
        free(path);
        parsed p = {0};
        n++;
        if (parse_moodle(e->d_name, &p))
            moodle++;
        else if (file && parse_canvas(e->d_name, &p))
            canvas++;
        free_parsed(&p);
    }
    closedir(d);
    if (n > 0 && moodle == n)
        return GR_FROM_MOODLE;
    if (n > 0 && canvas == n)
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
 * dest/<id><suffix>, which the batch unpacks. */
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
            if (rename(from, to) == 0)
                rmdir(sdir);
            free(from);
            free(to);
        }
        free(only);
        free(sdir);
    }
}

/* ---- the layouts ------------------------------------------------------------------------ */

/* Canvas and Moodle: each entry of dir names its student. */
static int import_named(importer *im, const char *dir, gr_from from, lab_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", dir, strerror(errno));
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || is_hidden(e->d_name))
            continue;
        parsed p = {0};
        int fits = from == GR_FROM_CANVAS ? parse_canvas(e->d_name, &p) : parse_moodle(e->d_name, &p);
        if (!fits)
            skip(im, e->d_name, gr_asprintf("not named as %s names a submission", gr_from_name(from, 1)));
        else if (p.onlinetext)
            skip_as(im, e->d_name, gr_asprintf("online text, not files"), 2);
        else if (!usable_id(p.id))
            refuse(im, e->d_name, gr_asprintf("no student id in its name"));
        else
            rc = take(im, dir, e->d_name, p.id, p.name, p.file, err);
        free_parsed(&p);
    }
    closedir(d);
    return rc;
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
    char *folder = NULL, line[4096];
    while (fgets(line, sizeof line, f)) {
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

int gr_import_lms(const char *dir, gr_from from, const char *dest, gr_import *out,
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
                                        : import_named(&im, dir, from, err);
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
    }
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
