/*
 * channel.h - how the judge (the tests) calls the submission's functions,
 * which run only in the subject, a process of their own (DESIGN.md, "The
 * grader").
 *
 * The two share one arena, a memfd mapped by each at its own address, and
 * two pipes. For a call, the judge writes into the arena the function's
 * number, its arguments (numbers as 64-bit words, pointers as offsets into
 * the arena, where the judge has copied what they point to) and a token to
 * the call pipe; the subject runs the function on the arena's copies,
 * writes the return value into the arena and a token to the reply pipe
 * (sj_token: the answer to that call and no other).
 * The judge then copies back only the outputs the call declared, from the
 * places it chose, and believes nothing else the arena says: whatever the
 * subject does to the arena changes only its own outputs.
 *
 * Each lab's call table, grading/labN_calls.c, holds both sides: with
 * GR_SUBJECT defined, labN_dispatch, which unpacks a call and runs the
 * submission's function; without, a proxy of the lab's own signature for
 * each function, so that the suite still calls lab0_encode(...).
 *
 * The judge finds the subject's program in GRADER_SUBJECT, and the address
 * space it may have, in MiB, in GRADER_SUBJECT_MEM_MIB (none when unset).
 *
 * lab5's subject holds a CUDA context of its own, and its call table moves
 * device buffers' bytes through the arena (lab5/calls.c); it is a dynamic
 * program, so the judge's child gives it the filters and the Landlock
 * rules a CUDA program needs (policy.h, channel.c). Built only with
 * LAB5_SPLIT=1; otherwise lab5's tests run in one process with the
 * submission.
 */
#ifndef FP8LAB_CHANNEL_H
#define FP8LAB_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

/* The subject's descriptors: calls in, replies out, the arena. */
enum { SJ_CALL_FD = 3, SJ_REPLY_FD = 4, SJ_ARENA_FD = 5 };

#define SJ_MAX_ARGS 16
#define SJ_RET_BYTES 256
/* The arena's size: the largest call's inputs and outputs fit. */
#define SJ_ARENA_BYTES ((size_t)192 << 20)

/* The arena's first page. The judge writes fn and args; the subject ret,
 * and, when the kernel stopped it at a forbidden system call, syscall. */
typedef struct sj_header {
    uint32_t fn;
    uint32_t nargs;
    uint64_t args[SJ_MAX_ARGS];
    int64_t syscall; /* -1, or the number of the forbidden call */
    _Alignas(16) unsigned char ret[SJ_RET_BYTES];
} sj_header;

#define SJ_DATA_OFFSET ((size_t)4096)

/* What travels on the pipes: a call (word: the function's number) and its
 * answer (word: 'd' done, '?' no such call), each with the call's sequence
 * number, so that an answer the judge did not ask for (one the submission
 * wrote, or a late one) is never taken for the next call's. */
typedef struct sj_token {
    uint32_t word, seq;
} sj_token;

/* A pointer inside a struct the judge copied into the arena holds the
 * pointee's offset + 1 (0: NULL) until the subject turns it into its own
 * address with sj_fix. */

#ifdef GR_SUBJECT
/* ---- the subject's side ---- */

/* The arena's address + a - 1, or NULL for 0 (an argument or a field that
 * the judge encoded); an offset outside the arena is NULL too. */
void *sj_ptr(uint64_t a);
/* *field = sj_ptr(*field), for a pointer field of a struct in the arena. */
void sj_fix(void *field);
float sj_float(uint64_t a);
/* The return value's place in the header. */
void *sj_ret(void);
/* Stores the value of expr, a T, as the call's return value. */
#define SJ_RETURN(T, expr)                     \
    do {                                       \
        T sj_r_ = (expr);                      \
        memcpy(sj_ret(), &sj_r_, sizeof sj_r_); \
    } while (0)

/* Each lab's call table: runs call fn with args a. Returns 0, or -1 for a
 * number it does not know. */
int sj_dispatch(uint32_t fn, const uint64_t *a);
/* What a call table does before the first call, when it needs to: 1 when
 * it has locked the subject itself, 0 when the subject should, -1 on
 * failure (subject.c has a default that does nothing). */
int sj_start(void);

#else
/* ---- the judge's side ---- */

typedef struct sj_out_region {
    void *to;     /* where the caller wants it */
    size_t off;   /* where it is in the arena */
    size_t bytes;
} sj_out_region;

typedef struct sj_call {
    uint32_t fn;
    const char *name; /* the lab function's name, for messages */
    uint32_t nargs;
    uint64_t args[SJ_MAX_ARGS];
    size_t used; /* arena bytes given out */
    int nouts;
    sj_out_region outs[24];
} sj_call;

void sj_begin(sj_call *c, uint32_t fn, const char *name);

/* a * b, or SIZE_MAX, more than any arena holds, when that overflows: the
 * size of a block from a count and an element's size. */
size_t sj_size(size_t a, size_t b);

/* Which way a block's bytes travel. */
typedef enum sj_dir { SJ_IN, SJ_OUT, SJ_INOUT } sj_dir;

/* A block of bytes in the arena, not (yet) an argument: for SJ_IN and
 * SJ_INOUT a copy of p's; for SJ_OUT filled with 0xCD (none of the
 * caller's memory reaches the subject). SJ_OUT and SJ_INOUT blocks are
 * copied back to p after the call, and must not have been written past.
 * Returns the block's judge-side address (NULL for a NULL p), for sj_link
 * and sj_arg_block. */
void *sj_block(sj_call *c, void *p, size_t bytes, sj_dir dir);

void sj_val(sj_call *c, uint64_t v);
void sj_f32(sj_call *c, float v);
/* sj_block, then the block as the next argument (NULL: a NULL one). */
void *sj_in(sj_call *c, const void *p, size_t bytes);
void *sj_out(sj_call *c, void *p, size_t bytes);
void *sj_inout(sj_call *c, void *p, size_t bytes);
/* For a struct copied with sj_in/sj_inout: makes the pointer field at
 * field (in the arena copy) point to the block at copy (also returned by
 * sj_in, sj_out or sj_inout; NULL for NULL). Not an argument. */
void sj_link(sj_call *c, void *field, const void *copy);
/* The block as an argument, already in the arena. */
void sj_arg_block(sj_call *c, const void *copy);
/* Runs the call in the subject (started on the first call of a test),
 * then copies the outputs back. When the subject does not come back (it
 * crashed, ended itself, or made a forbidden system call), fails the test
 * saying so. */
void sj_run(sj_call *c);
/* The return value, as the subject left it. */
const void *sj_result(const sj_call *c);
/* Stops the subject, every thread of it, until sj_resume (no-op when none
 * runs): while the judge times something of its own, nothing the subject
 * started may take the CPU from it. */
void sj_pause(void);
void sj_resume(void);
/* The return value as a T. */
#define SJ_RESULT(T, c) (*(const T *)sj_result(c))

#endif
#endif
