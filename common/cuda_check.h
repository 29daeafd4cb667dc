/*
 * cuda_check.h - checking the result of every CUDA runtime call.
 *
 * For .cu files only (it includes cuda_runtime.h); the build puts common/ on
 * the include path and compiles with nvcc. Two forms, one per kind of caller:
 *
 *   CUDA_CHECK(call)           for the main() of a test or demo: on an error,
 *                              prints "file:line: call: cudaErrorX: what" to
 *                              stderr (after flushing stdout, so that a log
 *                              keeps the order) and exits with EXIT_FAILURE.
 *
 *   CUDA_TRY(err, call)        for library functions, which never print and
 *                              never exit (see error.h): on an error, writes
 *                              the same line into err (a lab_error *, may be
 *                              NULL) and makes the enclosing function return
 *                              -1. Use it only in functions that return int.
 *
 * A kernel launch returns nothing, so check it with
 *   kernel<<<grid, block>>>(...);
 *   CUDA_CHECK(cudaGetLastError());      -- launch configuration errors
 *   CUDA_CHECK(cudaDeviceSynchronize()); -- errors while the kernel ran
 *
 * Both forms evaluate `call` exactly once. CUDA_TRY also clears the runtime's
 * last-error state for errors that are not sticky, so that a later
 * cudaGetLastError() does not report the same failure twice; after a sticky
 * error (a kernel fault) the context is unusable whatever is done here.
 */
#ifndef FP8LAB_CUDA_CHECK_H
#define FP8LAB_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "error.h"

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t cuda_check_rc_ = (call);                                    \
        if (cuda_check_rc_ != cudaSuccess) {                                    \
            fflush(stdout);                                                     \
            fprintf(stderr, "%s:%d: %s: %s: %s\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorName(cuda_check_rc_),                           \
                    cudaGetErrorString(cuda_check_rc_));                        \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

#define CUDA_TRY(err, call)                                                     \
    do {                                                                        \
        cudaError_t cuda_try_rc_ = (call);                                      \
        if (cuda_try_rc_ != cudaSuccess) {                                      \
            (void)cudaGetLastError();                                           \
            return lab_errorf((err), "%s:%d: %s: %s: %s", __FILE__, __LINE__,   \
                              #call, cudaGetErrorName(cuda_try_rc_),            \
                              cudaGetErrorString(cuda_try_rc_));                \
        }                                                                       \
    } while (0)

#endif
