#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the image of
# the autograder `./grader --batch ... --lms gradescope` wrote, which gives
# each submission the batch's score: run_autograder reads the submission's
# metadata with jq, installed here where the image lacks it.
set -euo pipefail
if ! command -v jq >/dev/null 2>&1 && [ -z "${FP8LAB_NO_INSTALL:-}" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y jq
fi
