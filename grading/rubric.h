/*
 * rubric.h - what the grader knows about each lab: its files, its tests and
 * what each test is worth. One table per lab (grading/labN_rubric.c), linked
 * into the grader and into the lab's test runner, so both agree on every
 * test's name and points.
 *
 * Not for: the tests themselves (grading/labN_suite.c) or how a submission is
 * built and run (grading/builder.c, grading/grade.c).
 */
#ifndef FP8LAB_RUBRIC_H
#define FP8LAB_RUBRIC_H

/* The exit status of a test's process when the test returned normally,
 * and only then (runner.c): no other way out of a test may use it. */
#define GRADER_SENTINEL 93
/* The exit status of a test's process when the judge itself ran short of
 * processes or memory, even after waiting (channel.c): the grader's error,
 * retried (grade.c), never the student's lost point. The subject's own exit
 * is never passed on with either status. */
#define GRADER_JUDGE_SHORT 94

typedef struct grader_test {
    const char *name;    /* what --test takes and the Check test case's name */
    int points;
    const char *title;   /* a few words for the scorecard */
    const char *section; /* the handout section to re-read when it fails */
    double timeout_s;    /* wall-clock limit, scaled by CK_TIMEOUT_MULTIPLIER */
    int gpu;             /* needs a GPU: SKIPPED, not run, where there is none */
    /* The tests whose functions this one calls, space-separated, or NULL:
     * when one of them fails too, this test's report names it and its
     * section first (gr_note_builds_on). */
    const char *builds_on;
} grader_test;

/* A GPU test that needs more than any GPU the course runs on (compute
 * capability 7.5 and later): SKIPPED, with why, on a GPU outside
 * [min, max]. Compute capabilities as one number, 89 for 8.9. */
typedef struct grader_gpu_need {
    const char *test;
    int min;         /* the oldest it runs on */
    int max;         /* the newest (90 for sm_90a code, which runs on 9.0
                        alone), or 0: any from min on */
    const char *why; /* what needs it: "mma.sync with E4M3 operands" */
} grader_gpu_need;

typedef struct grader_lab {
    const char *name;    /* "lab0" */
    const char *title;   /* "FP8 number formats" */
    /* Files taken from the submission; everything else comes from the course. */
    const char *const *student_files;
    /* Files copied from labs/<name>/ into the pristine tree beside them. */
    const char *const *provided_files;
    /* The runner's address-space limit, MiB. */
    long mem_limit_mib;
    /* Symbols this lab's submissions may not use (beyond those no lab
     * allows: builder.c), NULL-terminated, a trailing '*' a prefix, or NULL;
     * and why, for the build log. */
    const char *const *forbidden;
    const char *forbidden_why;
    /* The modules of the course's library (common/NAME.c) linked into the
     * lab's subject (channel.h), NULL-terminated, or NULL: none. Nothing
     * else of the library is there to call. */
    const char *const *library;
    /* The tests that, given a seed (./grader --seed), also draw inputs from
     * it and check the submission against the reference solution on them
     * (hidden inputs), NULL-terminated. */
    const char *const *hidden;
    const grader_test *tests;
    int ntests;
    /* Built with nvcc: the student files ending in .cu are compiled with
     * it, and the runner links the CUDA runtime and cuBLASLt. */
    int cuda;
    /* Has no files in data/golden: its tests compute what they expect with
     * the course library (common/), on inputs they draw themselves. */
    int no_goldens;
    /* The GPU tests that need a newer GPU than the others, or NULL. */
    const grader_gpu_need *gpu_needs;
    int ngpu_needs;
} grader_lab;

/* Every lab the grader knows, in course order, NULL-terminated. */
extern const grader_lab *const grader_labs[];

const grader_lab *grader_find_lab(const char *name);
const grader_test *grader_find_test(const grader_lab *lab, const char *name);
int grader_lab_points(const grader_lab *lab);

#define GRADER_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
