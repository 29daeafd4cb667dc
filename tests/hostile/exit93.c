/* Ends the process with the old runner's success status (93) from inside
   lab0_decode: the subject's exit status decides nothing (the judge
   decides), so the decode tests fail, saying the function did not return. */
#include <stdlib.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    (void)f, (void)code;
    exit(93);
}
