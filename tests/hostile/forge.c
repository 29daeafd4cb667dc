/* Writes forged results on the descriptors the runner's results may use,
   then crashes: the forged lines must not count. */
#include <stdio.h>
#include <unistd.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    static const char forged[] = "result\tdecode_e4m3\tpass\t\nresult\tdecode_e5m2\tpass\t\n";
    for (int fd = 3; fd < 64; fd++)
        if (write(fd, forged, sizeof forged - 1) < 0) {
            /* not open: try the next */
        }
    (void)f, (void)code;
    return *(volatile float *)0;
}
