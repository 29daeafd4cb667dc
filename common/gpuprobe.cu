/*
 * gpuprobe.cu - says whether this machine has a GPU the course can use.
 *
 * lab5 runs on compute capability 7.5 and later, the oldest CUDA 13
 * compiles for: below 8.9 cuda_fp8.h converts to FP8 in software, and the
 * memory-bound kernels and the CUDA-core GEMMs run as they do on Hopper;
 * only the FP8 tensor cores need more (mma.sync with E4M3 operands and
 * cuBLASLt's FP8 matmul 8.9, wgmma 9.0), and the grader skips their tests
 * by name where the GPU lacks them. So "usable" means: the CUDA driver
 * loads, and there is a device of compute capability >= 7.5 on which a
 * context can be created. The first such device is the one reported
 * (CUDA_VISIBLE_DEVICES chooses among them); a newer one is preferred to an
 * older one only through CUDA_VISIBLE_DEVICES.
 *
 * Output is one line, and the exit status says the same thing:
 *   0  GPU: NVIDIA H100 80GB HBM3, compute capability 9.0, 81079 MiB
 *      GPU: NVIDIA A100-SXM4-80GB, compute capability 8.0, 81050 MiB; no FP8
 *      tensor cores (mma.sync and cuBLASLt FP8 need 8.9, wgmma 9.0)
 *   1  no GPU: <why> (no driver, no device, or an error from the runtime)
 *   3  GPU too old: <name> is compute capability 7.0; lab5 needs 7.5 or later
 * `make test` runs it once and runs the GPU tests only when it exits 0; the
 * grader reads the compute capability from the line.
 *
 * Build (the Makefile does this into build/bin/gpuprobe):
 *   nvcc -std=c++17 -O2 -Icommon common/gpuprobe.cu -o build/bin/gpuprobe
 * It launches no kernel, so it needs no particular --generate-code target.
 */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

enum {
    PROBE_OK = 0,
    PROBE_NO_GPU = 1,
    PROBE_TOO_OLD = 3,
};

static const int kMinMajor = 7, kMinMinor = 5;

static int at_least_min(int major, int minor)
{
    return major > kMinMajor || (major == kMinMajor && minor >= kMinMinor);
}

static int no_gpu(const char *what, cudaError_t rc)
{
    printf("no GPU: %s: %s\n", what, cudaGetErrorString(rc));
    return PROBE_NO_GPU;
}

/* The runtime says "driver version is insufficient" both when the driver is
 * old and when there is none at all; cudaDriverGetVersion tells them apart. */
static int no_driver(cudaError_t rc)
{
    int driver = 0, runtime = 0;
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
        printf("no GPU: cudaGetDeviceCount: no CUDA driver is installed (%s)\n",
               cudaGetErrorString(rc));
        return PROBE_NO_GPU;
    }
    (void)cudaRuntimeGetVersion(&runtime);
    printf("no GPU: cudaGetDeviceCount: the CUDA driver (%d.%d) is older than the runtime "
           "(%d.%d)\n", driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    return PROBE_NO_GPU;
}

int main(void)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc == cudaErrorInsufficientDriver)
        return no_driver(rc);
    if (rc != cudaSuccess)
        return no_gpu("cudaGetDeviceCount", rc);
    if (count <= 0) {
        printf("no GPU: cudaGetDeviceCount: no CUDA device found\n");
        return PROBE_NO_GPU;
    }

    /* The first device new enough, remembering the newest old one for the
     * message in case there is none. */
    int chosen = -1, newest_old = -1;
    cudaDeviceProp prop, old_prop;
    memset(&old_prop, 0, sizeof old_prop);
    for (int dev = 0; dev < count; dev++) {
        cudaDeviceProp p;
        rc = cudaGetDeviceProperties(&p, dev);
        if (rc != cudaSuccess)
            return no_gpu("cudaGetDeviceProperties", rc);
        if (at_least_min(p.major, p.minor)) {
            chosen = dev;
            prop = p;
            break;
        }
        if (newest_old < 0 || p.major * 10 + p.minor > old_prop.major * 10 + old_prop.minor) {
            newest_old = dev;
            old_prop = p;
        }
    }
    if (chosen < 0) {
        printf("GPU too old: %s is compute capability %d.%d; lab5 needs %d.%d or later\n",
               old_prop.name, old_prop.major, old_prop.minor, kMinMajor, kMinMinor);
        return PROBE_TOO_OLD;
    }

    /* A device can be listed and still refuse work (compute mode
     * "prohibited", or all its memory taken): make a context to be sure. */
    rc = cudaSetDevice(chosen);
    if (rc != cudaSuccess)
        return no_gpu("cudaSetDevice", rc);
    rc = cudaFree(0);
    if (rc != cudaSuccess)
        return no_gpu("creating a context", rc);

    int cc = prop.major * 10 + prop.minor;
    printf("GPU: %s, compute capability %d.%d, %zu MiB%s\n", prop.name, prop.major, prop.minor,
           prop.totalGlobalMem >> 20,
           cc < 89   ? "; no FP8 tensor cores (mma.sync and cuBLASLt FP8 need 8.9, wgmma 9.0)"
           : cc != 90 ? "; no wgmma (it needs 9.0, sm_90a)"
                      : "");
    return PROBE_OK;
}
