/*
 * demo_stale.c - a lab's demo, built from the student's labs/labN, says when
 * it starts that it is older than its sources, and the command that
 * rebuilds it.
 *
 * ./grader labN builds its own copy of labs/labN/labN.c, not the demo: after
 * an edit and a grading, build/labN/labN still runs the code of the last
 * `make labN`. Linked into that demo only (not into the solutions' demos,
 * nor into libfp8lab), this checks before main() whether a source in
 * DEMO_DIR (a .c, .h or .cu file) was changed after the program file was
 * written, and if so prints one line on stderr:
 *
 *     lab4: labs/lab4/lab4.c changed after this demo was built: it runs the
 *     earlier code (run make lab4 to rebuild it)
 *
 * The demo then runs as it is. Compiled with -DDEMO_LAB='"lab4"' and
 * -DDEMO_DIR='"/path/to/labs/lab4"' (the Makefile). Not for: rebuilding
 * anything; make does that.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifndef DEMO_LAB
#error "DEMO_LAB (the lab's name) is given by the Makefile"
#endif
#ifndef DEMO_DIR
#error "DEMO_DIR (the lab's folder) is given by the Makefile"
#endif

static int is_source(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (strcmp(dot, ".c") == 0 || strcmp(dot, ".h") == 0 || strcmp(dot, ".cu") == 0);
}

static int newer(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

__attribute__((constructor)) static void demo_stale_check(void)
{
    struct stat self;
    DIR *d = opendir(DEMO_DIR);
    if (!d || stat("/proc/self/exe", &self) != 0) {
        if (d)
            closedir(d);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;
        if (!is_source(e->d_name) ||
            snprintf(path, sizeof path, "%s/%s", DEMO_DIR, e->d_name) >= (int)sizeof path ||
            stat(path, &st) != 0 || !newer(&st.st_mtim, &self.st_mtim))
            continue;
        fprintf(stderr, "%s: labs/%s/%s changed after this demo was built: it runs the earlier "
                        "code (run make %s to rebuild it)\n",
                DEMO_LAB, DEMO_LAB, e->d_name, DEMO_LAB);
        break;
    }
    closedir(d);
}
