/* Does not compile. */
lab0_limits lab0_format_limits(const lab0_format *f)
{
    return solution_format_limits(f)
}
