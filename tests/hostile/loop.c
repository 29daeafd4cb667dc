/* Never returns from lab0_format_limits: limits and rel_error_bound time out. */
lab0_limits lab0_format_limits(const lab0_format *f)
{
    for (volatile unsigned long i = 0;; i++)
        if (i == (unsigned long)-1)
            break;
    return solution_format_limits(f);
}
