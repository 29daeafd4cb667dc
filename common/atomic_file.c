/* atomic_file.c - temporary file, fsync, rename (see atomic_file.h). */
#include "atomic_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

    int fd = mkstemp(af->tmp);
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
    release(af);
    return rc;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->f)
        fclose(af->f);
    if (af->tmp)
        unlink(af->tmp);
    release(af);
}
