/*
 * lab1/calls.c - lab1's call table (channel.h): the judge's proxies of
 * lab1.h's functions and, with GR_SUBJECT, the subject's side that runs
 * the submission's.
 */
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "lab1.h"

enum {
    FORMAT_FOR = 1,
    AMAX,
    SCALED_CAST,
    DELAYED_INIT,
    DELAYED_CAST,
    SCALE_FROM_AMAX,
    DELAYED_UPDATE,
    CURRENT_SCALE,
    EMA_INIT,
    EMA_UPDATE
};

#ifdef GR_SUBJECT

int sj_dispatch(uint32_t fn, const uint64_t *a)
{
    switch (fn) {
    case FORMAT_FOR: SJ_RETURN(fp8_format, lab1_format_for((lab1_tensor)(int)a[0])); return 0;
    case AMAX: SJ_RETURN(float, lab1_amax(sj_ptr(a[0]), (size_t)a[1])); return 0;
    case SCALED_CAST:
        SJ_RETURN(lab1_cast_counts, lab1_scaled_cast(sj_ptr(a[0]), (size_t)a[1], sj_float(a[2]),
                                                     (fp8_format)(int)a[3], sj_ptr(a[4])));
        return 0;
    case DELAYED_INIT:
        lab1_delayed_init(sj_ptr(a[0]), (lab1_tensor)(int)a[1], (lab1_amax_algo)(int)a[2],
                          (int)a[3], (int)a[4]);
        return 0;
    case DELAYED_CAST:
        SJ_RETURN(lab1_cast_counts,
                  lab1_delayed_cast(sj_ptr(a[0]), sj_ptr(a[1]), (size_t)a[2], sj_ptr(a[3])));
        return 0;
    case SCALE_FROM_AMAX:
        SJ_RETURN(float, lab1_scale_from_amax(sj_float(a[0]), sj_float(a[1]),
                                              (fp8_format)(int)a[2], (int)a[3]));
        return 0;
    case DELAYED_UPDATE: lab1_delayed_update(sj_ptr(a[0])); return 0;
    case CURRENT_SCALE:
        SJ_RETURN(float, lab1_current_scale(sj_float(a[0]), (fp8_format)(int)a[1],
                                            sj_float(a[2]), (int)a[3]));
        return 0;
    case EMA_INIT:
        lab1_ema_init(sj_ptr(a[0]), (lab1_tensor)(int)a[1], sj_float(a[2]), (int)a[3]);
        return 0;
    case EMA_UPDATE: lab1_ema_update(sj_ptr(a[0]), sj_float(a[1])); return 0;
    }
    return -1;
}

#else

/* n floats' bytes (sj_size). */
static size_t floats(size_t n) { return sj_size(n, sizeof(float)); }

static void put_int(sj_call *c, int v) { sj_val(c, (uint64_t)(int64_t)v); }

fp8_format lab1_format_for(lab1_tensor kind)
{
    sj_call c;
    sj_begin(&c, FORMAT_FOR, "lab1_format_for");
    put_int(&c, (int)kind);
    sj_run(&c);
    return SJ_RESULT(fp8_format, &c);
}

float lab1_amax(const float *x, size_t n)
{
    sj_call c;
    sj_begin(&c, AMAX, "lab1_amax");
    sj_in(&c, x, floats(n));
    sj_val(&c, n);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

lab1_cast_counts lab1_scaled_cast(const float *x, size_t n, float scale, fp8_format fmt,
                                  uint8_t *q)
{
    sj_call c;
    sj_begin(&c, SCALED_CAST, "lab1_scaled_cast");
    sj_in(&c, x, floats(n));
    sj_val(&c, n);
    sj_f32(&c, scale);
    put_int(&c, (int)fmt);
    sj_out(&c, q, n);
    sj_run(&c);
    return SJ_RESULT(lab1_cast_counts, &c);
}

void lab1_delayed_init(lab1_delayed *s, lab1_tensor kind, lab1_amax_algo algo, int history_len,
                       int margin)
{
    sj_call c;
    sj_begin(&c, DELAYED_INIT, "lab1_delayed_init");
    sj_out(&c, s, sizeof *s);
    put_int(&c, (int)kind);
    put_int(&c, (int)algo);
    put_int(&c, history_len);
    put_int(&c, margin);
    sj_run(&c);
}

lab1_cast_counts lab1_delayed_cast(lab1_delayed *s, const float *x, size_t n, uint8_t *q)
{
    sj_call c;
    sj_begin(&c, DELAYED_CAST, "lab1_delayed_cast");
    sj_inout(&c, s, sizeof *s);
    sj_in(&c, x, floats(n));
    sj_val(&c, n);
    sj_out(&c, q, n);
    sj_run(&c);
    return SJ_RESULT(lab1_cast_counts, &c);
}

float lab1_scale_from_amax(float amax, float prev_scale, fp8_format fmt, int margin)
{
    sj_call c;
    sj_begin(&c, SCALE_FROM_AMAX, "lab1_scale_from_amax");
    sj_f32(&c, amax);
    sj_f32(&c, prev_scale);
    put_int(&c, (int)fmt);
    put_int(&c, margin);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab1_delayed_update(lab1_delayed *s)
{
    sj_call c;
    sj_begin(&c, DELAYED_UPDATE, "lab1_delayed_update");
    sj_inout(&c, s, sizeof *s);
    sj_run(&c);
}

float lab1_current_scale(float amax, fp8_format fmt, float epsilon, int pow2)
{
    sj_call c;
    sj_begin(&c, CURRENT_SCALE, "lab1_current_scale");
    sj_f32(&c, amax);
    put_int(&c, (int)fmt);
    sj_f32(&c, epsilon);
    put_int(&c, pow2);
    sj_run(&c);
    return SJ_RESULT(float, &c);
}

void lab1_ema_init(lab1_ema *s, lab1_tensor kind, float momentum, int margin)
{
    sj_call c;
    sj_begin(&c, EMA_INIT, "lab1_ema_init");
    sj_out(&c, s, sizeof *s);
    put_int(&c, (int)kind);
    sj_f32(&c, momentum);
    put_int(&c, margin);
    sj_run(&c);
}

void lab1_ema_update(lab1_ema *s, float amax)
{
    sj_call c;
    sj_begin(&c, EMA_UPDATE, "lab1_ema_update");
    sj_inout(&c, s, sizeof *s);
    sj_f32(&c, amax);
    sj_run(&c);
}

#endif
