/*
 * grade.c - grades one submission: pristine tree, compile, link, run, collect.
 *
 * The pristine tree is a fresh folder under <build>/grade/ holding only the
 * lab's student files, copied from the submission, and the course's own
 * copies of everything else (the lab's header), so a submission cannot
 * replace a test file. The submission is compiled there and linked with the
 * lab's suite (grading/labN_suite.c, built by make) into a test runner
 * (runner.c), which runs the tests under Check and sends Check's results
 * back on a pipe.
 *
 * What a submission can do wrong and where it is reported:
 *   does not build              every test NOT RUN, the compiler's first
 *                               messages in the report
 *   uses a forbidden symbol     the same, the symbol named in the build log
 *   (nm; processes, files,      (check_symbols: the list every lab shares,
 *   sockets, the codec in lab0) and the lab's own in its rubric)
 *   crashes, exits, hangs       that test, from Check's record (fork mode
 *                               and the rubric's time limit)
 *   allocates too much          malloc fails under the runner's address-
 *                               space limit, and the test crashes or fails
 *   prints without end          that test: its output goes to a file of its
 *                               own, capped at GR_OUTPUT_LIMIT by
 *                               RLIMIT_FSIZE (SIGXFSZ)
 *   breaks the runner itself    that test is NOT RUN, with how the runner
 *                               ended
 * Each test runs in a runner of its own: a test child can damage the files
 * Check keeps for its parent, and that must cost only the test it is in. A
 * watchdog here kills the runner a few seconds past the test's limit, and
 * RLIMIT_CPU backs it up.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grade.h"
#include "channel.h"
#include "sandbox.h"

/* Set by the Makefile: how the submission is compiled and linked. */
#ifndef GRADER_CC
#define GRADER_CC "cc"
#endif
#ifndef GRADER_CFLAGS
#define GRADER_CFLAGS "-std=c11 -O2 -g -D_DEFAULT_SOURCE -Wall -Wextra"
#endif
#ifndef GRADER_CHECK_CFLAGS
#define GRADER_CHECK_CFLAGS GRADER_CFLAGS
#endif
#ifndef GRADER_LDLIBS
#define GRADER_LDLIBS "-lcheck -lsubunit -lm -lrt -lpthread"
#endif
#ifndef GRADER_SANITIZE
#define GRADER_SANITIZE 0
#endif
/* How a CUDA lab's .cu files are compiled and what its runner links; an
 * empty GRADER_NVCC: this grader was built where there was no nvcc. */
#ifndef GRADER_NVCC
#define GRADER_NVCC ""
#endif
#ifndef GRADER_NVCCFLAGS
#define GRADER_NVCCFLAGS "-std=c++17 -O3"
#endif
#ifndef GRADER_CUDA_LDLIBS
#define GRADER_CUDA_LDLIBS "-lcublasLt -lcudart -lstdc++"
#endif
#ifndef GRADER_SUBJECT_LDLIBS
#define GRADER_SUBJECT_LDLIBS "-static -lm"
#endif
#ifndef GRADER_SPLIT_LABS
#define GRADER_SPLIT_LABS " "
#endif
/* The toolchain the build recorded (common/configure.sh): the folders its
 * compilers need outside the system's, space-separated, which every build
 * step sees read-only; and the PATH they are given. */
#ifndef GRADER_TOOLCHAIN
#define GRADER_TOOLCHAIN ""
#endif
#ifndef GRADER_NVCC_HOST
#define GRADER_NVCC_HOST ""
#endif
#ifndef GRADER_TOOL_PATH
#define GRADER_TOOL_PATH "/usr/local/bin:/usr/bin:/bin"
#endif

#define MAX_SOURCE_BYTES (4L << 20) /* a student file larger than this is refused */
#define BUILD_TIMEOUT_S 120.0
#define BUILD_AS_MIB 2048L     /* the compiler's address space: an #include of /dev/zero stops here */
#define NVCC_AS_MIB 8192L      /* nvcc's: its device compiler needs more */
#define LOG_LINES 40               /* of the compiler's messages, in the report */
#define OUTPUT_SHOWN 2048          /* bytes of a test's output, in the report */

extern char **environ;

/* ---- small helpers ------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return d;
}

char *gr_asprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return s;
}

/* The first max_lines lines (and at most max_bytes bytes) of a file, or
 * NULL when it is missing or empty. */
static char *read_head(const char *path, int max_lines, size_t max_bytes)
{
    /* A test may have left a link or a FIFO in its place: never followed,
     * never waited on, regular files only. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *buf = malloc(max_bytes + 64);
    size_t n = buf ? fread(buf, 1, max_bytes, f) : 0;
    int more = buf && fgetc(f) != EOF;
    fclose(f);
    if (!buf || n == 0) {
        free(buf);
        return NULL;
    }
    size_t end = 0;
    int lines = 0;
    while (end < n && lines < max_lines)
        if (buf[end++] == '\n')
            lines++;
    more = more || end < n;
    while (end > 0 && buf[end - 1] == '\n')
        end--;
    strcpy(buf + end, more ? "\n[...]" : "");
    return buf;
}

/* Splits a space-separated list of flags onto argv at *argc. */
static void push_words(char **argv, int *argc, int max, char *words)
{
    for (char *w = strtok(words, " "); w && *argc < max - 1; w = strtok(NULL, " "))
        argv[(*argc)++] = w;
}

/* ---- the pristine tree ------------------------------------------------------------ */

static int make_dir(const char *path, lab_error *err)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return lab_errorf(err, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

/* Copies a regular file of at most MAX_SOURCE_BYTES. Returns 0, or -1 with
 * err saying what is wrong with `from` (missing, a link, too large). */
static int copy_file(const char *from, const char *to, lab_error *err)
{
    struct stat st;
    if (lstat(from, &st) != 0)
        return lab_errorf(err, "%s: not found", from);
    if (!S_ISREG(st.st_mode))
        return lab_errorf(err, "%s: not a regular file", from);
    if (st.st_size > MAX_SOURCE_BYTES)
        return lab_errorf(err, "%s: larger than %ld MiB", from, MAX_SOURCE_BYTES >> 20);
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    if (!in || !out) {
        lab_errorf(err, "%s: cannot copy: %s", in ? to : from, strerror(errno));
        if (in)
            fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        fwrite(buf, 1, n, out);
    int bad = ferror(in);
    fclose(in);
    if (fclose(out) != 0 || bad)
        return lab_errorf(err, "%s: cannot copy to %s", from, to);
    return 0;
}

/* ---- child processes ----------------------------------------------------------------- */

/* Whether this grading run's processes go into the sandbox (gr_grade sets it). */
static int sandboxed;

typedef struct limits {
    long as_mib;      /* 0: none */
    long fsize_bytes; /* 0: none */
    long fsize_hard;  /* the hard limit, when above fsize_bytes: a judge
                         raises its own for the channel's arena (channel.c) */
    long cpu_s;       /* 0: none */
    long nofile;      /* open files; 0: none */
    long nproc;       /* processes beyond those the user runs already (see
                         EXTRA_PROCS); 0: none */
    const char *jail; /* the one folder it may write (in bwrap, or under Landlock) */
    const char *const *view; /* what else it may read (sandbox.h); NULL: the whole machine */
} limits;

/* Open files a test runner may hold (Check's, the results pipe, the log)
 * and processes it may start (Check forks one per test), with room. */
#define RUNNER_NOFILE 64
/* A CUDA lab's: the CUDA runtime holds a file for each device node, and more. */
#define CUDA_RUNNER_NOFILE 1024
#define RUNNER_NPROC EXTRA_PROCS

/* RLIMIT_NPROC counts every process of the user: under nobody, every
 * submission graded at once. A margin this wide keeps one submission's
 * compiler (or bwrap's two processes) from failing when another starts
 * processes at the same moment, and still stops a fork bomb. */
#define EXTRA_PROCS 128

/* How many processes user me runs now, from /proc; -1 if unknown. */
static long user_processes(uid_t me)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &st) == 0 && st.st_uid == me)
            count++;
    }
    closedir(d);
    return count;
}

static void set_limits(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard > soft ? hard : soft};
    setrlimit(resource, &r);
}

static void set_limit(int resource, rlim_t value) { set_limits(resource, value, value); }

/*
 * Starts argv in a process group of its own, stdin from /dev/null, stdout
 * and stderr to log, under lim; results_fd (when >= 0) becomes its fd 3.
 * Returns the pid, or -1.
 */
static pid_t spawn(char *const argv[], char *const envp[], const char *log, int results_fd,
                   const limits *lim)
{
    pid_t pid;
    /* Out of processes or memory for a moment is the machine's failing,
     * not the submission's: wait and try again, 50 ms to 1.6 s. */
    for (int tries = 0; (pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM) && tries < 6;
         tries++) {
        struct timespec wait = {0, (50L * 1000 * 1000) << (tries < 4 ? tries : 4)};
        wait.tv_sec = wait.tv_nsec / 1000000000L;
        wait.tv_nsec %= 1000000000L;
        nanosleep(&wait, NULL);
    }
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    /* The log is the grader's: in a folder no sandbox writes, and even so
     * never through a link or into a FIFO. */
    int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0644);
    struct stat st;
    if (in < 0 || out < 0 || fstat(out, &st) != 0 || !S_ISREG(st.st_mode))
        _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    if (results_fd >= 0 && dup2(results_fd, 3) < 0)
        _exit(126);
    for (int fd = results_fd >= 0 ? 4 : 3; fd < 1024; fd++)
        close(fd);
    /* Whatever allocates comes before the limits: a sanitized grader's
     * allocator cannot work under an address-space limit. */
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    int boxed_on = sandboxed && sb->on && lim->jail;
    char **boxed = boxed_on ? gr_sandbox_argv(sb, lim->jail, lim->view, envp, argv) : NULL;
    uid_t who = boxed_on && sb->drop ? sb->uid : getuid();
    long procs = lim->nproc > 0 && who != 0 ? user_processes(who) : -1;
    set_limit(RLIMIT_CORE, 0);
    if (lim->as_mib > 0)
        set_limit(RLIMIT_AS, (rlim_t)lim->as_mib << 20);
    if (lim->fsize_bytes > 0)
        set_limits(RLIMIT_FSIZE, (rlim_t)lim->fsize_bytes, (rlim_t)lim->fsize_hard);
    if (lim->cpu_s > 0)
        set_limit(RLIMIT_CPU, (rlim_t)lim->cpu_s);
    if (lim->nofile > 0)
        set_limit(RLIMIT_NOFILE, (rlim_t)lim->nofile);
    if (boxed_on && gr_sandbox_enter(sb) != 0) {
        dprintf(2, "cannot become the sandbox's user: %s\n", strerror(errno));
        _exit(126);
    }
    /* RLIMIT_NPROC counts every process of the user, and root is exempt
     * from it: it bounds a fork bomb only under an unprivileged user. */
    if (procs >= 0)
        set_limit(RLIMIT_NPROC, (rlim_t)(procs + lim->nproc));
    if (boxed_on) {
        if (boxed)
            execvp(boxed[0], boxed);
        dprintf(2, "cannot run bwrap: %s\n", strerror(errno));
        _exit(127);
    }
    /* No bwrap: the kernel's Landlock shows it the same view. */
    if (lim->jail && gr_sandbox_restrict(sb, lim->view, lim->jail) != 0) {
        dprintf(2, "cannot restrict it with Landlock: %s\n", strerror(errno));
        _exit(126);
    }
    execve(argv[0], argv, envp);
    execvpe(argv[0], argv, envp);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Waits for pid until deadline (a now_s() time), then kills its group.
 * Returns the wait status; *timed_out says whether it was killed. */
static int wait_until(pid_t pid, double deadline, int *timed_out)
{
    int status = 0;
    *timed_out = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (now_s() > deadline) {
            *timed_out = 1;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        struct timespec ms = {0, 5 * 1000 * 1000};
        nanosleep(&ms, NULL);
    }
    kill(-pid, SIGKILL); /* anything the child left in its group */
    return status;
}

/* The environment of the compiler and nm, the grader's choice: the PATH the
 * build recorded (the toolchain's folders, then the system's), C messages,
 * and temporary files in the stage's tmp/ (under Landlock, /tmp is not
 * theirs). Nothing of the grader's own environment. */
static char **tool_env(const char *stage)
{
    static char tmp[4200];
    static char *env[] = {"PATH=" GRADER_TOOL_PATH, "LC_ALL=C", tmp, NULL};
    snprintf(tmp, sizeof tmp, "TMPDIR=%s/tmp", stage);
    return env;
}

/* view and the toolchain's folders (GRADER_TOOLCHAIN), NULL-terminated, in
 * out (room for cap entries); the strings are view's and a static copy. */
static const char *const *with_toolchain(const char *const *view, const char **out, int cap)
{
    static char dirs[] = GRADER_TOOLCHAIN;
    static char *tool[16];
    static int ntool = -1;
    if (ntool < 0) {
        ntool = 0;
        for (char *d = strtok(dirs, " "); d && ntool < 16; d = strtok(NULL, " "))
            tool[ntool++] = d;
    }
    int n = 0;
    for (int i = 0; view && view[i] && n < cap - 1; i++)
        out[n++] = view[i];
    for (int i = 0; i < ntool && n < cap - 1; i++)
        out[n++] = tool[i];
    out[n] = NULL;
    return out;
}

/* Whether the log says the tool failed for want of the machine's resources
 * (a fork or an allocation refused), which is no fault of the submission. */
static int short_of_resources(const char *log)
{
    char *text = read_head(log, 400, 65536);
    int short_of = text && (strstr(text, "Resource temporarily unavailable") ||
                            strstr(text, "Cannot allocate memory") ||
                            strstr(text, "cannot fork") || strstr(text, "Cannot fork"));
    free(text);
    return short_of;
}

/* Runs the compiler with the given arguments, in the sandbox with the
 * stage writable and view readable. Returns 0 when it succeeded, -1 when it
 * failed, and -2 when it could not run for want of the machine's resources
 * (tried three times): a grader error, not the submission's. */
static int run_build(char **argv, const char *log, const char *stage, const char *const *view,
                     long as_mib)
{
    const char *shown[40];
    limits lim = {as_mib, 64L << 20, 0, (long)BUILD_TIMEOUT_S, 256, EXTRA_PROCS, stage,
                  with_toolchain(view, shown, 40)};
    for (int tries = 0;; tries++) {
        pid_t pid = spawn(argv, tool_env(stage), log, -1, &lim);
        if (pid < 0)
            return -2;
        int timed_out;
        int status = wait_until(pid, now_s() + BUILD_TIMEOUT_S, &timed_out);
        if (timed_out) {
            FILE *f = fopen(log, "a");
            if (f) {
                fprintf(f, "the compiler was stopped after %.0f s\n", BUILD_TIMEOUT_S);
                fclose(f);
            }
            return -1;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            return 0;
        if (!short_of_resources(log))
            return -1;
        if (tries == 2)
            return -2;
        sleep(1 + tries);
    }
}

/* ---- what a submission may not call -------------------------------------------------- */

/*
 * Symbols no submission may use, whatever the lab: starting processes,
 * signalling them, opening files or sockets, loading code, raw system calls,
 * and the grading machinery itself. A name ending in '*' is a prefix. A
 * submission that needs none of these loses nothing; one that uses them is
 * told so at build time, by name, instead of failing in some stranger way.
 */
static const char *const forbidden_everywhere[] = {
    "fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl",
    "execlp", "execle", "fexecve", "system", "popen", "posix_spawn", "posix_spawnp",
    "kill", "killpg", "tgkill", "tkill", "sigqueue", "ptrace", "syscall",
    "open", "open64", "openat", "openat64", "creat", "creat64", "fopen", "fopen64", "freopen",
    "freopen64", "opendir", "socket", "socketpair", "connect", "bind", "listen", "accept",
    "accept4", "dlopen", "dlmopen", "dlsym", "dlvsym", "mprotect",
    "npy_*", "idx_*", "gr_*", "golden_*", "srunner_*", "tcase_*", "suite_*", "grader_*",
    "ref_*", 0,
};

/* Symbols no submission may DEFINE: the sanitizers' hooks, which would let
 * it switch off the checks of a SANITIZE=1 grader. */
static const char *const forbidden_definitions[] = {
    "__asan_*", "__ubsan_*", "__lsan_*", "__msan_*", "__tsan_*", "__sanitizer_*", 0,
};

static const char *match_symbol(const char *const *list, const char *name)
{
    for (int i = 0; list && list[i]; i++) {
        size_t len = strlen(list[i]);
        bool prefix = len > 0 && list[i][len - 1] == '*';
        if (prefix ? strncmp(name, list[i], len - 1) == 0 : strcmp(name, list[i]) == 0)
            return list[i];
    }
    return NULL;
}

/*
 * Lists the symbols obj uses and defines (nm -P) and appends to log a line
 * for each it may not: "lab0.c: uses fp8_encode, which lab0 does not allow:
 * ...". Returns 0 when there is none, -1 otherwise or when nm fails.
 */
/* Section names whose code runs outside any test: at load or at exit, in
 * the runner itself, which holds the results channel (runner.c). */
static const char *const forbidden_sections[] = {
    ".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".init", ".fini", 0,
};

/*
 * Appends to out a line for each symbol of the object whose name holds a
 * space or a control character, which no C name does: it would split nm's
 * line (name type value size) and hide its type from check_symbols.
 * Returns the number of such names.
 */
static int odd_symbol_names(FILE *f, const Elf64_Shdr *sh, int nsh, const char *file, FILE *out)
{
    int odd = 0;
    for (int i = 0; i < nsh; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= (unsigned)nsh ||
            sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_size > (64u << 20))
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_size > (64u << 20))
            continue;
        size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
        Elf64_Sym *syms = malloc(sh[i].sh_size + 1);
        char *names = calloc(1, str->sh_size + 1);
        if (syms && names && fseek(f, (long)sh[i].sh_offset, SEEK_SET) == 0 &&
            fread(syms, sizeof *syms, nsym, f) == nsym &&
            fseek(f, (long)str->sh_offset, SEEK_SET) == 0 &&
            fread(names, 1, str->sh_size, f) == str->sh_size) {
            for (size_t k = 0; k < nsym; k++) {
                if (syms[k].st_name >= str->sh_size)
                    continue;
                const char *name = names + syms[k].st_name;
                for (const char *c = name; *c; c++) {
                    if (*c == ' ' || (unsigned char)*c < 0x20 || *c == 0x7f) {
                        fprintf(out, "%s: has a symbol whose name is not a C name (\"%.40s\" "
                                "holds a space or a control character), which no submission "
                                "may\n", file, name);
                        odd++;
                        break;
                    }
                }
            }
        }
        free(syms);
        free(names);
    }
    return odd;
}

/*
 * Reads the section names of the ELF object obj and appends to out a line
 * for each that would run the submission's code outside the tests (a
 * constructor or destructor). Returns 0 when there is none, -1 otherwise or
 * when obj is not an ELF object this can read.
 */
static int check_sections(const char *obj, const char *file, FILE *out, int cuda)
{
    int init_arrays = 0;
    FILE *f = fopen(obj, "rb");
    Elf64_Ehdr eh;
    int rc = -1;
    if (!f || fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum) {
        fprintf(out, "%s: the grader could not read its sections\n", file);
        goto done;
    }
    Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
    char *names = NULL;
    if (sh && fseek(f, (long)eh.e_shoff, SEEK_SET) == 0 &&
        fread(sh, sizeof *sh, eh.e_shnum, f) == eh.e_shnum) {
        const Elf64_Shdr *strtab = &sh[eh.e_shstrndx];
        if (strtab->sh_size < (1u << 20) && (names = calloc(1, strtab->sh_size + 1)) != NULL &&
            fseek(f, (long)strtab->sh_offset, SEEK_SET) == 0 &&
            fread(names, 1, strtab->sh_size, f) == strtab->sh_size)
            rc = 0;
        for (int i = 0; rc >= 0 && i < eh.e_shnum; i++) {
            if (sh[i].sh_name >= strtab->sh_size)
                continue;
            const char *name = names + sh[i].sh_name;
            /* nvcc registers the file's GPU code with the CUDA runtime from
             * one constructor of its own: one pointer in one .init_array. A
             * constructor of the submission's would make a second entry. */
            if (cuda && strcmp(name, ".init_array") == 0 && init_arrays++ == 0 &&
                sh[i].sh_size == sizeof(void *))
                continue;
            for (int k = 0; forbidden_sections[k]; k++) {
                size_t len = strlen(forbidden_sections[k]);
                if (strncmp(name, forbidden_sections[k], len) == 0 &&
                    (name[len] == '\0' || name[len] == '.')) {
                    fprintf(out, "%s: has a constructor or destructor (section %s), code that "
                            "would run outside the tests, which no submission may\n", file,
                            name);
                    rc = -2;
                }
            }
        }
    }
    if (rc >= 0 && odd_symbol_names(f, sh, eh.e_shnum, file, out) != 0)
        rc = -2;
    if (rc == -1)
        fprintf(out, "%s: the grader could not read its sections\n", file);
    rc = rc == 0 ? 0 : -1;
    free(sh);
    free(names);
done:
    if (f)
        fclose(f);
    return rc;
}

/* Whether name is the lab's: "lab0_" and more, for lab0. */
static bool lab_name(const grader_lab *lab, const char *name)
{
    size_t len = strlen(lab->name);
    return strncmp(name, lab->name, len) == 0 && name[len] == '_';
}

/* In nvcc's objects: names that are not the submission's own globals. The
 * personality routine's reference (DW.ref.__gxx_personality_v0) and weak
 * C++ definitions from the headers (inline functions: _Z names), but never
 * operator new or delete (_Znw _Zna _Zdl _Zda), which would replace the
 * runner's allocator. */
static bool cuda_allowed_global(const char *name, const char *type)
{
    if (strncmp(name, "DW.ref.", 7) == 0)
        return true;
    bool weak = strcmp(type, "W") == 0 || strcmp(type, "V") == 0;
    return weak && strncmp(name, "_Z", 2) == 0 && strncmp(name, "_Znw", 4) != 0 &&
           strncmp(name, "_Zna", 4) != 0 && strncmp(name, "_Zdl", 4) != 0 &&
           strncmp(name, "_Zda", 4) != 0;
}

/* A static object's constructor or destructor, which g++ (under nvcc) runs
 * from a function of one of these names. */
static bool static_init_symbol(const char *name)
{
    return strncmp(name, "_GLOBAL__sub_I_", 15) == 0 || strncmp(name, "_GLOBAL__sub_D_", 15) == 0 ||
           strstr(name, "__static_initialization_and_destruction") != NULL;
}

static int check_symbols(const gr_options *o, const char *stage, const char *obj,
                         const char *file, const char *log, int cuda)
{
    char *listing = gr_asprintf("%s/nm.out", stage);
    char *argv[] = {"nm", "-P", (char *)obj, NULL};
    static const char *const nothing_more[] = {NULL};
    limits lim = {0, 16L << 20, 0, 30, 64, EXTRA_PROCS, stage, nothing_more};
    int rc = -1, timed_out = 0, status = -1;
    pid_t pid = spawn(argv, tool_env(stage), listing, -1, &lim);
    if (pid > 0)
        status = wait_until(pid, now_s() + 30, &timed_out);
    FILE *in = fopen(listing, "r"), *out = fopen(log, "a");
    if (!in || !out || pid <= 0 || timed_out || !WIFEXITED(status) || WEXITSTATUS(status)) {
        if (out)
            fprintf(out, "%s: the grader could not list its symbols with nm\n", file);
        goto done;
    }
    rc = 0;
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        char name[512], type[8];
        if (sscanf(line, "%511s %7s", name, type) != 2)
            continue;
        bool used = strcmp(type, "U") == 0 || strcmp(type, "w") == 0 || strcmp(type, "v") == 0;
        /* Global: an upper-case type, or 'u', a GNU unique symbol, which
         * binds across the whole process like any global. */
        bool global = !used && (isupper((unsigned char)type[0]) || type[0] == 'u');
        if (used && match_symbol(forbidden_everywhere, name)) {
            fprintf(out, "%s: uses %s, which no submission may: no starting or signalling "
                    "processes, opening files or sockets, loading code, or reaching into the "
                    "grader or its reference solution\n", file, name);
            rc = -1;
        } else if (used && match_symbol(o->lab->forbidden, name)) {
            fprintf(out, "%s: uses %s, which %s does not allow: %s\n", file, name,
                    o->lab->name, o->lab->forbidden_why ? o->lab->forbidden_why : "");
            rc = -1;
        } else if (global && /* instrumented code has local ones */
                   match_symbol(forbidden_definitions, name)) {
            fprintf(out, "%s: defines %s, a sanitizer hook, which no submission may\n", file,
                    name);
            rc = -1;
        } else if (cuda && !used && static_init_symbol(name)) {
            fprintf(out, "%s: has an object with a constructor or destructor at file scope "
                    "(%s), code that would run outside the tests, which no submission may\n",
                    file, name);
            rc = -1;
        } else if (type[0] == 'i') {
            fprintf(out, "%s: defines %s, an indirect function, whose resolver would run "
                    "outside the tests, which no submission may\n", file, name);
            rc = -1;
        } else if (global && !lab_name(o->lab, name) &&
                   !(cuda && cuda_allowed_global(name, type))) {
            /* A global of another name could stand in for one the runner uses. */
            if (cuda)
                fprintf(out, "%s: defines %s, a global name: only %s_* functions may be "
                        "global (make it static, or put it in an anonymous namespace; a "
                        "__global__ kernel too)\n", file, name, o->lab->name);
            else
                fprintf(out, "%s: defines %s, a global name: only %s_* names may be global "
                        "(make %s static)\n", file, name, o->lab->name, name);
            rc = -1;
        }
    }
    if (check_sections(obj, file, out, cuda) != 0)
        rc = -1;
done:
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    unlink(listing);
    free(listing);
    return rc;
}

/* Compiles src into obj with the flags (a space-separated list), the
 * messages into log: with nvcc when cuda, else the C compiler. */
static int compile(const char *flags, char *inc_src, char *inc_common, char *src, char *obj,
                   const char *log, const char *stage, const char *const *view, int cuda)
{
    char cf[4096];
    snprintf(cf, sizeof cf, "%s", flags);
    char *argv[256];
    int argc = 0;
    argv[argc++] = cuda ? GRADER_NVCC : GRADER_CC;
    push_words(argv, &argc, 240, cf);
    argv[argc++] = inc_src;
    argv[argc++] = inc_common;
    argv[argc++] = "-c";
    argv[argc++] = src;
    argv[argc++] = "-o";
    argv[argc++] = obj;
    argv[argc] = NULL;
    return run_build(argv, log, stage, view, cuda ? NVCC_AS_MIB : BUILD_AS_MIB);
}

/*
 * Whether the sandbox can run the toolchain at all, asked once per process
 * before any submission's build can be blamed for it: the C compiler, and
 * for a CUDA lab nvcc and its host compiler, each run on --version with the
 * view a build gets. A toolchain the sandbox cannot run (installed where it
 * does not look, or refused by it) is the grader's error, said once with
 * what the tool said, never a student's 0. Returns 0, -1 with err, or -2
 * when the machine was short of processes or memory.
 */
static int toolchain_runs(const gr_options *o, const char *stage, lab_error *err)
{
    static int checked[2];
    const char *const tools[2][2] = {{GRADER_CC, NULL}, {GRADER_NVCC, GRADER_NVCC_HOST}};
    char *common = gr_asprintf("%s/common", o->root);
    const char *const view[] = {common, NULL};
    int rc = 0;
    for (int k = 0; k < (o->lab->cuda ? 2 : 1) && rc == 0; k++) {
        for (int t = 0; t < 2 && rc == 0 && !checked[k]; t++) {
            const char *tool = tools[k][t];
            if (!tool || !*tool)
                continue;
            char *log = gr_asprintf("%s/log/toolchain.out", stage);
            char *argv[] = {(char *)tool, "--version", NULL};
            int ran = run_build(argv, log, stage, view, k ? NVCC_AS_MIB : BUILD_AS_MIB);
            if (ran == -2) {
                rc = -2;
            } else if (ran != 0) {
                const gr_sandbox *sb = gr_sandbox_get(NULL);
                char *said = read_head(log, 3, 600);
                for (char *c = said; c && *c; c++)
                    if (*c == '\n')
                        *c = c[1] ? ';' : '\0';
                rc = lab_errorf(err, "the grader cannot run the compiler %s in its sandbox (%s): "
                                "%s. The grader's setup is at fault, not the submission: "
                                "rebuild the course (make) where the compiler is installed, "
                                "or tell the course staff", tool,
                                sb->on ? "bubblewrap" : sb->landlock > 0 ? "Landlock" : "none",
                                said && *said ? said : "it failed with no message");
                free(said);
            }
            unlink(log);
            free(log);
        }
        checked[k] = rc == 0;
    }
    free(common);
    return rc;
}

/* Whether the lab's tests call the submission in a subject of its own
 * (channel.h): every lab with a call table. */
static bool split_lab(const grader_lab *lab)
{
    char word[64];
    snprintf(word, sizeof word, " %s ", lab->name);
    return strstr(GRADER_SPLIT_LABS, word) != NULL;
}

/* Compiles the student's .c files (and a CUDA lab's .cu files, with nvcc)
 * and links them with the lab's suite into stage/runner. Returns 0, or -1
 * with the messages in stage/build.log. */
static int build_runner(const gr_options *o, const char *stage)
{
    char cflags[] = GRADER_CFLAGS, ldlibs[] = GRADER_LDLIBS, nvccflags[] = GRADER_NVCCFLAGS;
    char cudalibs[] = GRADER_CUDA_LDLIBS;
    char *link[256];
    int nlink = 0;
    char *log = gr_asprintf("%s/build.log", stage);
    char *runner = gr_asprintf("%s/runner", stage);
    char *suite = gr_asprintf("%s/grading/%s_suite.o", o->build, o->lab->name);
    char *reference = gr_asprintf("%s/grading/%s_reference.o", o->build, o->lab->name);
    char *libgrading = gr_asprintf("%s/grading/libgrading.a", o->build);
    char *libfp8 = gr_asprintf("%s/libfp8lab.a", o->build);
    char *inc_src = gr_asprintf("-I%s/src", stage);
    char *inc_common = gr_asprintf("-I%s/common", o->root);
    /* What the compiler may read besides the system and the stage: the
     * course's headers; and the linker, the grader's own objects. */
    char *common = gr_asprintf("%s/common", o->root);
    const char *const compile_view[] = {common, NULL};
    const char *const link_view[] = {suite, reference, libgrading, libfp8, NULL};
    int split = split_lab(o->lab);
    char *subject = gr_asprintf("%s/subject", stage);
    char *calls = gr_asprintf("%s/grading/%s_subject.o", o->build, o->lab->name);
    char *libsubject = gr_asprintf("%s/grading/libsubject.a", o->build);
    /* the modules of the course's library the lab names, and no more */
    char *library[16] = {0};
    int nlibrary = 0;
    for (int i = 0; o->lab->library && o->lab->library[i] && nlibrary < 13; i++)
        library[nlibrary++] =
            gr_asprintf("%s/subject/obj/common/%s.o", o->build, o->lab->library[i]);
    const char *subject_view[16] = {calls, libsubject};
    for (int i = 0; i < nlibrary; i++)
        subject_view[2 + i] = library[i];
    char *objs[32], *plains[32];
    int nobj = 0, rc = 0;

    link[nlink++] = GRADER_CC;
    for (int i = 0; o->lab->student_files[i] && nobj < 32 && rc == 0; i++) {
        const char *file = o->lab->student_files[i];
        size_t len = strlen(file);
        int cuda = o->lab->cuda && len > 3 && strcmp(file + len - 3, ".cu") == 0;
        if (!cuda && (len < 2 || strcmp(file + len - 2, ".c") != 0))
            continue;
        size_t stem = len - (cuda ? 3 : 2);
        char *src = gr_asprintf("%s/src/%s", stage, file);
        objs[nobj] = gr_asprintf("%s/%.*s.o", stage, (int)stem, file);
        char *clog = gr_asprintf("%s.%d", log, nobj);
        /* A sanitized object has the sanitizer's own constructors and
         * globals: the checks then look at a plain build of the file (nvcc's
         * objects are never sanitized). */
        char *plain = GRADER_SANITIZE && !cuda ? gr_asprintf("%s.plain", objs[nobj]) : NULL;
        /* A split lab's subject needs only the plain build. */
        if (!(split && plain))
            rc = compile(cuda ? nvccflags : cflags, inc_src, inc_common, src, objs[nobj], clog,
                         stage, compile_view, cuda);
        if (rc == 0 && plain)
            rc = compile(GRADER_CHECK_CFLAGS, inc_src, inc_common, src, plain, clog, stage,
                         compile_view, 0);
        if (rc == 0)
            rc = check_symbols(o, stage, plain ? plain : objs[nobj], file, clog, cuda);
        plains[nobj] = plain;
        free(clog);
        free(src);
        link[nlink++] = objs[nobj++];
    }
    if (rc == 0 && split) {
        /* The subject: the submission (a plain build of it, when the
         * grader's own is sanitized), the call table and the course's
         * library, statically; nothing of the tests'. */
        char sl[] = GRADER_SUBJECT_LDLIBS;
        for (int i = 0; i < nobj; i++)
            link[1 + i] = GRADER_SANITIZE ? plains[i] : objs[i];
        link[nlink++] = calls;
        for (int i = 0; i < nlibrary; i++)
            link[nlink++] = library[i];
        link[nlink++] = libsubject;
        push_words(link, &nlink, 250, sl);
        link[nlink++] = "-o";
        link[nlink++] = subject;
        link[nlink] = NULL;
        char *llog = gr_asprintf("%s.link", log);
        rc = run_build(link, llog, stage, subject_view, BUILD_AS_MIB);
        free(llog);
    } else if (rc == 0) {
        char cf[sizeof cflags];
        memcpy(cf, cflags, sizeof cf);
        push_words(link, &nlink, 200, cf);
        link[nlink++] = suite;
        link[nlink++] = reference;
        link[nlink++] = libgrading;
        link[nlink++] = libfp8;
        if (o->lab->cuda)
            push_words(link, &nlink, 240, cudalibs);
        push_words(link, &nlink, 250, ldlibs);
        link[nlink++] = "-o";
        link[nlink++] = runner;
        link[nlink] = NULL;
        char *llog = gr_asprintf("%s.link", log);
        rc = run_build(link, llog, stage, link_view, BUILD_AS_MIB);
        free(llog);
    }
    /* One log of everything the compiler and linker said, in order. */
    FILE *all = fopen(log, "w");
    for (int i = 0; i <= nobj && all; i++) {
        char *part = i < nobj ? gr_asprintf("%s.%d", log, i) : gr_asprintf("%s.link", log);
        FILE *f = fopen(part, "r");
        char buf[4096];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, all);
        if (f)
            fclose(f);
        free(part);
    }
    if (all)
        fclose(all);
    for (int i = 0; i < nobj; i++)
        free(objs[i]), free(plains[i]);
    free(subject), free(calls), free(libsubject);
    for (int i = 0; i < nlibrary; i++)
        free(library[i]);
    free(log), free(runner), free(suite), free(reference), free(libgrading), free(libfp8);
    free(inc_src), free(inc_common), free(common);
    return rc;
}

/* ---- running the tests ------------------------------------------------------------------ */

/* Reads the runner's results channel until it closes or the deadline. */
static char *read_results(int fd, double deadline, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        int wait_ms = (int)((deadline - now_s()) * 1000);
        if (wait_ms <= 0)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, wait_ms < 100 ? wait_ms : 100);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (n == cap) {
            if (cap >= (8u << 20))
                break; /* no honest runner says this much */
            cap *= 2;
            char *b = realloc(buf, cap + 1);
            if (!b)
                break;
            buf = b;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static void unescape(char *s)
{
    char *d = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *d++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
        } else {
            *d++ = *s;
        }
    }
    *d = '\0';
}

static double timeout_multiplier(void)
{
    const char *s = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end;
    double m = s ? strtod(s, &end) : 1.0;
    return s && end != s && *end == '\0' && m >= 0 ? m : 1.0;
}

/* Says in words what Check's message for a test that did not pass means. */
static char *explain(const gr_options *o, const grader_test *t, const char *check_msg)
{
    int sig;
    if (strcmp(check_msg, "Test timeout expired") == 0)
        return gr_asprintf("timed out: still running after the %g s limit "
                         "(scaled by CK_TIMEOUT_MULTIPLIER=%g); look for a loop "
                         "that never ends",
                         t->timeout_s, timeout_multiplier());
    if (sscanf(check_msg, "Received signal %d", &sig) == 1) {
        if (sig == SIGXFSZ)
            return gr_asprintf("output flood: printed more than %ld MiB (the limit per "
                             "test) and was stopped",
                             GR_OUTPUT_LIMIT >> 20);
        return gr_asprintf("crashed: signal %d (%s) in the code under test; memory is "
                         "limited to %ld MiB, so a huge malloc returns NULL",
                         sig, strsignal(sig), o->lab->mem_limit_mib);
    }
    int code;
    if (sscanf(check_msg, "Early exit with return value %d", &code) == 1)
        return gr_asprintf("exited early with status %d: the code under test called exit() "
                         "(or _exit) instead of returning",
                         code);
    return xstrdup(check_msg);
}

static int runner_status_text(char *buf, size_t n, int status, int timed_out, double limit)
{
    if (timed_out)
        return snprintf(buf, n, "was stopped after %.0f s, past the test's limit", limit);
    if (WIFSIGNALED(status))
        return snprintf(buf, n, "was killed by signal %d (%s)", WTERMSIG(status),
                        strsignal(WTERMSIG(status)));
    return snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
}

/* Fills res from the runner's lines: only the result for res's own test
 * counts. Returns 1 when there was one, 0 when not, -1 with err set when the
 * runner reported a setup error. */
static int parse_result(const gr_options *o, gr_result *res, char *text, lab_error *err)
{
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *fields[4] = {0};
        int nf = 0;
        for (char *p = line; p && nf < 4; nf++) {
            fields[nf] = p;
            p = nf < 3 ? strchr(p, '\t') : NULL;
            if (p)
                *p++ = '\0';
        }
        if (strcmp(fields[0], "error") == 0 && nf >= 2) {
            unescape(fields[1]);
            return lab_errorf(err, "the %s test runner failed: %s", o->lab->name, fields[1]);
        }
        if (strcmp(fields[0], "result") != 0 || nf < 4)
            continue;
        unescape(fields[1]);
        unescape(fields[3]);
        if (strcmp(res->test->name, fields[1]) != 0)
            continue;
        char short_of[64];
        snprintf(short_of, sizeof short_of, "Early exit with return value %d", GRADER_JUDGE_SHORT);
        if (strcmp(fields[2], "error") == 0 && strcmp(fields[3], short_of) == 0)
            return 2; /* the judge's own failing, not the test's (suite.h) */
        if (strcmp(fields[2], "pass") == 0) {
            res->status = GR_PASS;
        } else if (strcmp(fields[2], "failure") == 0) {
            res->status = GR_FAIL;
            res->message = xstrdup(fields[3]);
        } else {
            res->status = GR_ERROR;
            res->message = explain(o, res->test, fields[3]);
        }
        return 1;
    }
    return 0;
}

/* A test whose output reached the limit failed, whatever Check says. The
 * output of a test that did not pass goes into the report: what it printed,
 * or else what the runner printed. */
static void check_output(const char *stage, gr_result *res)
{
    char *path = gr_asprintf("%s/out/%s/%s.out", stage, res->test->name, res->test->name);
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= GR_OUTPUT_LIMIT &&
        res->status != GR_NOT_RUN) {
        free(res->message);
        res->status = GR_ERROR;
        res->message = gr_asprintf("output flood: printed %ld MiB or more (the limit per "
                                 "test) and was stopped",
                                 GR_OUTPUT_LIMIT >> 20);
    }
    if (res->status != GR_PASS) {
        res->output = read_head(path, 20, OUTPUT_SHOWN);
        if (!res->output) {
            free(path);
            path = gr_asprintf("%s/log/%s.runner", stage, res->test->name);
            res->output = read_head(path, 20, OUTPUT_SHOWN);
        }
    }
    free(path);
}

/*
 * Runs one test in a runner of its own, so that whatever the code under test
 * does to the process (even to Check's own bookkeeping, which a child could
 * overwrite) costs only this test.
 */
static int run_one_try(const gr_options *o, const char *stage, char **envp, gr_result *res,
                       lab_error *err)
{
    double budget = 5.0 + res->test->timeout_s * timeout_multiplier();
    /* A split lab's runner is its judge, the same for every submission,
     * which starts the subject built from this one (channel.h). */
    char *runner = split_lab(o->lab)
                       ? gr_asprintf("%s/grading/%s_judge", o->build, o->lab->name)
                       : gr_asprintf("%s/runner", stage);
    char *env_subject = gr_asprintf("GRADER_SUBJECT=%s/subject", stage);
    char *env_mem = gr_asprintf("GRADER_SUBJECT_MEM_MIB=%ld", o->lab->mem_limit_mib);
    char *log = gr_asprintf("%s/log/%s.runner", stage, res->test->name);
    /* The one folder this test may write, its own and new: no earlier test
     * can have left anything where this one's output goes. */
    char *scratch = gr_asprintf("%s/out/%s", stage, res->test->name);
    char *data = gr_asprintf("%s/data", o->root);
    const char *const view[] = {data, stage, runner, NULL};
    char *argv[] = {runner, "3", (char *)res->test->name, NULL};
    int fds[2], rc = 0, n = 0;
    char *env_out = gr_asprintf("GRADER_OUT_DIR=%s", scratch);
    char *env_temp = gr_asprintf("TEMP=%s", scratch);
    char *env[32];
    for (; envp[n] && n < 28; n++)
        env[n] = envp[n];
    env[n++] = env_out;
    env[n++] = env_temp;
    env[n++] = env_subject;
    env[n++] = env_mem;
    env[n] = NULL;

    if (mkdir(scratch, 0700) != 0 || gr_sandbox_own(gr_sandbox_get(NULL), scratch, err) != 0) {
        rc = lab_errorf(err, "%s: cannot create: %s", scratch, strerror(errno));
        goto out;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        rc = lab_errorf(err, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    /* A CUDA lab's tests see the whole machine, read-only: the driver
     * reads much of /proc and /sys (sandbox.h). */
    limits lim = {GRADER_SANITIZE ? 0 : o->lab->mem_limit_mib, GR_OUTPUT_LIMIT,
                  split_lab(o->lab) ? (long)SJ_ARENA_BYTES : 0, (long)budget + 1, o->lab->cuda ? CUDA_RUNNER_NOFILE : RUNNER_NOFILE,
                  RUNNER_NPROC, scratch, o->lab->cuda ? NULL : view};
    pid_t pid = spawn(argv, env, log, fds[1], &lim);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        rc = lab_errorf(err, "cannot start %s: %s", runner, strerror(errno));
        goto out;
    }
    double deadline = now_s() + budget;
    size_t len;
    char *text = read_results(fds[0], deadline, &len);
    close(fds[0]);
    int timed_out;
    int status = wait_until(pid, deadline, &timed_out);
    rc = text ? parse_result(o, res, text, err) : lab_errorf(err, "out of memory");
    free(text);
    if (rc == 2)
        goto out;
    if (rc == 0) {
        char why[160];
        runner_status_text(why, sizeof why, status, timed_out, budget);
        res->message = gr_asprintf("not run: the test program %s before this test reported "
                                 "(its output is shown with -v)",
                                 why);
    }
    if (rc >= 0) {
        check_output(stage, res);
        rc = 0;
    }
out:
    free(runner);
    free(env_subject);
    free(env_mem);
    free(log);
    free(scratch);
    free(data);
    free(env_out);
    free(env_temp);
    return rc;
}

/* run_one_try, again while the judge reports that it ran short of
 * processes or memory (suite.h): three times, then the grader's error. */
static int run_one(const gr_options *o, const char *stage, char **envp, gr_result *res,
                   lab_error *err)
{
    for (int tries = 0; tries < 3; tries++) {
        double start = now_s();
        int rc = run_one_try(o, stage, envp, res, err);
        res->seconds = now_s() - start;
        if (rc != 2)
            return rc;
        char *scratch = gr_asprintf("%s/out/%s", stage, res->test->name);
        gr_remove_tree(scratch);
        free(scratch);
    }
    return lab_errorf(err, "the %s judge could not start the submission's process for %s: "
                      "this machine was short of processes or memory, three times (a grader "
                      "error: grade it again)",
                      o->lab->name, res->test->name);
}

/* "CUDA_VISIBLE_DEVICES=..." as the grader has it (which GPUs a CUDA lab's
 * tests may use, as the instructor chose), or NULL when it is unset. */
static char *gpus_env(void)
{
    const char *gpus = getenv("CUDA_VISIBLE_DEVICES");
    return gpus ? gr_asprintf("CUDA_VISIBLE_DEVICES=%s", gpus) : NULL;
}

static int run_tests(const gr_options *o, const char *stage, gr_report *r, lab_error *err)
{
    char *env_golden = gr_asprintf("GRADER_GOLDEN_DIR=%s/data/golden/%s", o->root, o->lab->name);
    char *env_show = gr_asprintf("GRADER_SHOW=%d", o->show);
    char *env_mult = gr_asprintf("CK_TIMEOUT_MULTIPLIER=%g", timeout_multiplier());
    char *env_seed = o->seed ? gr_asprintf("GRADER_SEED=%s", o->seed) : NULL;
    char *env_gpus = gpus_env();
    /* One BLAS thread in the judge, as in the subject (channel.c): the same
     * sums on every machine, and no thread per core to start (16 on a GPU
     * node, where a judge that started them met the process limit). */
    char *envp[14] = {"PATH=/usr/bin:/bin", "LC_ALL=C", "OPENBLAS_NUM_THREADS=1",
                      "OMP_NUM_THREADS=1", env_golden, env_show, env_mult};
    int n = 7;
    /* The sanitizers' allocator cannot run under an address-space limit;
     * make a huge malloc fail as it would under one. */
    if (GRADER_SANITIZE)
        envp[n++] = "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:"
                    "detect_leaks=0:handle_segv=0:handle_abort=0:handle_sigbus=0";
    if (env_seed)
        envp[n++] = env_seed;
    if (env_gpus)
        envp[n++] = env_gpus;
    /* the grader's own tests: a judge that runs short (channel.c) */
    char *env_short = getenv("FP8LAB_TEST_JUDGE_SHORT")
                          ? gr_asprintf("FP8LAB_TEST_JUDGE_SHORT=%s", getenv("FP8LAB_TEST_JUDGE_SHORT"))
                          : NULL;
    if (env_short)
        envp[n++] = env_short;
    envp[n] = NULL;
    int rc = 0;
    for (int i = 0; i < r->nresults && rc == 0; i++)
        if (r->results[i].status != GR_SKIPPED)
            rc = run_one(o, stage, envp, &r->results[i], err);
    free(env_golden), free(env_show), free(env_mult), free(env_seed);
    free(env_gpus), free(env_short);
    return rc;
}

/*
 * Whether the tests can reach a GPU: build/bin/gpuprobe (common/gpuprobe.cu)
 * run the way the runner runs, in the sandbox, with the runner's
 * environment. Returns 1, or 0 with why saying why not.
 */
static int gpu_usable(const gr_options *o, const char *stage, char *why, size_t size)
{
    char *probe = gr_asprintf("%s/bin/gpuprobe", o->build);
    char *log = gr_asprintf("%s/log/gpuprobe.out", stage);
    char *scratch = gr_asprintf("%s/tmp", stage);
    char *env_gpus = gpus_env();
    char *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", env_gpus, NULL};
    char *argv[] = {probe, NULL};
    int ok = 0;
    if (access(probe, X_OK) != 0) {
        snprintf(why, size, "%s was not built (no nvcc when the course was built)", probe);
    } else {
        limits lim = {0, GR_OUTPUT_LIMIT, 0, 60, CUDA_RUNNER_NOFILE, RUNNER_NPROC, scratch, NULL};
        int timed_out = 0, status = -1;
        pid_t pid = spawn(argv, envp, log, -1, &lim);
        if (pid > 0)
            status = wait_until(pid, now_s() + 60, &timed_out);
        ok = pid > 0 && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        char *said = read_head(log, 1, 300);
        snprintf(why, size, "%s", said ? said : timed_out ? "gpuprobe hung" : "gpuprobe failed");
        free(said);
    }
    free(probe), free(log), free(env_gpus), free(scratch);
    return ok;
}

/* Marks the tests that need a GPU SKIPPED, saying why. */
static void skip_gpu_tests(gr_report *r, const char *why)
{
    for (int i = 0; i < r->nresults; i++) {
        gr_result *res = &r->results[i];
        if (!res->test->gpu)
            continue;
        free(res->message);
        res->status = GR_SKIPPED;
        res->message = gr_asprintf("it needs a GPU, and the tests found none they can use: %s", why);
    }
}

static int needs_gpu(const gr_report *r)
{
    for (int i = 0; i < r->nresults; i++)
        if (r->results[i].test->gpu)
            return 1;
    return 0;
}

/* ---- the whole run ----------------------------------------------------------------------- */

int gr_test_selected(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *t = list; *t; t += strcspn(t, ",") + (t[strcspn(t, ",")] != 0))
        if (strcspn(t, ",") == n && strncmp(t, name, n) == 0)
            return 1;
    return 0;
}

void gr_remove_tree(const char *path)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/rm", "rm", "-rf", "--", path, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

static void not_run_all(gr_report *r, const char *why)
{
    for (int i = 0; i < r->nresults; i++) {
        free(r->results[i].message);
        r->results[i].status = GR_NOT_RUN;
        r->results[i].message = xstrdup(why);
    }
}

/* Copies the course's files and the student's into stage/src. Returns -1 on a
 * setup error; sets r->build_log and returns 1 when a student file is
 * missing or refused. */
static int stage_files(const gr_options *o, const char *stage, gr_report *r, lab_error *err)
{
    const grader_lab *lab = o->lab;
    for (int i = 0; lab->provided_files[i]; i++) {
        char *from = gr_asprintf("%s/labs/%s/%s", o->root, lab->name, lab->provided_files[i]);
        char *to = gr_asprintf("%s/src/%s", stage, lab->provided_files[i]);
        int rc = copy_file(from, to, err);
        free(from), free(to);
        if (rc != 0)
            return -1;
    }
    for (int i = 0; lab->student_files[i]; i++) {
        lab_error why;
        const char *name = lab->student_files[i];
        char *from = gr_asprintf("%s/%s", o->source_dir, name);
        char *to = gr_asprintf("%s/src/%s", stage, name);
        struct stat st;
        /* The submission's own failings name the file, not where it was. */
        int rc = lstat(from, &st) != 0    ? lab_errorf(&why, "no %s in the submission", name)
                 : !S_ISREG(st.st_mode)   ? lab_errorf(&why, "%s in the submission is not a "
                                                             "regular file (a link?)", name)
                                          : copy_file(from, to, &why);
        free(from), free(to);
        if (rc != 0) {
            r->build_log = xstrdup(why.msg);
            return 1;
        }
    }
    return 0;
}

int gr_grade(const gr_options *o, gr_report *r, lab_error *err)
{
    const grader_lab *lab = o->lab;
    double start = now_s();
    char *stage = NULL;
    int rc = -1;

    memset(r, 0, sizeof *r);
    const char *const readable[] = {o->root, o->build, NULL};
    const gr_sandbox *sb = gr_sandbox_get(readable);
    gr_sandbox_warn(sb);
    sandboxed = sb->on;
    r->lab = lab;
    r->hidden_inputs = o->seed != NULL;
    r->source = o->label ? o->label : o->source_dir;
    r->results = calloc((size_t)lab->ntests, sizeof *r->results);
    if (!r->results)
        return lab_errorf(err, "out of memory");
    for (int i = 0; i < lab->ntests; i++) {
        if (o->only_test && !gr_test_selected(o->only_test, lab->tests[i].name))
            continue;
        r->results[r->nresults].test = &lab->tests[i];
        r->results[r->nresults].status = GR_NOT_RUN;
        r->max_score += lab->tests[i].points;
        r->nresults++;
    }

    char *data = gr_asprintf("%s/data", o->root);
    char *folder = gr_asprintf("golden/%s", lab->name);
    int verified = lab->no_goldens ? 0 : gr_verify_goldens(data, folder, err);
    free(data), free(folder);
    if (verified != 0)
        return -1;

    char *grade_dir = gr_asprintf("%s/grade", o->build);
    if (make_dir(o->build, err) != 0 || make_dir(grade_dir, err) != 0) {
        free(grade_dir);
        return -1;
    }
    stage = gr_asprintf("%s/%s.XXXXXX", grade_dir, lab->name);
    free(grade_dir);
    if (!mkdtemp(stage)) {
        lab_errorf(err, "%s: cannot create: %s", stage, strerror(errno));
        free(stage);
        return -1;
    }
    /* src: the sources; out: a folder per test, its only writable one; log:
     * the runner's own messages, the grader's; tmp: the compiler's. */
    char *src = gr_asprintf("%s/src", stage), *out = gr_asprintf("%s/out", stage);
    char *logs = gr_asprintf("%s/log", stage), *tmp = gr_asprintf("%s/tmp", stage);
    int made = make_dir(src, err) == 0 && make_dir(out, err) == 0 &&
               make_dir(logs, err) == 0 && make_dir(tmp, err) == 0;
    free(src), free(out), free(logs), free(tmp);
    if (!made)
        goto done;

    int staged = stage_files(o, stage, r, err);
    if (staged < 0 || gr_sandbox_own(sb, stage, err) != 0)
        goto done;
    if (lab->cuda && GRADER_NVCC[0] == '\0') {
        /* Nothing to build it with: every test is skipped, none failed. */
        r->build_ok = 0;
        r->build_log = gr_asprintf("%s needs nvcc (the CUDA Toolkit), which was not found when "
                                   "the grader was built: install it (make deps), then make %s",
                                   lab->name, lab->name);
        for (int i = 0; i < r->nresults; i++) {
            free(r->results[i].message);
            r->results[i].status = GR_SKIPPED;
            r->results[i].message = xstrdup("there is no nvcc to build it with");
        }
        rc = 0;
        goto done;
    }
    int usable = staged == 0 ? toolchain_runs(o, stage, err) : 0;
    if (usable == -1)
        goto done;
    int built = staged == 0 && usable == 0 ? build_runner(o, stage) : usable;
    if (built == -2) {
        lab_errorf(err, "the grader could not run the compiler: this machine was short of "
                        "processes or memory, three times (a grader error: grade it again)");
        goto done;
    }
    r->build_ok = staged == 0 && built == 0;
    /* Built: everything in the stage is the grader's again (the runner, its
     * objects, the logs), and no test can change it. */
    if (gr_sandbox_take_back(sb, stage, err) != 0 || chmod(stage, 0755) != 0)
        goto done;
    if (staged == 0) {
        char *log = gr_asprintf("%s/build.log", stage);
        r->build_log = read_head(log, LOG_LINES, 8192);
        free(log);
    }
    if (!r->build_ok) {
        not_run_all(r, "not run: the submission did not build");
    } else {
        char why[400];
        if (needs_gpu(r) && !gpu_usable(o, stage, why, sizeof why))
            skip_gpu_tests(r, why);
        if (run_tests(o, stage, r, err) != 0)
            goto done;
    }
    for (int i = 0; i < r->nresults; i++) {
        gr_result *res = &r->results[i];
        res->points = res->status == GR_PASS ? res->test->points : 0;
        r->score += res->points;
    }
    if (gr_note_builds_on(r) != 0)
        fprintf(stderr, "grader: out of memory: the failures' causes are not named\n");
    rc = 0;
done:
    if (o->keep)
        fprintf(stderr, "grader: the pristine tree is kept in %s\n", stage);
    else
        gr_remove_tree(stage);
    free(stage);
    r->seconds = now_s() - start;
    return rc;
}

void gr_report_free(gr_report *r)
{
    for (int i = 0; i < r->nresults; i++) {
        free(r->results[i].message);
        free(r->results[i].output);
    }
    free(r->results);
    free(r->build_log);
    memset(r, 0, sizeof *r);
}
