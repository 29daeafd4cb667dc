/*
 * unpack.h - a submission that comes as an archive (.zip, .tar.gz, ...):
 * the lab's student files taken out of it, and nothing else.
 *
 * Not for: grading (grade.c) or listing the submissions (batch_find.c).
 */
#ifndef FP8LAB_UNPACK_H
#define FP8LAB_UNPACK_H

#include "error.h"

/* What one archive may cost, unpacked: a student file, and everything read
 * to find the student files. Past either, the archive is refused. */
#define GR_UNPACK_MAX_FILE (1L << 20)     /* 1 MiB */
#define GR_UNPACK_MAX_TOTAL (256L << 20)  /* 256 MiB */
#define GR_UNPACK_MAX_ENTRIES 10000

/* Whether name ends like an archive the grader reads (.zip, .tar, .tar.gz,
 * .tgz, .tar.bz2, .tbz2, .tar.xz, .txz), case aside; returns the suffix's
 * length, or 0. */
size_t gr_archive_suffix(const char *name);

/*
 * Writes dest/NAME for each NAME in wanted (NULL-terminated base names,
 * e.g. "lab2.c"): the archive's one regular file whose path ends in /NAME
 * (or is NAME), in whatever folder. Everything else in the archive is
 * skipped unread, macOS's __MACOSX/ and ._ files included. A wanted name
 * missing from the archive is not an error here (the build says so).
 * dest must exist. Returns 0, or -1 with the reason, naming the archive and
 * the entry: unreadable or corrupt; a wanted name that is a link or not a
 * regular file; two files of that name; a file over GR_UNPACK_MAX_FILE or
 * an archive over GR_UNPACK_MAX_TOTAL or GR_UNPACK_MAX_ENTRIES once
 * unpacked (a zip bomb).
 */
int gr_unpack(const char *archive, const char *dest, const char *const *wanted, lab_error *err);

/* Whether name is wanted's but for case ("Lab1.c" for lab1.c) or with a
 * copy's suffix before its extension, as platforms and file managers add
 * them: "lab1-1.c" (Canvas, a resubmission), "lab1 (2).c", "lab1(2).c",
 * "lab1_2.c", "lab1 copy.c", "lab1 - Copy.c", "lab1 copy 2.c", "Copy of
 * lab1.c" (Google Drive's; any case); not wanted itself. */
int gr_near_name(const char *name, const char *wanted);

/* gr_unpack in a process of its own: the archive is opened here, read there
 * under limits on CPU, memory and file size, and, where the sandbox drops
 * privileges (the grader runs as root), as its unprivileged user, with dest
 * given to that user. A crash of the reader is an error like the others.
 * Its messages call the archive name (the entry as the student named it:
 * a student reads them, and never the instructor's folders) and never
 * name dest. */
int gr_unpack_isolated(const char *archive, const char *name, const char *dest,
                       const char *const *wanted, lab_error *err);

#endif
