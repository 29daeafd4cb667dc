/*
 * error.h - how libfp8lab reports a failure to its caller.
 *
 * Library functions never print and never exit. A function that can fail
 * takes a `lab_error *err` (which may be NULL), returns -1 on failure and
 * writes one line into err->msg that names the file or argument and says what
 * is wrong, ready to print as it is. Success returns 0 and leaves err alone.
 */
#ifndef FP8LAB_ERROR_H
#define FP8LAB_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lab_error {
    char msg[512];
} lab_error;

/* Formats the message into err (when err is not NULL) and returns -1. */
int lab_errorf(lab_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends to the string buf of capacity cap, which holds *len characters
 * (for building a message piece by piece); output that does not fit is cut
 * off, and buf stays terminated. */
void lab_appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#endif
