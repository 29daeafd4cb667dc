/*
 * scratch.h - the tests' scratch folders: removing one, whatever is in it.
 */
#ifndef FP8LAB_SCRATCH_H
#define FP8LAB_SCRATCH_H

/* rm -rf path, in C: a file is unlinked; a folder is made writable, emptied
 * and removed. Symbolic links are removed, never followed. Errors are
 * ignored (a test's teardown has nobody to tell). */
void scratch_remove(const char *path);

#endif
