#!/bin/bash
# Measures the fuzz targets' throughput, as docs/reliability.md ("Speed")
# records it: each BINARY runs RUNS inputs from a fresh corpus and the
# seeds that run_fuzzers.sh copies, with -seed=1 and run_fuzzers.sh's
# flags; the binaries take turns, ROUNDS times, so that a shared machine's
# load falls on all of them alike. Prints every run, then per binary the
# minimum and median of the inputs per second of CPU time (user + system,
# all threads) and of wall clock.
#
#   tests/fuzz/bench_fuzzers.sh TARGET RUNS ROUNDS BINARY[:FLAGS]...
#
# FLAGS (',' between flags) come after the defaults, e.g.
#   tests/fuzz/bench_fuzzers.sh front_end 20000 3 build-fuzz/tests/fuzz/fuzz_front_end \
#       build-fuzz-fast/tests/fuzz/fuzz_front_end \
#       build-fuzz-fast/tests/fuzz/fuzz_front_end:-entropic_feature_frequency_threshold=255
# The seeds: $KDT_FUZZ_SEEDS, or BUILD/seeds/TARGET of the first of
# build-fuzz and build-fuzz-fast that has them (run
# run_fuzzers.sh once first). ASAN_OPTIONS and UBSAN_OPTIONS are
# run_fuzzers.sh's unless set.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
if [ $# -lt 4 ]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
target=$1 runs=$2 rounds=$3
shift 3
seeds=${KDT_FUZZ_SEEDS:-}
if [ -z "$seeds" ]; then
  for build in build-fuzz build-fuzz-fast; do
    [ -d "$root/$build/seeds/$target" ] && seeds=$root/$build/seeds/$target && break
  done
fi
if [ ! -d "${seeds:-/nonexistent}" ]; then
  echo "no seeds in $seeds: run tests/fuzz/run_fuzzers.sh 1 $target first (or set KDT_FUZZ_SEEDS)" >&2
  exit 2
fi
case $target in
  front_end | outputs) flags="-dict=tests/fuzz/kd.dict -max_len=8192" ;;
  npy) flags="-dict=tests/fuzz/npy.dict -max_len=4096" ;;
  pipeline) flags="-max_len=4096" ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
. "$root/tests/fuzz/fuzz_flags.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-$KDT_FUZZ_ASAN_OPTIONS}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-$KDT_FUZZ_UBSAN_OPTIONS}
ulimit -s 524288 2>/dev/null || true  # as run_fuzzers.sh

work=$(mktemp -d /tmp/kdt-fuzz-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
results=$work/results
for round in $(seq "$rounds"); do
  i=0
  for spec in "$@"; do
    i=$((i + 1))
    bin=${spec%%:*}
    extra=""
    [ "$spec" != "$bin" ] && extra=$(echo "${spec#*:}" | tr ',' ' ')
    corpus=$work/corpus
    rm -rf "$corpus" && mkdir -p "$corpus"
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$bin" -runs="$runs" -seed=1 $flags $(kdt_fuzz_flags "$target") \
        -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$work/" $extra "$corpus" "$seeds" >"$work/log" 2>&1
    rc=$?
    read -r wall user sys < <(tail -1 "$work/time")
    if [ $rc -ne 0 ]; then
      # A finding (or a broken run): keep the log and the crash input.
      kept=$(mktemp -d /tmp/kdt-fuzz-bench-exit$rc.XXXXXX)
      cp "$work/log" "$kept/" && cp "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* "$kept/" 2>/dev/null
      echo "exit $rc: log and inputs in $kept" >&2
    fi
    execs=$(grep -o 'number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$')
    cov=$(grep -E '^#[0-9]+' "$work/log" | tail -1 | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
    line=$(awk -v e="${execs:-0}" -v w="$wall" -v u="$user" -v s="$sys" \
      'BEGIN { printf "%d %.1f %.1f %.0f %.0f", e, w, u + s, e / (u + s), e / w }')
    echo "$i $line ${cov:-?} $rc" >>"$results"
    printf 'round %s  %-70s %s\n' "$round" "$spec" \
      "$(echo "$line ${cov:-?} $rc" | awk '{ printf "%7d inputs %7.1f s wall %7.1f s CPU %6d/CPU-s %6d/s  cov %s  exit %s", $1, $2, $3, $4, $5, $6, $7 }')"
  done
done
echo
echo "per binary, runs that exited 0: inputs per CPU second (min / median) and per wall-clock second (min / median)"
i=0
for spec in "$@"; do
  i=$((i + 1))
  cpu=$(awk -v i=$i '$1 == i && $8 == 0 { print $5 }' "$results" | sort -n)
  wall=$(awk -v i=$i '$1 == i && $8 == 0 { print $6 }' "$results" | sort -n)
  median() { awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.0f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
  printf '%-70s %6s / %6s   %6s / %6s\n' "$spec" "$(echo "$cpu" | head -1)" "$(echo "$cpu" | median)" \
    "$(echo "$wall" | head -1)" "$(echo "$wall" | median)"
done
