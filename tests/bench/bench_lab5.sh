#!/bin/sh
# bench_lab5.sh - lab5's figures (make bench): the reference solution's
# kernels as GB/s and a fraction of a device-to-device copy, and the GEMMs as
# TFLOPS next to cuBLASLt's FP8 and BF16, all from one run of the demo with
# --bench (labs/lab5/main.cu). Where there is no GPU it says so and passes:
# benchmarks print figures, they do not fail a machine for lacking one.
#
#   sh tests/bench/bench_lab5.sh [DEMO GPUPROBE]
set -u
demo=${1:-}
probe=${2:-}
if [ -z "$demo" ]; then
    echo "bench lab5: skipped: nvcc not found, so lab5 is not built"
    exit 0
fi
if ! said=$("$probe"); then
    echo "bench lab5: skipped: $said"
    exit 0
fi
echo "bench lab5: $said"
"$demo" --bench --no-preview -o "$(dirname "$demo")/bench"
