/*
 * standin_probe.c - the stand-in grader's gpuprobe (CUDA_STANDIN=1): says
 * that the device is there, as common/gpuprobe.cu does where a GPU is.
 */
#include <stdio.h>

int main(void)
{
    printf("GPU: the CUDA stand-in (tests/lab5/cuda_standin.c), compute capability 9.0\n");
    return 0;
}
