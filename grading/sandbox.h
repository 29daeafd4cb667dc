/*
 * sandbox.h - where a submission's processes run: the compiler, nm and the
 * test runner, each inside bubblewrap (Debian's bubblewrap, `bwrap`) when it
 * can run here:
 *   - every namespace bwrap can unshare (no network, its own processes,
 *     IPC and host name), a session of its own, and death with the grader;
 *   - the least view: the system's programs and libraries (/usr, /bin,
 *     /lib..., the dynamic linker's files in /etc), the paths the step
 *     needs (its view: the course's headers for the compiler, the data for
 *     a test), read-only, a private /tmp of 64 MiB, and one folder it may
 *     write; nothing else of the machine (not solutions/, not another
 *     submission, not the reports). A view of NULL is the whole machine,
 *     read-only (a CUDA lab's tests: the driver reads much of /proc and /sys);
 *   - only the environment the grader passes;
 *   - when the grader runs as root, as the unprivileged user "nobody".
 * Where bwrap cannot run (FP8LAB_SANDBOX=none, bwrap missing, or a
 * container that refuses it namespaces), the same view is enforced by the
 * kernel's Landlock, where it has Landlock: the step can read, write and
 * run only what bwrap would show it; run by root, the grader runs it as
 * "nobody" there too. The grader says once what is missing.
 *
 * Not for: the limits on time, memory, files and processes (spawn.c sets
 * them, sandbox or not).
 */
#ifndef FP8LAB_SANDBOX_H
#define FP8LAB_SANDBOX_H

#include <sys/types.h>

#include "error.h"

typedef struct gr_sandbox {
    int on;           /* processes run inside bwrap */
    int drop;         /* ... as uid, gid (the grader runs as root), in bwrap
                         or, without it, under Landlock */
    uid_t uid;
    gid_t gid;
    int landlock;     /* the kernel's Landlock ABI version; 0: none */
    int no_bwrap;     /* not on, for want of bwrap (none on PATH) */
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

/* In a batch's child: the sandbox runs this job as uid and gid instead of
 * "nobody" (jobres.h), when it drops to another user at all. */
void gr_sandbox_set_user(uid_t uid, gid_t gid);

/* How much gr_sandbox_warn says: grading one's own files (labs/labN,
 * solutions/labN), a line only where the missing sandbox puts them at risk;
 * grading anyone's (--dir), one line; with -v and in a batch, all of it,
 * bwrap's reason and the command that fixes it. */
typedef enum { GR_SANDBOX_SAY_OWN, GR_SANDBOX_SAY_OTHERS, GR_SANDBOX_SAY_ALL } gr_sandbox_say;

/* Says on stderr, once per process, what the sandbox lacks, as much as say
 * asks (nothing when it is whole). */
void gr_sandbox_warn(const gr_sandbox *s, gr_sandbox_say say);

/* In a forked child, just before exec: drops to s->uid and s->gid when
 * s->drop. Returns 0, or -1 (errno set). */
int gr_sandbox_enter(const gr_sandbox *s);

/* The argv that runs argv inside sandbox s with envp as its whole
 * environment, the system and view (NULL-terminated; NULL: the whole
 * machine) read-only, and dir its one writable folder (malloc'd; the
 * strings are argv's, envp's, view's, s's and dir itself, or literals). */
char **gr_sandbox_argv(const gr_sandbox *s, const char *dir, const char *const *view,
                       char *const envp[], char *const argv[]);

/* In a forked child, just before exec, where bwrap is not used: restricts
 * this process and all it starts, with Landlock, to reading and running the
 * system and view, and writing dir (and /dev/null). A NULL view, or a kernel
 * without Landlock, restricts nothing. Returns 0, or -1 (errno set). */
int gr_sandbox_restrict(const gr_sandbox *s, const char *const *view, const char *dir);

/* Gives the tree at dir back to the grader's own user (after the sandbox's
 * user built in it), so that no later step in the sandbox can change it.
 * Returns 0, or -1 with err. */
int gr_sandbox_take_back(const gr_sandbox *s, const char *dir, lab_error *err);

/* Gives the tree at dir to the sandbox's user, when it drops to one, so that
 * the submission's processes can write there. Returns 0, or -1 with err. */
int gr_sandbox_own(const gr_sandbox *s, const char *dir, lab_error *err);

#endif
