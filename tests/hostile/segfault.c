/* Crashes in lab0_format_limits: limits and rel_error_bound report the crash. */
lab0_limits lab0_format_limits(const lab0_format *f)
{
    volatile int *volatile p = 0;
    *p = 1;
    return solution_format_limits(f);
}
