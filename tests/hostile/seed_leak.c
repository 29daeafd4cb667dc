/* Prints the grader's seed for hidden inputs, and every variable of its
   environment, into its test's output (which the report shows), then
   answers wrongly: the subject's environment holds no seed. */
#include <stdio.h>
#include <stdlib.h>

extern char **environ;

float lab0_decode(const lab0_format *f, uint8_t code)
{
    const char *seed = getenv("GRADER_SEED");
    printf("seed: %s\n", seed ? seed : "(none)");
    for (char **e = environ; *e; e++)
        printf("env: %s\n", *e);
    (void)f, (void)code;
    return -1.0f;
}
