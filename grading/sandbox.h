/*
 * sandbox.h - where a submission's processes run: the compiler, nm and the
 * test runner, each inside bubblewrap (Debian's bubblewrap, `bwrap`) when it
 * can run here:
 *   - every namespace bwrap can unshare (no network, its own processes,
 *     IPC and host name), a session of its own, and death with the grader;
 *   - a read-only view of the machine, a private /tmp (the course itself
 *     still seen, read-only, if it lives under /tmp), and one folder it may
 *     write: the submission's pristine tree;
 *   - only the environment the grader passes;
 *   - when the grader runs as root, as the unprivileged user "nobody".
 * FP8LAB_SANDBOX=none turns it off; where bwrap is missing or cannot run,
 * the grader says so once and runs submissions without it.
 *
 * Not for: the limits on time, memory, files and processes (grade.c sets
 * them, sandbox or not).
 */
#ifndef FP8LAB_SANDBOX_H
#define FP8LAB_SANDBOX_H

#include <sys/types.h>

#include "error.h"

typedef struct gr_sandbox {
    int on;           /* processes run inside bwrap */
    int drop;         /* ... as uid, gid (the grader runs as root) */
    uid_t uid;
    gid_t gid;
    char why[600];    /* what is missing, when !on, or when root and !drop */
    char *ro[4];      /* the readable paths, NULL-terminated: seen read-only
                         even where they are under /tmp */
    char **dev;       /* every GPU device node (/dev/nvidia*), NULL-terminated
                         (NULL when there is none): bound into the sandbox's
                         /dev, so the CUDA labs' tests reach the GPU */
} gr_sandbox;

/* The sandbox for this process, decided on the first call: bwrap is tried,
 * as "nobody" when root and when nobody can read each of the NULL-terminated
 * paths (the course and its build). Later calls return the same. */
const gr_sandbox *gr_sandbox_get(const char *const *readable);

/* Says on stderr, once per process, what the sandbox lacks (nothing when
 * it is whole). */
void gr_sandbox_warn(const gr_sandbox *s);

/* In a forked child, just before exec: drops to s->uid and s->gid when
 * s->drop. Returns 0, or -1 (errno set). */
int gr_sandbox_enter(const gr_sandbox *s);

/* The argv that runs argv inside sandbox s with envp as its whole
 * environment and dir as its one writable folder (malloc'd; the strings
 * are argv's, envp's, s's and dir itself, or literals). */
char **gr_sandbox_argv(const gr_sandbox *s, const char *dir, char *const envp[],
                       char *const argv[]);

/* Gives the tree at dir to the sandbox's user, when it drops to one, so that
 * the submission's processes can write there. Returns 0, or -1 with err. */
int gr_sandbox_own(const gr_sandbox *s, const char *dir, lab_error *err);

#endif
