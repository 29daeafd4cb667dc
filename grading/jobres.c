/*
 * jobres.c - a user id, a cgroup and a CPU of its own for each job of a
 * batch (jobres.h).
 */
#define _GNU_SOURCE
#include "jobres.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "grade.h"
#include "sandbox.h"

#define UID_FIRST 61000
#define UID_LAST 64999
#define NOGROUP 65534
#define MAX_SLOTS 256
#define PIDS_MAX "512"                 /* processes and threads of one job */
#define MEMORY_BYTES (4LL << 30)       /* one job's memory, its tmpfs pages included */
#define CUDA_MEMORY_BYTES (12LL << 30) /* a CUDA lab's: nvcc needs 8 GiB */

static const char *const CONTROLLERS[] = {"pids", "memory", "cpu"};
#define NCONTROLLERS 3

static int nslots, have_uids, have_cg;
static uid_t uids[MAX_SLOTS];
static int ncpus, cpus[CPU_SETSIZE]; /* the CPUs the grader may use, in order */
static char base[NCONTROLLERS][1024]; /* <mount><own cgroup>/fp8lab-<pid> */

/* Writes text to path; 0 or -1. */
static int put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    int rc = n == (ssize_t)strlen(text) ? 0 : -1;
    if (close(fd) != 0)
        rc = -1;
    return rc;
}

/* This process's cgroup in the v1 hierarchy of controller ctrl, from
 * /proc/self/cgroup ("4:memory:/a/b"); "" for the root. 0, or -1. */
static int own_cgroup(const char *ctrl, char *out, size_t size)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024];
    int found = -1;
    while (f && found < 0 && fgets(line, sizeof line, f)) {
        char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
        if (!second)
            continue;
        *second = '\0';
        for (char *c = strtok(first + 1, ","); c; c = strtok(NULL, ","))
            if (strcmp(c, ctrl) == 0) {
                second[1 + strcspn(second + 1, "\n")] = '\0';
                snprintf(out, size, "%s", strcmp(second + 1, "/") == 0 ? "" : second + 1);
                found = 0;
            }
    }
    if (f)
        fclose(f);
    return found;
}

/* The slot's folder in controller c, or a file in it (name not NULL);
 * malloc'd. */
static char *slot_path(int c, int slot, const char *name)
{
    return name ? gr_asprintf("%s/job%d/%s", base[c], slot, name)
                : gr_asprintf("%s/job%d", base[c], slot);
}

static void remove_cgroups(void)
{
    for (int c = 0; c < NCONTROLLERS; c++) {
        if (!base[c][0])
            continue;
        for (int k = 0; k < nslots; k++) {
            char *dir = slot_path(c, k, NULL);
            rmdir(dir);
            free(dir);
        }
        rmdir(base[c]);
        base[c][0] = '\0';
    }
}

/* Makes the cgroups; "" or why not in why. */
static void make_cgroups(int cuda, char *why, size_t size)
{
    struct stat st;
    if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
        snprintf(why, size, "cgroup v2, whose delegation the grader does not use");
        return;
    }
    char memory[32];
    snprintf(memory, sizeof memory, "%lld", cuda ? CUDA_MEMORY_BYTES : MEMORY_BYTES);
    for (int c = 0; c < NCONTROLLERS; c++) {
        char mount[64], own[400];
        snprintf(mount, sizeof mount, "/sys/fs/cgroup/%s", CONTROLLERS[c]);
        if (stat(mount, &st) != 0 || own_cgroup(CONTROLLERS[c], own, sizeof own) != 0) {
            snprintf(why, size, "no cgroup v1 %s controller", CONTROLLERS[c]);
            remove_cgroups();
            return;
        }
        char *dir = gr_asprintf("%s%s/fp8lab-%ld", mount, own, (long)getpid());
        int fits = strlen(dir) < sizeof base[c];
        if (fits)
            memcpy(base[c], dir, strlen(dir) + 1);
        free(dir);
        if (!fits || mkdir(base[c], 0755) != 0) {
            snprintf(why, size, "cannot make a cgroup in %s: %s", mount,
                     fits ? strerror(errno) : "its path is too long");
            base[c][0] = '\0';
            remove_cgroups();
            return;
        }
        static const char *const files[] = {"pids.max", "memory.limit_in_bytes", "cpu.shares"};
        const char *const values[] = {PIDS_MAX, memory, "1024"};
        for (int k = 0; k < nslots; k++) {
            char *slot = slot_path(c, k, NULL), *file = slot_path(c, k, files[c]);
            int bad = mkdir(slot, 0755) != 0 || put(file, values[c]) != 0;
            free(slot);
            free(file);
            if (bad) {
                snprintf(why, size, "cannot set up a cgroup in %s: %s", mount, strerror(errno));
                remove_cgroups();
                return;
            }
        }
    }
    have_cg = 1;
}

void gr_jobres_init(int jobs, int cuda)
{
    char why_uid[200] = "", why_cg[300] = "";
    nslots = jobs < MAX_SLOTS ? jobs : MAX_SLOTS;
    cpu_set_t allowed;
    ncpus = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &allowed))
                cpus[ncpus++] = c;
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    if (geteuid() != 0) {
        snprintf(why_uid, sizeof why_uid, "the grader is not root");
        snprintf(why_cg, sizeof why_cg, "the grader is not root");
    } else {
        if (!sb->drop) {
            snprintf(why_uid, sizeof why_uid, "the sandbox does not run submissions as another "
                                              "user");
        } else {
            int k = 0;
            for (uid_t u = UID_FIRST; u <= UID_LAST && k < nslots; u++)
                if (getpwuid(u) == NULL)
                    uids[k++] = u;
            have_uids = k == nslots;
            if (!have_uids)
                snprintf(why_uid, sizeof why_uid, "fewer than %d free user ids in %d..%d",
                         nslots, UID_FIRST, UID_LAST);
        }
        make_cgroups(cuda, why_cg, sizeof why_cg);
    }
    if (jobs > 1 && (!have_uids || !have_cg))
        fprintf(stderr, "grader: warning: the %d jobs at once do not each have %s%s%s%s%s: "
                        "they share %s\n", jobs,
                have_uids ? "" : "a user id of their own (", have_uids ? "" : why_uid,
                have_uids ? "" : ")", !have_uids && !have_cg ? " and " : "",
                have_cg ? "" : "a cgroup of their own",
                !have_uids && !have_cg ? "the sandbox's user, the grader's cgroup and the "
                                         "per-process limits"
                : !have_uids           ? "the sandbox's user and its process limit"
                                       : "the grader's cgroup (memory, processes, CPU)");
    if (jobs > 1 && !have_cg && why_cg[0])
        fprintf(stderr, "grader: (no cgroups: %s)\n", why_cg);
}

void gr_jobres_enter(int slot)
{
    if (slot < 0 || slot >= nslots)
        return;
    if (have_uids)
        gr_sandbox_set_user(uids[slot], NOGROUP);
    /* Its CPU: slot k the k-th the grader may use, round the list again
     * when there are more jobs than CPUs. The judge keeps itself and its
     * subject on the CPU it runs on (channel.c): left to the scheduler, two
     * judges that started on one CPU would share it to the end. */
    if (nslots > 1 && ncpus > 1) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[slot % ncpus], &one);
        sched_setaffinity(0, sizeof one, &one);
    }
    for (int c = 0; have_cg && c < NCONTROLLERS; c++) {
        char *file = slot_path(c, slot, "cgroup.procs"), pid[32];
        snprintf(pid, sizeof pid, "%ld", (long)getpid());
        put(file, pid);
        free(file);
    }
}

/* Kills every process in slot's pids cgroup; how many were left. */
static int kill_slot(int slot)
{
    char *file = slot_path(0, slot, "cgroup.procs");
    FILE *f = fopen(file, "r");
    free(file);
    long pid;
    int n = 0;
    while (f && fscanf(f, "%ld", &pid) == 1) {
        kill((pid_t)pid, SIGKILL);
        n++;
    }
    if (f)
        fclose(f);
    return n;
}

void gr_jobres_release(int slot)
{
    if (!have_cg || slot < 0 || slot >= nslots)
        return;
    for (int tries = 0; tries < 100 && kill_slot(slot) > 0; tries++) {
        struct timespec ms = {0, 10 * 1000 * 1000};
        nanosleep(&ms, NULL);
    }
}

void gr_jobres_fini(void)
{
    if (!have_cg)
        return;
    for (int k = 0; k < nslots; k++)
        gr_jobres_release(k);
    remove_cgroups();
    have_cg = 0;
}
