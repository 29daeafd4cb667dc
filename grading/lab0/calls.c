/*
 * lab0/calls.c - lab0's call table (channel.h): the judge's proxies of
 * lab0.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 */
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab0.h"
#include "calls.h"

enum { DECODE = 1, ENCODE, FORMAT_LIMITS, DECODE_EACH, ENCODE_EACH };

#ifdef GR_SUBJECT

/* The format, with its name, as the judge copied it. */
static const lab0_format *format(uint64_t a)
{
    lab0_format *f = sj_ptr(a);
    if (f)
        sj_fix(&f->name);
    return f;
}

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case DECODE: SJ_RETURN(float, lab0_decode(format(a[0]), (uint8_t)a[1])); return 0;
    case ENCODE: SJ_RETURN(uint8_t, lab0_encode(format(a[0]), sj_float(a[1]), (int)a[2])); return 0;
    case FORMAT_LIMITS: SJ_RETURN(lab0_limits, lab0_format_limits(format(a[0]))); return 0;
    case DECODE_EACH: {
        const lab0_format *f = format(a[0]);
        const uint8_t *codes = sj_ptr(a[1]);
        float *out = sj_ptr(a[3]);
        for (size_t i = 0; i < a[2]; i++)
            out[i] = lab0_decode(f, codes[i]);
        return 0;
    }
    case ENCODE_EACH: {
        const lab0_format *f = format(a[0]);
        const float *x = sj_ptr(a[1]);
        uint8_t *q = sj_ptr(a[4]);
        for (size_t i = 0; i < a[2]; i++)
            q[i] = lab0_encode(f, x[i], (int)a[3]);
        return 0;
    }
    }
    return -1;
}

#else

static void put_format(sj_call *c, const lab0_format *f)
{
    lab0_format *copy = sj_in(c, f, sizeof *f);
    if (copy)
        sj_link(c, &copy->name, f->name ? sj_block(c, (void *)f->name, strlen(f->name) + 1, SJ_IN)
                                        : NULL);
}

float lab0_decode(const lab0_format *f, uint8_t code)
{
    sj_call c;
    sj_begin(&c, DECODE, "lab0_decode");
    put_format(&c, f);
    sj_val(&c, code);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

uint8_t lab0_encode(const lab0_format *f, float x, int saturate)
{
    sj_call c;
    sj_begin(&c, ENCODE, "lab0_encode");
    put_format(&c, f);
    sj_f32(&c, x);
    sj_val(&c, (uint64_t)(int64_t)saturate);
    sj_run(&c);
    return SJ_RESULT(uint8_t, &c);
}

void lab0_decode_each(const lab0_format *f, const uint8_t *codes, size_t n, float *out)
{
    sj_call c;
    sj_begin(&c, DECODE_EACH, "lab0_decode");
    put_format(&c, f);
    sj_in(&c, codes, n);
    sj_val(&c, n);
    sj_out(&c, out, n * sizeof *out);
    sj_run(&c);
}

void lab0_encode_each(const lab0_format *f, const float *x, size_t n, int saturate, uint8_t *q)
{
    sj_call c;
    sj_begin(&c, ENCODE_EACH, "lab0_encode");
    put_format(&c, f);
    sj_in(&c, x, n * sizeof *x);
    sj_val(&c, n);
    sj_val(&c, (uint64_t)(int64_t)saturate);
    sj_out(&c, q, n);
    sj_run(&c);
}

lab0_limits lab0_format_limits(const lab0_format *f)
{
    sj_call c;
    sj_begin(&c, FORMAT_LIMITS, "lab0_format_limits");
    put_format(&c, f);
    sj_run(&c);
    return SJ_RESULT(lab0_limits, &c);
}

#endif
