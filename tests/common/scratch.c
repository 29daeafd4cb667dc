/*
 * scratch.c - removing a scratch folder (scratch.h).
 */
#include "scratch.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void scratch_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    chmod(path, 0700); /* a test may have made it unreadable */
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char child[4096];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            scratch_remove(child);
        }
        closedir(d);
    }
    rmdir(path);
}
