/*
 * test_spawn.c - what a process the grader starts in its sandbox
 * (grading/spawn.c, with bubblewrap) can see of the grader: nothing of the
 * grader's environment, in its own or in the sandbox's pid 1 (bwrap's own
 * process, whose /proc/1/environ a submission can read). The grader's
 * environment holds a marker; a shell in the sandbox prints what it can
 * read of /proc/1/environ and of its own environment, and neither may hold
 * the marker, while the environment the grader chose for it is there.
 *
 * Skipped (exit 77) where bubblewrap cannot start here.
 *
 *   build/tests/grading/test_spawn
 */
#define _GNU_SOURCE
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "grade.h"
#include "sandbox.h"
#include "spawn.h"

#define MARKER "fp8lab-grader-secret-4711"

static char jail[] = "/tmp/fp8lab-spawn.XXXXXX";

/* Runs the shell command cmd in the sandbox; returns what it printed. */
static char *in_sandbox(const char *cmd)
{
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    lab_error err;
    ck_assert_msg(gr_sandbox_own(sb, jail, &err) == 0, "%s", err.msg);
    char log[300];
    snprintf(log, sizeof log, "%s.log", jail);
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", "CHOSEN=by-the-grader", NULL};
    static const char *const nothing[] = {NULL};
    gr_limits lim = {0};
    lim.jail = jail;
    lim.view = nothing;
    gr_spawn_use_sandbox(1);
    pid_t pid = gr_spawn(argv, envp, log, -1, &lim);
    ck_assert_int_gt(pid, 0);
    int timed_out;
    gr_wait_until(pid, gr_now() + 30, &timed_out);
    ck_assert(!timed_out);
    char *out = gr_read_head(log, 200, 65536);
    unlink(log);
    return out ? out : strdup("");
}

START_TEST(pid1_holds_no_grader_environment)
{
    char *out = in_sandbox("tr '\\0' '\\n' < /proc/1/environ && echo READ_PID1; "
                           "env; echo DONE");
    ck_assert_msg(strstr(out, "DONE") != NULL, "the shell did not run:\n%s", out);
    ck_assert_msg(strstr(out, "CHOSEN=by-the-grader") != NULL,
                  "the environment the grader chose is missing:\n%s", out);
    ck_assert_msg(strstr(out, MARKER) == NULL,
                  "the grader's environment is readable in the sandbox:\n%s", out);
    /* The check above means something only where pid 1 could be read. */
    if (strstr(out, "READ_PID1") == NULL)
        printf("note: /proc/1/environ was not readable in the sandbox here\n");
    free(out);
}
END_TEST

int main(void)
{
    if (setenv("FP8LAB_SPAWN_TEST", MARKER, 1) != 0 || !mkdtemp(jail))
        return 1;
    chmod(jail, 0755);
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    if (!sb->on) {
        printf("test_spawn: skipped: no bwrap sandbox here (%s)\n", sb->why);
        rmdir(jail);
        return 77;
    }
    Suite *s = suite_create("spawn");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, pid1_holds_no_grader_environment);
    suite_add_tcase(s, tc);
    int rc = check_run(s);
    gr_remove_tree(jail);
    return rc;
}
