/* Includes /dev/zero, a file without end: the compiler runs out of the
   memory a build may use, instead of taking the machine's. hostile: first */
#include "/dev/zero"
