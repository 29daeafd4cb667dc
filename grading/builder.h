/*
 * builder.h - building a submission in its pristine tree: each student file
 * compiled in the sandbox (nvcc for a CUDA lab's .cu), checked for what no
 * submission may call or define, and linked into the lab's subject (a lab
 * with a call table, channel.h) or into its test runner (lab5).
 *
 * Not for: running the tests (grade.c).
 */
#ifndef FP8LAB_BUILDER_H
#define FP8LAB_BUILDER_H

#include <stdbool.h>

#include "error.h"
#include "grade.h"

/* Whether the lab's tests call the submission in a subject of its own
 * (channel.h): every lab with a call table. */
bool gr_split_lab(const grader_lab *lab);

/* Whether the sandbox can run the toolchain (see builder.c), once a
 * process: 0, -1 with err (the grader's error), or -2 when the machine was
 * short of processes or memory. */
int gr_toolchain_runs(const gr_options *o, const char *stage, lab_error *err);

/* Compiles the student's files and links them into stage/subject or
 * stage/runner. Returns 0; -1 with the messages in stage/build.log; -2 when
 * the compiler could not run for want of the machine's resources. */
int gr_build_runner(const gr_options *o, const char *stage);

#endif
