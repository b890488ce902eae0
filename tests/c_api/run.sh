#!/bin/sh
# The C ABI from C (issue 18): builds two KD files with `kdt build` and runs
# c_api_test.c against them.  usage: run.sh KDT SOURCE_DIR WORK_DIR
set -eu
kdt=$1 src=$2 work=$3
mkdir -p "$work"
lib=$("$kdt" build "$src/samples/accumulate_blocks.kd")
race=$("$kdt" build --no-static-dma-checks "$src/tests/diag/fail_race_cross_program.kd")
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -o "$work/c_api_test" "$src/tests/c_api/c_api_test.c" -ldl
"$work/c_api_test" "$lib" "$race"
