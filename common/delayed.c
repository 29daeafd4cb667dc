/*
 * delayed.c - delayed scaling of one tensor (delayed.h).
 */
#include "delayed.h"

#include <float.h>
#include <math.h>
#include <string.h>

void delayed_init(delayed_scaler *s, fp8_format fmt, bool most_recent, int history_len,
                  int margin)
{
    memset(s, 0, sizeof *s);
    s->fmt = fmt;
    s->most_recent = most_recent;
    s->history_len = history_len < 1 ? 1
                     : history_len > DELAYED_MAX_HISTORY ? DELAYED_MAX_HISTORY
                                                         : history_len;
    s->margin = margin;
    s->scale = 1.0f;
    s->scale_inv = 1.0f;
}

void delayed_record(delayed_scaler *s, float amax)
{
    if (amax > s->history[0])
        s->history[0] = amax;
}

/* The amax the update uses, read before the roll. */
static float update_amax(const delayed_scaler *s)
{
    if (s->most_recent)
        return s->history[0];
    float amax = 0.0f;
    for (int i = 0; i < s->history_len; i++) {
        if (isnan(s->history[i]))
            return NAN;
        amax = fmaxf(amax, s->history[i]);
    }
    return amax;
}

void delayed_update(delayed_scaler *s)
{
    float amax = update_amax(s);

    float newest = s->history[0];
    for (int i = 0; i + 1 < s->history_len; i++)
        s->history[i] = s->history[i + 1];
    s->history[s->history_len - 1] = newest;
    s->history[0] = 0.0f;

    if (isfinite(amax) && amax > 0.0f) {
        float scale = (fp8_info(s->fmt)->max_finite / amax) / ldexpf(1.0f, s->margin);
        s->scale = isinf(scale) ? FLT_MAX : scale;
    }
    s->scale_inv = 1.0f / s->scale;
}
