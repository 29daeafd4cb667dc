/*
 * nvidia.h - what the oracle tests share to read NVIDIA's conversions:
 * NVIDIA's decoders return IEEE binary16 bit patterns (__half_raw), which
 * this turns into floats exactly. Include after cuda_fp8.h.
 */
#ifndef FP8LAB_ORACLE_NVIDIA_H
#define FP8LAB_ORACLE_NVIDIA_H

#include <math.h>
#include <stdint.h>

#include "bits.h"

/* The exact float value of an IEEE binary16 bit pattern. */
static inline float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    if (exp == 0x1F) /* inf, or NaN with its payload */
        return f32_from_bits(sign | 0x7F800000u | (man << 13));
    if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float */
        float mag = ldexpf((float)man, -24);
        return sign ? -mag : mag;
    }
    return f32_from_bits(sign | ((exp + 127 - 15) << 23) | (man << 13));
}

#endif
