/*
 * landlock.h - the kernel's own file-system sandbox, Landlock
 * (Documentation/userspace-api/landlock.rst), through its three system
 * calls: a ruleset that handles every access right this kernel knows, a
 * rule per path beneath which some are allowed, then the ruleset enforced
 * on this process and whatever it starts.
 *
 * Used by the sandbox (sandbox.c), around the build and the tests where
 * bubblewrap cannot run, and by the judge (policy.c), around each subject.
 */
#ifndef FP8LAB_LANDLOCK_H
#define FP8LAB_LANDLOCK_H

#include <stdint.h>

/* The kernel's Landlock ABI version, or 0 when it has none. */
int gr_landlock_abi(void);

/* A new ruleset handling every right of ABI abi (its descriptor, or -1). */
int gr_landlock_ruleset(int abi);

/* Allows access beneath path (a path that does not exist is skipped; a
 * file gets only the rights a file can have). Returns 0, or -1. */
int gr_landlock_allow(int ruleset, int abi, const char *path, uint64_t access);

/* The same, beneath the file or folder open (O_PATH will do) on fd. */
int gr_landlock_allow_fd(int ruleset, int abi, int fd, uint64_t access);

/* Sets no_new_privs, enforces the ruleset on this process, and closes it.
 * Returns 0, or -1 (errno set). */
int gr_landlock_enforce(int ruleset);

#endif
