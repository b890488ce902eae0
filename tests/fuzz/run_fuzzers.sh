#!/bin/bash
# Builds the libFuzzer targets (clang-14, KDT_FUZZ=ON) and runs each for
# SECONDS (default 60), one after the other, on one core: its corpus
# (BUILD/corpus/TARGET, kept between runs) plus the seeds, with the
# dictionary. Prints execs/s (wall clock, and per second of CPU time, which a
# busy machine changes less), coverage and corpus size per target; crashes,
# timeouts and leaks land in BUILD/artifacts/TARGET/.
#
#   tests/fuzz/run_fuzzers.sh [SECONDS] [TARGET...]     TARGET: lexer front_end pipeline npy outputs
#
# Two builds (docs/reliability.md, "Fuzzing"):
#   build-fuzz/       ASan and UBSan (the default): memory errors too;
#   build-fuzz-fast/  UBSan only, with KDT_FUZZ_SANITIZERS=undefined: about
#                     four times the inputs per second; crashes, aborts and
#                     UBSan reports, not what only ASan sees. Replay its
#                     corpus under ASan now and then:
#                     build-fuzz/tests/fuzz/kdt_fuzz_replay front_end build-fuzz-fast/corpus/front_end
#
# front_end, pipeline and npy are the fast targets; outputs (every output
# of a KD file) is slower and also starts from the front end's corpus and
# from programs the generator made of the pipeline's corpus.
#
# Extra libFuzzer flags can be given in KDT_FUZZ_FLAGS (after the defaults
# of tests/fuzz/fuzz_flags.sh); KDT_FUZZ_NO_BUILD=1 runs the binaries
# already built; KDT_FUZZ_BUILD names another build directory.
set -u
cd "$(dirname "$0")/../.."
root=$PWD
seconds=${1:-60}
shift || true
targets=${*:-lexer front_end pipeline npy outputs}
sanitizers=${KDT_FUZZ_SANITIZERS:-address,undefined}
case $sanitizers in
  address,undefined) default_build=$root/build-fuzz ;;
  undefined) default_build=$root/build-fuzz-fast ;;
  *) echo "KDT_FUZZ_SANITIZERS=$sanitizers: use address,undefined (default) or undefined" >&2; exit 2 ;;
esac
build=${KDT_FUZZ_BUILD:-$default_build}
cxx=${KDT_FUZZ_CXX:-clang++-14}
. "$root/tests/fuzz/fuzz_flags.sh"

if [ -z "${KDT_FUZZ_NO_BUILD:-}" ]; then
  # Coverage instrumentation for kdt's code only (see coverage_ignorelist.txt).
  cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DKDT_FUZZ=ON -DKDT_FUZZ_SANITIZERS="$sanitizers" -DKDT_BUILD_TESTS=OFF \
        -DCMAKE_CXX_FLAGS="-fsanitize-coverage-ignorelist=$root/tests/fuzz/coverage_ignorelist.txt" >/dev/null || exit 1
  build_targets=""
  for t in $targets; do build_targets="$build_targets fuzz_$t"; done
  cmake --build "$build" --target $build_targets kdt_fuzz_replay || exit 1
fi

# Seeds, copied at every run rather than committed twice.
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds/lexer" "$seeds/front_end" "$seeds/npy" "$seeds/pipeline" "$seeds/outputs"
cp samples/*.kd tests/diag/*.kd tests/e2e/*.kd "$seeds/lexer/"
cp samples/*.kd tests/diag/*.kd tests/e2e/*.kd "$seeds/front_end/"
cp samples/*.kd tests/diag/*.kd tests/e2e/*.kd "$seeds/outputs/"
cp tests/fuzz/seeds/npy/*.npy "$seeds/npy/"
# The generator reads its choices from the bytes: a few fixed byte strings
# of different lengths start it off (libFuzzer also starts from empty input).
/usr/bin/python3 - "$seeds/pipeline" <<'PY'
import random, sys
rng = random.Random(8)
for i, n in enumerate([1, 8, 16, 32, 64, 128, 256, 512]):
    with open("%s/seed_%d" % (sys.argv[1], i), "wb") as f:
        f.write(bytes(rng.randrange(256) for _ in range(n)))
PY
# fuzz_outputs also starts from well-typed programs: those the generator
# makes of (up to 200 files of) the pipeline's corpus, or of its seeds.
replay=$build/tests/fuzz/kdt_fuzz_replay
if [ -x "$replay" ]; then
  n=0
  for f in $(ls "$build/corpus/pipeline"/* "$seeds/pipeline"/* 2>/dev/null | head -200); do
    "$replay" --print-generated "$f" >"$seeds/outputs/generated_$n.kd" 2>/dev/null || rm -f "$seeds/outputs/generated_$n.kd"
    n=$((n + 1))
  done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-$KDT_FUZZ_ASAN_OPTIONS}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-$KDT_FUZZ_UBSAN_OPTIONS}
# A 512 MiB main-thread stack: the KD targets then run each input on the
# main thread instead of handing it to a thread with such a stack
# (fuzz_inputs.h, run_on_large_stack).
ulimit -s 524288 2>/dev/null || true

summary=""
status=0
for t in $targets; do
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t
  log=$build/logs/$t.log
  mkdir -p "$corpus" "$artifacts" "$build/logs"
  case $t in
    lexer) flags="-dict=tests/fuzz/kd.dict -max_len=4096" ;;
    front_end) flags="-dict=tests/fuzz/kd.dict -max_len=8192" ;;
    npy) flags="-dict=tests/fuzz/npy.dict -max_len=4096" ;;
    pipeline) flags="-max_len=4096" ;;
    outputs) flags="-dict=tests/fuzz/kd.dict -max_len=8192" ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  extra=""
  [ "$t" = outputs ] && [ -d "$build/corpus/front_end" ] && extra="$build/corpus/front_end"
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  /usr/bin/time -f "%U %S" -o "$build/logs/$t.cpu" \
  "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" $flags $(kdt_fuzz_flags "$t") ${KDT_FUZZ_FLAGS:-} \
      "$corpus" "$seeds/$t" $extra >"$log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && status=1
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
  ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
  files=$(ls "$corpus" | wc -l)
  found=$(ls "$artifacts" | wc -l)
  cpu=$(tail -1 "$build/logs/$t.cpu" | awk '{print $1 + $2}')
  per_cpu=$(awk -v e="${execs:-0}" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%d", e / c; else print "?" }')
  summary="$summary$(printf '%-10s %6ss %10s execs %7s/s  %7s/cpu-s  cov %6s  ft %7s  corpus %6s  exit %3s  artifacts %s' \
      "$t" "$seconds" "${execs:-?}" "${rate:-?}" "$per_cpu" "${cov:-?}" "${ft:-?}" "$files" "$rc" "$found")\n"
done
echo
printf "$summary"
echo "(execs/s: wall clock; /cpu-s: per second of the fuzzer's CPU time; cov: instrumented edges reached;"
echo " ft: libFuzzer features; corpus: files in $build/corpus/TARGET)"
echo "Line coverage of src/discharge and src/emit: tests/fuzz/coverage.sh"
exit $status
