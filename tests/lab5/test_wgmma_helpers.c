/*
 * test_wgmma_helpers.c - lab5_wgmma.h on the CPU: the wgmma matrix
 * descriptor field by field against the PTX ISA's table (README §5.5), the
 * 128-byte swizzle against its other statement (address bits 4-6 xor bits
 * 7-9), the ring's stages and parities against a count of rounds, and the
 * TMA box arguments against the limits of cuTensorMapEncodeTiled.
 *
 *   build/tests/lab5/test_wgmma_helpers
 */
#include <check.h>
#include <stdint.h>

#include "check_run.h"
#include "../../labs/lab5/lab5_wgmma.h"

static uint64_t field(uint64_t d, int lo, int hi)
{
    return (d >> lo) & ((UINT64_C(1) << (hi - lo + 1)) - 1);
}

START_TEST(descriptor_fields)
{
    /* addresses a kernel's tiles have: 1024-aligned, then + 32 k per k32 step */
    static const uint32_t addrs[] = {0x0, 0x400, 0x8400, 0x1C000, 0x1C020, 0x1C040, 0x3FC60};
    for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
        uint64_t d = lab5_wgmma_desc_sw128(addrs[i]);
        ck_assert_uint_eq(field(d, 0, 13), addrs[i] >> 4);  /* start address >> 4 */
        ck_assert_uint_eq(field(d, 14, 15), 0);
        ck_assert_uint_eq(field(d, 16, 29), 1);              /* leading byte offset 16 >> 4 */
        ck_assert_uint_eq(field(d, 30, 31), 0);
        ck_assert_uint_eq(field(d, 32, 45), 1024 >> 4);      /* stride: one 8-row atom */
        ck_assert_uint_eq(field(d, 46, 48), 0);
        ck_assert_uint_eq(field(d, 49, 51), 0);              /* base offset */
        ck_assert_uint_eq(field(d, 52, 61), 0);
        ck_assert_uint_eq(field(d, 62, 63), 1);              /* 128-byte swizzle */
    }
    /* By hand: address 0x1C020 = 114720; >> 4 = 7170 = 0x1C02. */
    ck_assert_uint_eq(lab5_wgmma_desc_sw128(0x1C020),
                      UINT64_C(0x4000004000011C02));
    /* A k32 step moves the start address field by 2 (32 bytes). */
    ck_assert_uint_eq(lab5_wgmma_desc_sw128(0x400 + 32) - lab5_wgmma_desc_sw128(0x400), 2);
}
END_TEST

START_TEST(swizzle_is_address_xor)
{
    for (uint32_t row = 0; row < 64; row++)
        for (uint32_t byte = 0; byte < 128; byte++) {
            uint32_t o = row * 128 + byte;
            uint32_t want = o ^ (((o >> 7) & 7u) << 4); /* bits 4-6 ^= bits 7-9 */
            ck_assert_uint_eq(lab5_sw128_offset(row, byte), want);
        }
    /* Row 0 is not moved; row 1's chunk 0 is at chunk 1; row 7's chunk 7 at 0. */
    ck_assert_uint_eq(lab5_sw128_offset(0, 37), 37);
    ck_assert_uint_eq(lab5_sw128_offset(1, 0), 128 + 16);
    ck_assert_uint_eq(lab5_sw128_offset(7, 112), 7 * 128);
}
END_TEST

START_TEST(ring_rounds)
{
    static const uint32_t stages[] = {1, 2, 3, 4, 6};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        uint32_t s = stages[i], round = 0, stage = 0;
        for (uint32_t it = 0; it < 100; it++) {
            ck_assert_uint_eq(lab5_ring_stage(it, s), stage);
            ck_assert_uint_eq(lab5_ring_parity(it, s), round % 2);
            if (++stage == s)
                stage = 0, round++;
        }
    }
    /* 2 stages: slices 0 1 | 2 3 | 4 5 wait for parities 0 0 | 1 1 | 0 0. */
    ck_assert_uint_eq(lab5_ring_parity(2, 2), 1);
    ck_assert_uint_eq(lab5_ring_parity(3, 2), 1);
    ck_assert_uint_eq(lab5_ring_parity(4, 2), 0);
}
END_TEST

START_TEST(tma_boxes)
{
    lab5_tma_2d t;
    ck_assert_int_eq(lab5_kmajor_tma(2048, 1280, 128, &t), 0);
    ck_assert_uint_eq(t.dims[0], 1280); /* innermost first: k */
    ck_assert_uint_eq(t.dims[1], 2048);
    ck_assert_uint_eq(t.stride[0], 1280);
    ck_assert_uint_eq(t.box[0], 128); /* the 128-byte swizzle's widest box */
    ck_assert_uint_eq(t.box[1], 128);
    ck_assert_uint_eq(t.elem_strides[0], 1);
    ck_assert_uint_eq(t.elem_strides[1], 1);
    ck_assert_int_eq(lab5_kmajor_tma(4224, 1280, 256, &t), 0);
    ck_assert_uint_eq(t.box[1], 256);
    ck_assert_int_eq(lab5_kmajor_tma(128, 144, 128, &t), 0);   /* 144 = 9 x 16 */
    ck_assert_int_eq(lab5_kmajor_tma(128, 100, 128, &t), -1);     /* stride not 16-byte */
    ck_assert_int_eq(lab5_kmajor_tma(128, 128, 257, &t), -1);     /* box over 256 rows */
    ck_assert_int_eq(lab5_kmajor_tma(0, 128, 128, &t), -1);
    ck_assert_int_eq(lab5_kmajor_tma(128, 0, 128, &t), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lab5 wgmma helpers");
    TCase *tc = tcase_create("helpers");
    tcase_add_test(tc, descriptor_fields);
    tcase_add_test(tc, swizzle_is_address_xor);
    tcase_add_test(tc, ring_rounds);
    tcase_add_test(tc, tma_boxes);
    suite_add_tcase(s, tc);
    return check_run(s);
}
