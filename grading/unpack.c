/*
 * unpack.c - the student files out of a submission's archive, through
 * libarchive (see unpack.h).
 *
 * Nothing in the archive decides where a file goes: each wanted file is
 * written by its base name into dest, with O_EXCL and O_NOFOLLOW, so that
 * "../" in a path, an absolute path or a link cannot reach outside dest;
 * and a wanted name that is a link, a device or a folder refuses the whole
 * archive, so the student learns why the file was not graded.
 */
#define _GNU_SOURCE
#include "unpack.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "sandbox.h"

#define UNPACK_CPU_S 60     /* seconds of CPU for reading one archive */
#define UNPACK_AS_MIB 1024  /* and its address space */

static const char *const suffixes[] = {
    ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar", ".zip", 0,
};

size_t gr_archive_suffix(const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; suffixes[i]; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && strcasecmp(name + len - n, suffixes[i]) == 0)
            return n;
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* macOS's resource forks: __MACOSX/... and ._NAME. */
static int is_junk(const char *path)
{
    return strncmp(path, "__MACOSX/", 9) == 0 || strstr(path, "/__MACOSX/") != NULL ||
           strncmp(base_name(path), "._", 2) == 0;
}

/* Which of wanted is path's base name: its index, or -1. */
static int wanted_index(const char *path, const char *const *wanted)
{
    const char *base = base_name(path);
    for (int i = 0; wanted[i]; i++)
        if (strcmp(base, wanted[i]) == 0)
            return i;
    return -1;
}

/* Whether s is form, '#' in form standing for 1 to 3 digits; any case. */
static int suffix_is(const char *s, size_t n, const char *form)
{
    size_t i = 0;
    for (const char *f = form; *f; f++) {
        if (*f == '#') {
            size_t d = 0;
            while (i < n && d < 3 && isdigit((unsigned char)s[i]))
                i++, d++;
            if (d == 0)
                return 0;
        } else if (i >= n || tolower((unsigned char)s[i++]) != *f) {
            return 0;
        }
    }
    return i == n;
}

int gr_near_name(const char *name, const char *wanted)
{
    if (strcasecmp(name, wanted) == 0)
        return strcmp(name, wanted) != 0;
    /* Google Drive's copy: "Copy of lab1.c" */
    if (strncasecmp(name, "copy of ", 8) == 0)
        return strcmp(name + 8, wanted) == 0 || gr_near_name(name + 8, wanted);
    static const char *const forms[] = {"-#",      "_#",       " (#)",     "(#)",
                                        " copy",   "-copy",    "_copy",    " - copy",
                                        " copy #", " (copy)",  " - copy (#)"};
    const char *dot = strrchr(wanted, '.');
    size_t stem = dot ? (size_t)(dot - wanted) : strlen(wanted), ext = strlen(wanted) - stem;
    size_t n = strlen(name);
    if (n <= stem + ext || strncasecmp(name, wanted, stem) != 0 ||
        strcasecmp(name + n - ext, wanted + stem) != 0)
        return 0;
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++)
        if (suffix_is(name + stem, n - stem - ext, forms[k]))
            return 1;
    return 0;
}

/* Which of wanted path's base name nearly is (gr_near_name): its index, or
 * -1. */
static int near_index(const char *path, const char *const *wanted)
{
    const char *base = base_name(path);
    for (int i = 0; wanted[i]; i++)
        if (gr_near_name(base, wanted[i]))
            return i;
    return -1;
}

static const char *kind_of(struct archive_entry *e)
{
    if (archive_entry_hardlink(e))
        return "a hard link";
    switch (archive_entry_filetype(e)) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFDIR: return "a folder";
    case AE_IFREG: return NULL;
    default: return "a special file (device, pipe or socket)";
    }
}

/* Copies the current entry's data into dest/name, at most
 * GR_UNPACK_MAX_FILE bytes. */
static int extract(struct archive *a, const char *archive, const char *entry, const char *dest,
                   const char *name, lab_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dest, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return lab_errorf(err, "%s: cannot write %s: %s", archive, name, strerror(errno));
    char buf[65536];
    long total = 0;
    int rc = 0;
    for (;;) {
        la_ssize_t n = archive_read_data(a, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            rc = lab_errorf(err, "%s: %s: cannot unpack: %s", archive, entry,
                            archive_error_string(a));
            break;
        }
        total += n;
        if (total > GR_UNPACK_MAX_FILE) {
            rc = lab_errorf(err, "%s: %s is larger than %ld KiB unpacked: not a source "
                            "file (a zip bomb?)", archive, entry, GR_UNPACK_MAX_FILE >> 10);
            break;
        }
        if (write(fd, buf, (size_t)n) != n) {
            rc = lab_errorf(err, "%s: cannot write %s: %s", archive, name, strerror(errno));
            break;
        }
    }
    if (close(fd) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot write %s: %s", archive, name, strerror(errno));
    if (rc != 0)
        unlink(path);
    return rc;
}

/* One entry: extracts it if wanted, else skips it. found[i] holds the path
 * taken for wanted[i] (empty while none); near[i] is set once a file whose
 * name is wanted[i]'s but for case was extracted, under its own name. */
static int one_entry(struct archive *a, struct archive_entry *e, const char *archive,
                     const char *dest, const char *const *wanted, char (*found)[256],
                     char *near, lab_error *err)
{
    const char *entry = archive_entry_pathname(e);
    if (!entry)
        return lab_errorf(err, "%s: an entry without a name", archive);
    int w = is_junk(entry) ? -1 : wanted_index(entry, wanted);
    int n = w < 0 && !is_junk(entry) && !kind_of(e) ? near_index(entry, wanted) : -1;
    if (n >= 0 && !found[n][0] && !near[n]) {
        /* Extracted under its own name, for the grader to say "rename it". */
        near[n] = 1;
        return extract(a, archive, entry, dest, base_name(entry), err);
    }
    if (w < 0)
        return archive_read_data_skip(a) == ARCHIVE_OK ? 0
               : lab_errorf(err, "%s: %s: cannot read past it: %s", archive, entry,
                            archive_error_string(a));
    const char *kind = kind_of(e);
    if (kind)
        return lab_errorf(err, "%s: %s is %s%s%s, not a file: put the file itself in the "
                          "archive", archive, entry, kind,
                          archive_entry_symlink(e) ? " to " : "",
                          archive_entry_symlink(e) ? archive_entry_symlink(e) : "");
    if (found[w][0])
        return lab_errorf(err, "%s: two files named %s, %s and %s: keep one", archive,
                          wanted[w], found[w], entry);
    snprintf(found[w], sizeof found[w], "%s", entry);
    return extract(a, archive, entry, dest, wanted[w], err);
}

/* gr_unpack on the archive open on fd (archive names it in messages), or,
 * when fd < 0, on the file archive. */
static int unpack(int fd, const char *archive, const char *dest, const char *const *wanted,
                  lab_error *err)
{
    char found[16][256], near[16] = {0};
    int nwanted = 0;
    while (wanted[nwanted])
        nwanted++;
    if (nwanted > 16)
        return lab_errorf(err, "gr_unpack: more than 16 wanted files");
    memset(found, 0, sizeof found);

    struct archive *a = archive_read_new();
    if (!a)
        return lab_errorf(err, "%s: out of memory", archive);
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    int rc = 0;
    int opened = fd >= 0 ? archive_read_open_fd(a, fd, 65536)
                         : archive_read_open_filename(a, archive, 65536);
    if (opened != ARCHIVE_OK)
        rc = lab_errorf(err, "%s: not an archive the grader reads (.zip or .tar, plain or "
                        "gzip-, bzip2- or xz-compressed): %s", archive, archive_error_string(a));
    long entries = 0;
    while (rc == 0) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            rc = lab_errorf(err, "%s: corrupt after %ld entries: %s", archive, entries,
                            archive_error_string(a));
            break;
        }
        if (++entries > GR_UNPACK_MAX_ENTRIES) {
            rc = lab_errorf(err, "%s: more than %d entries", archive, GR_UNPACK_MAX_ENTRIES);
            break;
        }
        rc = one_entry(a, e, archive, dest, wanted, found, near, err);
        if (rc == 0 && archive_filter_bytes(a, 0) > GR_UNPACK_MAX_TOTAL)
            rc = lab_errorf(err, "%s: more than %ld MiB once unpacked (a zip bomb?)", archive,
                            GR_UNPACK_MAX_TOTAL >> 20);
    }
    archive_read_free(a);
    return rc;
}

int gr_unpack(const char *archive, const char *dest, const char *const *wanted, lab_error *err)
{
    return unpack(-1, archive, dest, wanted, err);
}

static void set_limit(int resource, rlim_t value)
{
    struct rlimit r = {value, value};
    setrlimit(resource, &r);
}

int gr_unpack_isolated(const char *archive, const char *name, const char *dest,
                       const char *const *wanted, lab_error *err)
{
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    int fd = open(archive, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lab_errorf(err, "%s: cannot read: %s", name, strerror(errno));
    int fds[2];
    if ((sb->drop && chown(dest, sb->uid, sb->gid) != 0) || pipe2(fds, O_CLOEXEC) != 0) {
        lab_errorf(err, "%s: cannot prepare its unpacking: %s", name, strerror(errno));
        close(fd);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        set_limit(RLIMIT_CORE, 0);
        set_limit(RLIMIT_CPU, UNPACK_CPU_S);
        set_limit(RLIMIT_FSIZE, (rlim_t)GR_UNPACK_MAX_FILE + 1);
#ifndef __SANITIZE_ADDRESS__ /* the sanitizer's allocator needs its address space */
        set_limit(RLIMIT_AS, (rlim_t)UNPACK_AS_MIB << 20);
#endif
        /* entry names as UTF-8 (a zip's are), which the C locale cannot
         * convert: a folder named é would be "an entry without a name" */
        setlocale(LC_CTYPE, "C.UTF-8");
        lab_error why = {{0}};
        int rc = gr_sandbox_enter(sb) != 0
                     ? lab_errorf(&why, "cannot become the sandbox's user: %s", strerror(errno))
                     : unpack(fd, name, dest, wanted, &why);
        if (rc != 0 && write(fds[1], why.msg, strlen(why.msg)) < 0)
            _exit(2);
        _exit(rc != 0);
    }
    close(fds[1]);
    close(fd);
    char msg[sizeof err->msg];
    ssize_t n = pid > 0 ? read(fds[0], msg, sizeof msg - 1) : 0;
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return lab_errorf(err, "%s: cannot start the process that unpacks it", name);
    if (WIFSIGNALED(status))
        return lab_errorf(err, "%s: unpacking it was stopped by signal %d (%s)", name,
                          WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WEXITSTATUS(status) != 0)
        return lab_errorf(err, "%s", msg[0] ? msg : "cannot unpack it");
    return 0;
}
