/* error.c - the one formatter behind lab_error (see error.h). */
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
