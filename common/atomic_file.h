/*
 * atomic_file.h - writing a file whole or not at all.
 *
 * The data goes to a fresh temporary file beside the target ("<path>.tmp.
 * XXXXXX", made by mkstemp), which is flushed to disk and then renamed over
 * the target. A reader sees the old file or the new one, never half of one,
 * and a failure leaves the old file as it was and no temporary file behind.
 *
 *     atomic_file af;
 *     if (atomic_file_open(&af, path, err) != 0) return -1;
 *     fwrite(..., af.f);                       (errors are caught by commit)
 *     return atomic_file_commit(&af, err);     (or atomic_file_abort(&af))
 *
 * A program killed while a temporary file exists (SIGINT from Ctrl-C,
 * SIGTERM, SIGHUP, SIGPIPE when the reader of its output goes away) leaves
 * none behind: the temporary files are kept in a small registry, and a
 * handler for those signals removes them, then dies of the signal as it
 * would have. A signal the program ignores or handles itself is left alone.
 * atomic_file_track / atomic_file_untrack put other temporary files in the
 * registry (plot.c's, which gnuplot writes), and atomic_file_fork the
 * process writing them, which the handler kills and waits for before it
 * removes anything.
 *
 * Not for: files another program writes (plot.c renders PNGs that way; it
 * tracks their temporary names itself).
 */
#ifndef FP8LAB_ATOMIC_FILE_H
#define FP8LAB_ATOMIC_FILE_H

#include <stdio.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct atomic_file {
    FILE *f;          /* write here */
    char *tmp;        /* the temporary file's name */
    const char *path; /* the target; must outlive the atomic_file */
} atomic_file;

/* Creates the temporary file (mode 0644) and opens it for writing. */
int atomic_file_open(atomic_file *af, const char *path, lab_error *err);

/* Checks that every write succeeded, flushes to disk, closes and renames the
 * temporary file over the target. On failure removes the temporary file. */
int atomic_file_commit(atomic_file *af, lab_error *err);

/* Closes and removes the temporary file; the target is left as it was. */
void atomic_file_abort(atomic_file *af);

/* Adds path (copied) to the files removed on SIGINT, SIGTERM, SIGHUP or
 * SIGPIPE, installing the handler on first use. Returns 0, or -1 when the
 * registry (ATOMIC_FILE_MAX_TRACKED paths) is full or out of memory: the file
 * is then not removed on a signal, and nothing else changes. */
#define ATOMIC_FILE_MAX_TRACKED 32
int atomic_file_track(const char *path);

/* Takes path out of the registry (after it was renamed or removed); a path
 * that is not in it is ignored. */
void atomic_file_untrack(const char *path);

/* fork(), with the child recorded as the writer of the tracked files: on a
 * signal the handler kills it (SIGKILL) and waits for it before removing
 * them, so that it cannot write one again afterwards. The signals are
 * blocked around the fork, so there is no moment when the child runs
 * unrecorded; both processes get the caller's signal mask back. Returns
 * what fork() returns. One child at a time. */
long atomic_file_fork(void);

/* The recorded child has exited (waited for with WNOWAIT) and is about to be
 * reaped: the handler must no longer kill or wait for it. */
void atomic_file_forget_child(void);

#ifdef __cplusplus
}
#endif

#endif
