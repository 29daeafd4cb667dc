/*
 * standin_probe.c - the stand-in grader's gpuprobe (CUDA_STANDIN=1): says
 * that the device is there, as common/gpuprobe.cu does where a GPU is, of
 * compute capability 9.0, or of the one the file standin_cc beside it
 * holds ("8.0"): the grader's tests choose it, to check what the grader
 * skips on each GPU the course runs on.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int major = 9, minor = 0;
    char path[4096];
    const char *slash = argc > 0 ? strrchr(argv[0], '/') : NULL;
    if (slash && (size_t)(slash - argv[0]) + sizeof "/standin_cc" <= sizeof path) {
        snprintf(path, sizeof path, "%.*s/standin_cc", (int)(slash - argv[0]), argv[0]);
        FILE *f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%d.%d", &major, &minor) != 2)
                major = 9, minor = 0;
            fclose(f);
        }
    }
    printf("GPU: the CUDA stand-in (tests/lab5/cuda_standin.c), compute capability %d.%d\n",
           major, minor);
    return 0;
}
