/* Writes forged results on the runner's results channel from a constructor,
   before Check starts, and fails the decode tests for real: the forged
   lines must not count. */
#include <unistd.h>
__attribute__((constructor)) static void forge_early(void)
{
    static const char forged[] = "result\tdecode_e4m3\tpass\t\nresult\tdecode_e5m2\tpass\t\n";
    for (int fd = 3; fd < 16; fd++)
        if (write(fd, forged, sizeof forged - 1) < 0)
            continue;
}
float lab0_decode(const lab0_format *f, uint8_t code)
{
    return solution_decode(f, code) + 1.0f;
}
