/*
 * policy.h - what the kernel lets a subject do (DESIGN.md, "The grader":
 * policy in the kernel, not in symbol names).
 *
 * Two seccomp filters, stacked:
 *   - gr_policy_start, in the judge's child just before it runs the
 *     subject: computing (memory, time, the channel, ending itself), what a
 *     static program's start-up needs (an open fails with EACCES there), and
 *     execveat of the descriptor given, AT_EMPTY_PATH: the subject's file,
 *     open close-on-exec, so gone once it runs. (The judge's child also
 *     sets Landlock, where the kernel has it: channel.c.)
 *   - gr_policy_lock, in the subject's main, after the libraries' start-up
 *     and before any call: computing only, and no call that takes a path
 *     (not even a stat: glibc's fstat, newfstatat with AT_EMPTY_PATH, fails
 *     with ENOSYS; fstat itself, on a descriptor, stays).
 * Any other system call stops the subject with SIGSYS (SECCOMP_RET_TRAP);
 * the subject's handler records its number in the arena (subject.c).
 *
 * The subject is linked statically, so no file is opened to load it, and
 * nothing of the submission's runs before the first filter is in place.
 */
#ifndef FP8LAB_POLICY_H
#define FP8LAB_POLICY_H

/* Returns 0, or -1 (errno set). */
int gr_policy_start(int exe_fd);

/* Returns 0, or -1 (errno set). */
int gr_policy_lock(void);

/*
 * lab5's subject is a dynamic program that holds a CUDA context of its own
 * (lab5/calls.c), and has two filters of its own:
 *   - gr_policy_start_cuda, in place of gr_policy_start: the loader's calls
 *     (it opens the libraries: Landlock, set by the judge's child, says
 *     which files it may open) and the CUDA runtime's start (the device
 *     files, ioctl, threads; a socket is refused with EACCES);
 *   - gr_policy_lock_cuda, in place of gr_policy_lock, once CUDA has
 *     started and before the first lab function runs: computing, ioctl
 *     and mmap on the device files open at that moment (the character
 *     devices but /dev/null's kind), anonymous mmap, threads (clone with
 *     CLONE_THREAD; clone3 fails with ENOSYS), polling and the calls a new
 *     thread makes. No open, no socket, no process. Like gr_policy_lock,
 *     it is put on every thread at once (SECCOMP_FILTER_FLAG_TSYNC): the
 *     threads the runtime started before it get no more.
 */
int gr_policy_start_cuda(int exe_fd);
int gr_policy_lock_cuda(void);

/* The name of system call nr on this machine, or NULL. */
const char *gr_syscall_name(long nr);

#endif
