/*
 * enoent.c - preloaded into the compiler by the grader (builder.c): an open
 * that the sandbox refuses (EACCES, Landlock's answer for a file outside the
 * compiler's view) fails as the open of a file that does not exist (ENOENT),
 * as under bubblewrap, which shows no such file. So without bwrap too,
 * __has_include, #include and #pragma GCC dependency cannot tell a student
 * which files exist outside the view: the preprocessor takes a refused file
 * for an existing one it may not read (a fatal error), a missing one for
 * none (__has_include is 0).
 *
 * Only errno changes, and only after the call failed with EACCES: what the
 * compiler may read, it reads as before.
 *
 * Not for: anything but the compiler's processes (the build's LD_PRELOAD).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void refused_as_missing(void)
{
    if (errno == EACCES)
        errno = ENOENT;
}

static int fixed(int rc)
{
    if (rc < 0)
        refused_as_missing();
    return rc;
}

/* The mode argument, where the flags say there is one. */
#define MODE_OF(flags) \
    mode_t mode = 0; \
    if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) { \
        va_list ap; \
        va_start(ap, flags); \
        mode = va_arg(ap, mode_t); \
        va_end(ap); \
    }

/* the next definition of name (libc's), as a function pointer */
static void next(void *fn, size_t size, const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    memcpy(fn, &p, size);
}

#define NEXT(name, type) \
    static type real; \
    if (!real) \
        next(&real, sizeof real, name); \
    if (!real) { \
        errno = ENOSYS; \
        return -1; \
    }

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*access_fn)(const char *, int);
typedef int (*faccessat_fn)(int, const char *, int, int);

int open(const char *path, int flags, ...)
{
    MODE_OF(flags)
    NEXT("open", open_fn)
    return fixed(real(path, flags, mode));
}

int open64(const char *path, int flags, ...)
{
    MODE_OF(flags)
    NEXT("open64", open_fn)
    return fixed(real(path, flags, mode));
}

int openat(int dir, const char *path, int flags, ...)
{
    MODE_OF(flags)
    NEXT("openat", openat_fn)
    return fixed(real(dir, path, flags, mode));
}

int openat64(int dir, const char *path, int flags, ...)
{
    MODE_OF(flags)
    NEXT("openat64", openat_fn)
    return fixed(real(dir, path, flags, mode));
}

/* _FORTIFY_SOURCE's checked opens */
int __open_2(const char *path, int flags)
{
    NEXT("__open_2", open2_fn)
    return fixed(real(path, flags));
}

int __open64_2(const char *path, int flags)
{
    NEXT("__open64_2", open2_fn)
    return fixed(real(path, flags));
}

int __openat_2(int dir, const char *path, int flags)
{
    NEXT("__openat_2", openat2_fn)
    return fixed(real(dir, path, flags));
}

int __openat64_2(int dir, const char *path, int flags)
{
    NEXT("__openat64_2", openat2_fn)
    return fixed(real(dir, path, flags));
}

int access(const char *path, int how)
{
    NEXT("access", access_fn)
    return fixed(real(path, how));
}

int faccessat(int dir, const char *path, int how, int flags)
{
    NEXT("faccessat", faccessat_fn)
    return fixed(real(dir, path, how, flags));
}

typedef FILE *(*fopen_fn)(const char *, const char *);

static FILE *fixed_file(FILE *f)
{
    if (!f)
        refused_as_missing();
    return f;
}

FILE *fopen(const char *path, const char *how)
{
    static fopen_fn real;
    if (!real)
        next(&real, sizeof real, "fopen");
    return real ? fixed_file(real(path, how)) : NULL;
}

FILE *fopen64(const char *path, const char *how)
{
    static fopen_fn real;
    if (!real)
        next(&real, sizeof real, "fopen64");
    return real ? fixed_file(real(path, how)) : NULL;
}
