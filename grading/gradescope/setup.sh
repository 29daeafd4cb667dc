#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, when it builds the
# autograder's image (`make gradescope-LAB` made this zip): installs the
# Debian or Ubuntu packages the grader needs and builds it in course/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/course"
if [ -z "${FP8LAB_NO_INSTALL:-}" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    # shellcheck disable=SC2046
    apt-get install -y $(sh common/deps.sh missing build labs)
fi
# The seed and the script that reads it, root's alone: the submissions run as
# nobody, who must not read them.
chmod 0700 "$here/run_autograder"
[ -f "$here/seed" ] && chmod 0600 "$here/seed"
# The build the grader is made for, whatever the environment says.
make -j"$(nproc)" BUILD=build SANITIZE=0 grader-@LAB@
