/*
 * jobres.h - each submission that a batch grades at the same time as others
 * gets resources of its own, so that one cannot starve another:
 *   - a user id of its own (one of 61000..64999 that the machine's user
 *     database does not use), in place of the sandbox's "nobody": the
 *     process limit, which the kernel counts per user, is then the job's own;
 *   - a cgroup of its own (cgroup v1: pids, memory, which counts the tmpfs
 *     pages it writes, and cpu, an equal share each), below the grader's
 *     own, made when the batch starts and removed when it ends;
 *   - a CPU of its own, the one its judge and subject stay on (channel.c):
 *     no two jobs on one CPU while the grader may use another (with more
 *     jobs than CPUs, they take them in turn).
 * Where they cannot be had (not root, no sandbox to run as another user,
 * cgroup v2, no free user ids), the batch says so once and the jobs share
 * the sandbox's user and the grader's cgroup, with the per-process limits
 * alone (spawn.c).
 *
 * Not for: the limits on one process (spawn.c) or the sandbox (sandbox.h).
 */
#ifndef FP8LAB_JOBRES_H
#define FP8LAB_JOBRES_H

/* Decides, for jobs slots, what each can have, and makes the cgroups; a
 * CUDA lab's memory limit is larger (nvcc). Prints one warning on stderr
 * for what is missing. */
void gr_jobres_init(int jobs, int cuda);

/* In the child that grades for slot: takes the slot's user id for the
 * sandbox, joins the slot's cgroups and keeps to the slot's CPU. */
void gr_jobres_enter(int slot);

/* In the parent, once slot's child is gone: kills whatever is left in the
 * slot's cgroups. */
void gr_jobres_release(int slot);

/* Removes the cgroups (after every job is done). */
void gr_jobres_fini(void);

#endif
