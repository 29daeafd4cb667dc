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
 * Not for: files another program writes (plot.c renders PNGs that way).
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

#ifdef __cplusplus
}
#endif

#endif
