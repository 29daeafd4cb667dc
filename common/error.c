/* error.c - the formatters behind lab_error (see error.h). */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

int lab_errorf(lab_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void lab_appendf(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    if (*len >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len = (size_t)n < cap - *len ? *len + (size_t)n : cap - 1;
}
