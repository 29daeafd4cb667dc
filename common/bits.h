/*
 * bits.h - a float's bit pattern, and the float of a bit pattern.
 *
 * memcpy is the one way to reinterpret the bits that C and C++ both define;
 * compilers turn it into a register move. Shared by the library, the tools
 * and the tests, so no file keeps its own copy.
 */
#ifndef FP8LAB_BITS_H
#define FP8LAB_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif
