/*
 * sandbox.c - bubblewrap around a submission's processes (sandbox.h).
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY_ID 65534 /* Debian's nobody and nogroup, when getpwnam fails */

static gr_sandbox the_sandbox;
static int decided, warned;

int gr_sandbox_enter(const gr_sandbox *s)
{
    if (!s->drop)
        return 0;
    if (setgroups(0, NULL) != 0 || setgid(s->gid) != 0 || setuid(s->uid) != 0)
        return -1;
    return 0;
}

/* The flags bwrap gets first. */
static const char *const BWRAP[] = {
    "bwrap", "--die-with-parent", "--new-session", "--unshare-all", 0,
};

/* What every step may read and run: the system's programs and libraries,
 * and the dynamic linker's and the alternatives' files (cc is a link through
 * /etc/alternatives). A path that is a symbolic link (/lib on a merged-/usr
 * system) is made the same link. Nothing else of /etc: not passwd, not
 * shadow. */
static const char *const SYSTEM[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", 0,
};

#define TMP_BYTES "67108864" /* the private /tmp's size: 64 MiB */

char **gr_sandbox_argv(const gr_sandbox *s, const char *dir, const char *const *view,
                       char *const envp[], char *const argv[])
{
    size_t nflags = 0, nenv = 0, nargv = 0, nro = 0, ndev = 0, nview = 0, nsys = 0;
    while (BWRAP[nflags])
        nflags++;
    while (SYSTEM[nsys])
        nsys++;
    while (s->dev && s->dev[ndev])
        ndev++;
    while (envp && envp[nenv])
        nenv++;
    while (argv[nargv])
        nargv++;
    while (s->ro[nro])
        nro++;
    while (view && view[nview])
        nview++;
    char **out = calloc(nflags + 3 * nsys + 3 * nro + 3 * nview + 3 * ndev + 3 * nenv + 20 +
                            nargv + 1,
                        sizeof *out);
    static char links[sizeof SYSTEM / sizeof *SYSTEM][256];
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < nflags; i++)
        out[k++] = (char *)BWRAP[i];
    if (!view) {
        out[k++] = "--ro-bind";
        out[k++] = "/";
        out[k++] = "/";
    } else {
        for (size_t i = 0; i < nsys; i++) {
            struct stat st;
            ssize_t n;
            if (lstat(SYSTEM[i], &st) != 0)
                continue;
            if (S_ISLNK(st.st_mode) &&
                (n = readlink(SYSTEM[i], links[i], sizeof links[i] - 1)) > 0) {
                links[i][n] = '\0';
                out[k++] = "--symlink";
                out[k++] = links[i];
            } else {
                out[k++] = "--ro-bind";
                out[k++] = (char *)SYSTEM[i];
            }
            out[k++] = (char *)SYSTEM[i];
        }
    }
    out[k++] = "--dev";
    out[k++] = "/dev";
    out[k++] = "--proc";
    out[k++] = "/proc";
    out[k++] = "--size";
    out[k++] = TMP_BYTES;
    out[k++] = "--tmpfs";
    out[k++] = "/tmp";
    out[k++] = "--clearenv";
    /* After /tmp: what lives under /tmp is seen too. */
    for (size_t i = 0; !view && i < nro; i++) {
        out[k++] = "--ro-bind";
        out[k++] = s->ro[i];
        out[k++] = s->ro[i];
    }
    for (size_t i = 0; i < nview; i++) {
        out[k++] = "--ro-bind-try";
        out[k++] = (char *)view[i];
        out[k++] = (char *)view[i];
    }
    for (size_t i = 0; i < ndev; i++) {
        out[k++] = "--dev-bind";
        out[k++] = s->dev[i];
        out[k++] = s->dev[i];
    }
    for (size_t i = 0; i < nenv; i++) {
        char *eq = strchr(envp[i], '=');
        if (!eq)
            continue;
        /* --setenv NAME VALUE: NAME is cut from a copy, VALUE points into envp. */
        char *name = strndup(envp[i], (size_t)(eq - envp[i]));
        if (!name)
            return NULL;
        out[k++] = "--setenv";
        out[k++] = name;
        out[k++] = eq + 1;
    }
    out[k++] = "--bind";
    out[k++] = (char *)dir;
    out[k++] = (char *)dir;
    out[k++] = "--chdir";
    out[k++] = (char *)dir;
    out[k++] = "--";
    for (size_t i = 0; i < nargv; i++)
        out[k++] = argv[i];
    out[k] = NULL;
    return out;
}

/* ---- Landlock (landlock.h) -------------------------------------------------------------- */

int gr_sandbox_restrict(const gr_sandbox *s, const char *const *view, const char *dir)
{
    if (!view || s->landlock <= 0)
        return 0;
    const int abi = s->landlock;
    const uint64_t read = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                          LANDLOCK_ACCESS_FS_READ_DIR;
    int ruleset = gr_landlock_ruleset(abi);
    if (ruleset < 0)
        return -1;
    int rc = 0;
    for (int i = 0; SYSTEM[i] && rc == 0; i++)
        rc = gr_landlock_allow(ruleset, abi, SYSTEM[i], read);
    for (int i = 0; view[i] && rc == 0; i++)
        rc = gr_landlock_allow(ruleset, abi, view[i], read);
    if (rc == 0)
        rc = gr_landlock_allow(ruleset, abi, dir, ~0ULL);
    /* The devices bwrap's --dev shows (but its tty), as bwrap lets them be
     * used: a step that reads /dev/zero meets the limit on its memory, as
     * it does inside bwrap, and not a refusal that only Landlock gives. */
    const uint64_t write = read | LANDLOCK_ACCESS_FS_WRITE_FILE | (1ULL << 14) | (1ULL << 15);
    static const char *const rw_devices[] = {"/dev/null", "/dev/zero", "/dev/full", 0};
    static const char *const ro_devices[] = {"/dev/random", "/dev/urandom", 0};
    for (int i = 0; rw_devices[i] && rc == 0; i++)
        rc = gr_landlock_allow(ruleset, abi, rw_devices[i], write);
    for (int i = 0; ro_devices[i] && rc == 0; i++)
        rc = gr_landlock_allow(ruleset, abi, ro_devices[i], read);
    if (rc == 0)
        rc = gr_landlock_allow(ruleset, abi, "/proc", read);
    if (rc != 0) {
        int saved = errno;
        close(ruleset);
        errno = saved;
        return rc;
    }
    return gr_landlock_enforce(ruleset);
}

/* What a child writes to fd until it closes it, into msg (size > 0): its
 * lines joined by "; ", no newline at the end, cut to fit; the rest is read
 * and dropped. bwrap writes its message in more than one write ("bwrap: ",
 * then the reason). */
static void read_reason(int fd, char *msg, size_t size)
{
    size_t len = 0;
    int newline = 0;
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] == '\n') {
                newline = len > 0;
                continue;
            }
            if (newline && len + 3 < size) {
                msg[len++] = ';';
                msg[len++] = ' ';
            }
            newline = 0;
            if (len + 1 < size)
                msg[len++] = buf[i];
        }
    }
    msg[len] = '\0';
}

/* Runs bwrap around `true` as s says (and checks readable first): 1 when it
 * works; 0 when it does not, and why says why (bwrap's own words, where it
 * said any); -1 when there is no bwrap to run (none on PATH). */
static int probe(const gr_sandbox *s, const char *const *readable, char *why, size_t size)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(why, size, "cannot create a pipe: %s", strerror(errno));
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(fds[1], 2);
        if (gr_sandbox_enter(s) != 0) {
            dprintf(2, "cannot become uid %d: %s", (int)s->uid, strerror(errno));
            _exit(2);
        }
        for (int i = 0; readable && readable[i]; i++)
            if (access(readable[i], R_OK | X_OK) != 0) {
                dprintf(2, "uid %d cannot read %s", (int)s->uid, readable[i]);
                _exit(3);
            }
        char *env[] = {NULL};
        char *cmd[] = {"/bin/true", NULL};
        const char *const view[] = {NULL};
        char **argv = gr_sandbox_argv(s, "/tmp", view, env, cmd);
        if (argv)
            execvp("bwrap", argv);
        int e = errno;
        dprintf(2, "bwrap: %s", strerror(e));
        _exit(e == ENOENT ? 127 : 4); /* 127: not found, as a shell says it */
    }
    close(fds[1]);
    why[0] = '\0';
    if (pid > 0)
        read_reason(fds[0], why, size);
    close(fds[0]);
    int status = -1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        snprintf(why, size, "cannot start a process to try bwrap");
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        snprintf(why, size, "bwrap is not installed");
        return -1;
    }
    if (!why[0])
        snprintf(why, size, "bwrap failed");
    return 0;
}

/* The NVIDIA driver's device nodes: /dev/nvidiactl, /dev/nvidia0..,
 * /dev/nvidia-uvm and friends (not folders such as /dev/nvidia-caps), every
 * one of them: a node with 8 GPUs has more than any fixed number, and a node
 * left out is a GPU the tests cannot open. */
static void find_gpu_devices(gr_sandbox *s)
{
    DIR *d = opendir("/dev");
    struct dirent *e;
    size_t k = 0, cap = 0;
    while (d && (e = readdir(d)) != NULL) {
        struct stat st;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        if (strncmp(e->d_name, "nvidia", 6) != 0 || stat(path, &st) != 0 || !S_ISCHR(st.st_mode))
            continue;
        if (k + 2 > cap) {
            size_t more = cap ? 2 * cap : 32;
            char **grown = realloc(s->dev, more * sizeof *grown);
            if (!grown)
                break;
            s->dev = grown;
            cap = more;
        }
        if ((s->dev[k] = strdup(path)) == NULL)
            break;
        k++;
    }
    if (s->dev)
        s->dev[k] = NULL;
    if (d)
        closedir(d);
}

/* Whether s's user can read and enter each of the NULL-terminated paths. */
static int user_reads(const gr_sandbox *s, const char *const *readable)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (gr_sandbox_enter(s) != 0)
            _exit(2);
        for (int i = 0; readable && readable[i]; i++)
            if (access(readable[i], R_OK | X_OK) != 0)
                _exit(3);
        _exit(0);
    }
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* Without bwrap, as root: what runs under Landlock runs as nobody too, where
 * nobody can read the course (else as root, and the warning says so). */
static const gr_sandbox *without_bwrap(gr_sandbox *s, const char *const *readable)
{
    if (getuid() == 0) {
        s->drop = 1;
        s->drop = user_reads(s, readable);
    }
    return s;
}

const gr_sandbox *gr_sandbox_get(const char *const *readable)
{
    if (decided)
        return &the_sandbox;
    decided = 1;
    gr_sandbox *s = &the_sandbox;
    memset(s, 0, sizeof *s);
    s->landlock = gr_landlock_abi();
    struct passwd *pw = getpwnam("nobody");
    s->uid = pw ? pw->pw_uid : NOBODY_ID;
    s->gid = pw ? pw->pw_gid : NOBODY_ID;
    const char *mode = getenv("FP8LAB_SANDBOX");
    if (mode && strcmp(mode, "none") == 0) {
        snprintf(s->why, sizeof s->why, "FP8LAB_SANDBOX=none");
        return without_bwrap(s, readable);
    }
    for (int i = 0, k = 0; readable && readable[i] && k < 3; i++)
        if ((s->ro[k] = realpath(readable[i], NULL)) != NULL)
            k++;
    find_gpu_devices(s);
    /* Two reasons and "; as nobody: " fit s->why. */
    char why[(sizeof s->why - 16) / 2] = "";
    if (getuid() == 0) {
        s->drop = 1;
        if (probe(s, readable, why, sizeof why) > 0) {
            s->on = 1;
            return s;
        }
        s->drop = 0;
    }
    char why_root[sizeof why] = "";
    int tried = probe(s, NULL, why_root, sizeof why_root);
    s->on = tried > 0;
    s->no_bwrap = tried < 0;
    if (!s->on)
        snprintf(s->why, sizeof s->why, "%s%s%s", why_root,
                 why[0] && !s->no_bwrap ? "; as nobody: " : "", s->no_bwrap ? "" : why);
    else if (why[0])
        snprintf(s->why, sizeof s->why, "%s", why);
    return s->on ? s : without_bwrap(s, readable);
}

/* The value of the kernel setting at /proc/sys/NAME (dots for slashes), or
 * -1 where there is none. */
static long sysctl_value(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/sys/%s", name);
    for (char *c = path + 10; *c; c++)
        if (*c == '.')
            *c = '/';
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* What to do when bwrap does not run, after the warning's reason: the one
 * command that gives it its namespaces where a kernel setting is what
 * forbids them (INSTRUCTORS.md, bwrap's namespaces, lists them by distribution):
 *   kernel.apparmor_restrict_unprivileged_userns = 1, Ubuntu's AppArmor
 *     restriction, on by default since Ubuntu 24.04
 *     (https://ubuntu.com/blog/ubuntu-23-10-restricted-unprivileged-user-namespaces,
 *     https://github.com/containers/bubblewrap/issues/632);
 *   kernel.unprivileged_userns_clone = 0, Debian's own switch, off by
 *     default up to Debian 10;
 *   user.max_user_namespaces = 0, any kernel's limit
 *     (Documentation/admin-guide/sysctl/user.rst).
 * The first two bind only a user who is not root. Otherwise bwrap is in a
 * container or a chroot that refuses it namespaces, as root too. */
#define SEE_DOC "INSTRUCTORS.md, bwrap's namespaces"
static const char *advice(const gr_sandbox *s)
{
    if (strstr(s->why, "FP8LAB_SANDBOX"))
        return "";
    if (s->no_bwrap)
        return "; install Debian's bubblewrap (apt-get install bubblewrap)";
    if (sysctl_value("user.max_user_namespaces") == 0)
        return "; namespaces are off: sudo sysctl -w user.max_user_namespaces=10000 "
               "(" SEE_DOC ")";
    if (getuid() != 0 && sysctl_value("kernel.apparmor_restrict_unprivileged_userns") == 1)
        return "; AppArmor forbids a user's namespaces: sudo sysctl -w "
               "kernel.apparmor_restrict_unprivileged_userns=0 (" SEE_DOC ")";
    if (getuid() != 0 && sysctl_value("kernel.unprivileged_userns_clone") == 0)
        return "; a user's namespaces are off: sudo sysctl -w kernel.unprivileged_userns_clone=1 "
               "(" SEE_DOC ")";
    return "; this container or chroot refuses bwrap namespaces: grade outside it, or see "
           SEE_DOC;
}

void gr_sandbox_warn(const gr_sandbox *s, gr_sandbox_say say)
{
    if (warned || (s->on && (s->drop || getuid() != 0)))
        return;
    warned = 1;
    if (say != GR_SANDBOX_SAY_ALL) {
        /* Grading one's own files: only what it means for them, and only
         * where it means something; anyone else's: one line. */
        if (s->on)
            return;
        if (say == GR_SANDBOX_SAY_OTHERS)
            fprintf(stderr, "grader: no bwrap sandbox: the code graded runs as you, with your "
                            "network%s (-v: why, and the fix)\n",
                    s->landlock > 0 ? "; Landlock limits its files" : " and your files");
        else if (s->landlock <= 0)
            fprintf(stderr, "grader: no sandbox here: your code runs with your rights, so a bug "
                            "that writes files can change the course's (-v: why, and the fix)\n");
        return;
    }
    if (!s->on && s->landlock > 0)
        fprintf(stderr, "grader: warning: no bwrap sandbox (%s): submissions run %s and "
                        "with the grader's network; Landlock (ABI %d) still limits what they "
                        "can read and write%s\n", s->why,
                s->drop ? "as nobody" : getuid() == 0 ? "with the grader's own user (root)"
                                                      : "with the grader's own user",
                s->landlock, advice(s));
    else if (!s->on)
        fprintf(stderr, "grader: warning: no sandbox (%s) and no Landlock in this kernel: "
                        "submissions run %s, with its network and a view of its files%s\n",
                s->why, s->drop ? "as nobody" : "with the grader's own rights", advice(s));
    else
        fprintf(stderr, "grader: warning: submissions run as root inside the sandbox (%s)\n",
                s->why);
}

/* chown of path and, for a folder, of everything in it. */
static int own_tree(const char *path, uid_t uid, gid_t gid, lab_error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0 || lchown(path, uid, gid) != 0)
        return lab_errorf(err, "%s: cannot give it to the sandbox's user: %s", path,
                          strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", path, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        rc = own_tree(child, uid, gid, err);
    }
    closedir(d);
    return rc;
}

int gr_sandbox_own(const gr_sandbox *s, const char *dir, lab_error *err)
{
    return s->drop ? own_tree(dir, s->uid, s->gid, err) : 0;
}

int gr_sandbox_take_back(const gr_sandbox *s, const char *dir, lab_error *err)
{
    return s->drop ? own_tree(dir, getuid(), getgid(), err) : 0;
}

void gr_sandbox_set_user(uid_t uid, gid_t gid)
{
    if (!the_sandbox.drop)
        return;
    the_sandbox.uid = uid;
    the_sandbox.gid = gid;
}
