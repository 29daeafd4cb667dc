/*
 * check_run.h - the end of every Check program in tests/: run the suite,
 * report as Check does, and turn the result into an exit status.
 */
#ifndef FP8LAB_CHECK_RUN_H
#define FP8LAB_CHECK_RUN_H

#include <check.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Runs every test of s (CK_NORMAL output), frees the runner (and s), and
 * returns 0 when all passed, 1 otherwise. */
int check_run(Suite *s);

#ifdef __cplusplus
}
#endif

#endif
