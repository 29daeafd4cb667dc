/*
 * similarity.h - which submissions of a class look alike (--batch
 * --similarity). It informs the instructor; no score depends on it.
 *
 * First the identical ones: submissions whose student files are the same,
 * byte for byte (sha256); those identical to the lab's skeleton are listed
 * apart ("unchanged skeleton") and compared with nothing. Then Debian's similarity tester, sim_c (package
 * similarity-tester; Dick Grune's "sim"), which compares C token by token,
 * so that layout, comments and names do not hide a copy. It reads each
 * submission's files with every line that the lab's skeleton or the code
 * of its handout (README.md's C blocks) gives everyone taken out (compared
 * without their leading and trailing blanks), and, of what is left, the
 * passages that more than a number of submissions share (sim_common.h, as
 * MOSS's -m), and reports, for each pair, what share of either one's text
 * is found in the other. The pairs where either share reaches the
 * threshold are listed, those sharing the most tokens first, with both
 * shares; the pairs that reach it on all they wrote and not once the
 * common passages are out are counted, and listed apart ("left out as
 * common"): alike in what much of the class wrote (those whose rare text
 * was not compared in full, apart again). What it reads is each file as the
 * compiler does, made small and cut at a cap (sim_text.h); each submission
 * is compared with all the others by a sim_c of its own, in the sandbox as
 * its unprivileged user (sandbox.h), under a limit: one past it is named,
 * and costs only its own pairs.
 *
 * Not for: grading (batch.h).
 */
#ifndef FP8LAB_SIMILARITY_H
#define FP8LAB_SIMILARITY_H

#include <stdio.h>

#include "error.h"

/* What more than this many submissions share is common (MOSS's -m default). */
#define SIM_COMMON_DEFAULT 10

typedef struct gr_sim_input {
    const char *id;    /* the student's id */
    const char *dir;   /* a folder holding the student files that were graded */
} gr_sim_input;

/*
 * Compares the n submissions in in (their files named in files, the lab's
 * student files), the skeleton's copies of those files being in skeleton
 * (labs/<lab>), using work (a folder of its own, made here) for the
 * filtered copies. Writes the report to out_path and a short account of it
 * to summary. threshold is a percentage, 1..100; what more than common
 * submissions share is left out (2 or more). Returns 0, or -1 with err
 * set (a file that cannot be written); without sim_c, it reports the
 * identical ones, says that the rest needs sim_c, and returns 0.
 */
int gr_similarity(const gr_sim_input *in, int n, const char *const *files, const char *skeleton,
                  int threshold, int common, const char *work, const char *out_path,
                  FILE *summary, lab_error *err);

#endif
