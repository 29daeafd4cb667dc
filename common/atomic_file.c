/*
 * atomic_file.c - temporary file, fsync, rename, and the registry that
 * removes temporary files when a signal kills the program (see
 * atomic_file.h).
 *
 * The registry is a fixed array of atomic pointers, so that the signal
 * handler can read it at any moment without a lock: a path is published
 * only once its copy is complete, and taken out before it is freed. The
 * handler calls only async-signal-safe functions (getpid, kill, waitpid,
 * unlink, sigaction, raise), and acts only on what its own process tracked
 * (a forked child inherits the registry).
 */
#include "atomic_file.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the registry of temporary files ------------------------------------ */

static const int HANDLED[] = { SIGHUP, SIGINT, SIGPIPE, SIGTERM };
#define N_HANDLED (sizeof HANDLED / sizeof HANDLED[0])

/* A tracked file, and the process that tracked it: a process forked from
 * it (and not yet exec'd) inherits the registry and the handler, and must
 * not remove its parent's files when it is killed. */
typedef struct entry {
    pid_t owner;
    char path[];
} entry;

static _Atomic(entry *) tracked[ATOMIC_FILE_MAX_TRACKED];
static _Atomic(pid_t) child;              /* 0: none */
static _Atomic(pid_t) child_owner;        /* the process that forked it */
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;

static void on_signal(int sig)
{
    int saved = errno;
    pid_t self = getpid();
    pid_t pid = atomic_exchange(&child, 0);
    if (pid > 0 && atomic_load(&child_owner) == self) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    for (size_t i = 0; i < ATOMIC_FILE_MAX_TRACKED; i++) {
        entry *e = atomic_load(&tracked[i]);
        if (e && e->owner == self)
            unlink(e->path);
    }
    /* Die of the signal, as without this handler: it is blocked while the
     * handler runs, so it is delivered on return, to the default action. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

/* The handled signals, as a set. */
static void handled_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < N_HANDLED; i++)
        sigaddset(set, HANDLED[i]);
}

/* Installs on_signal for each handled signal the program leaves at its
 * default action (one it ignores or handles itself is its own business). */
static void install_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    handled_set(&sa.sa_mask); /* one handler at a time */
    for (size_t i = 0; i < N_HANDLED; i++) {
        struct sigaction old;
        if (sigaction(HANDLED[i], NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_DFL)
            sigaction(HANDLED[i], &sa, NULL);
    }
}

int atomic_file_track(const char *path)
{
    pthread_once(&handler_once, install_handler);
    size_t len = strlen(path);
    entry *e = malloc(sizeof *e + len + 1);
    if (!e)
        return -1;
    e->owner = getpid();
    memcpy(e->path, path, len + 1);
    for (size_t i = 0; i < ATOMIC_FILE_MAX_TRACKED; i++) {
        entry *none = NULL;
        if (atomic_compare_exchange_strong(&tracked[i], &none, e))
            return 0;
    }
    free(e);
    return -1;
}

void atomic_file_untrack(const char *path)
{
    pid_t self = getpid();
    for (size_t i = 0; i < ATOMIC_FILE_MAX_TRACKED; i++) {
        entry *e = atomic_load(&tracked[i]);
        if (e && e->owner == self && strcmp(e->path, path) == 0 &&
            atomic_compare_exchange_strong(&tracked[i], &e, NULL)) {
            free(e);
            return;
        }
    }
}

long atomic_file_fork(void)
{
    pthread_once(&handler_once, install_handler);
    sigset_t block, old;
    handled_set(&block);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pid_t pid = fork();
    int fork_errno = errno;
    if (pid > 0) {
        atomic_store(&child_owner, getpid());
        atomic_store(&child, pid);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = fork_errno;
    return (long)pid;
}

void atomic_file_forget_child(void)
{
    atomic_store(&child, 0);
}

/* ---- writing a file atomically ------------------------------------------ */

static void release(atomic_file *af)
{
    free(af->tmp);
    af->tmp = NULL;
    af->f = NULL;
}

int atomic_file_open(atomic_file *af, const char *path, lab_error *err)
{
    af->f = NULL;
    af->path = path;
    size_t cap = strlen(path) + sizeof ".tmp.XXXXXX";
    af->tmp = malloc(cap);
    if (!af->tmp)
        return lab_errorf(err, "%s: out of memory for the temporary file's name", path);
    snprintf(af->tmp, cap, "%s.tmp.XXXXXX", path);

    /* No signal between creating the file and recording it. */
    sigset_t block, old;
    handled_set(&block);
    pthread_once(&handler_once, install_handler);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int fd = mkstemp(af->tmp);
    int mk_errno = errno;
    if (fd >= 0)
        atomic_file_track(af->tmp);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = mk_errno;
    if (fd < 0) {
        int rc = lab_errorf(err, "%s: cannot create temporary file %s: %s", path, af->tmp,
                            strerror(errno));
        release(af);
        return rc;
    }
    /* mkstemp makes the file private (0600); what we write is an ordinary file. */
    if (fchmod(fd, 0644) != 0 || !(af->f = fdopen(fd, "wb"))) {
        int rc = lab_errorf(err, "%s: cannot set up temporary file %s: %s", path, af->tmp,
                            strerror(errno));
        close(fd);
        unlink(af->tmp);
        atomic_file_untrack(af->tmp);
        release(af);
        return rc;
    }
    return 0;
}

int atomic_file_commit(atomic_file *af, lab_error *err)
{
    const char *path = af->path, *tmp = af->tmp;
    int rc = 0;

    bool failed = ferror(af->f) || fflush(af->f) != 0;
    if (failed)
        rc = lab_errorf(err, "%s: cannot write %s: %s", path, tmp,
                        strerror(errno ? errno : EIO));
    else if (fsync(fileno(af->f)) != 0)
        rc = lab_errorf(err, "%s: cannot sync %s to disk: %s", path, tmp, strerror(errno));
    if (fclose(af->f) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot close %s: %s", path, tmp, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = lab_errorf(err, "%s: cannot rename %s to it: %s", path, tmp, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    atomic_file_untrack(tmp);
    release(af);
    return rc;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp) {
        unlink(af->tmp);
        atomic_file_untrack(af->tmp);
    }
    release(af);
}
