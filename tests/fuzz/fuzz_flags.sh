# The libFuzzer flags and sanitizer options that run_fuzzers.sh and
# bench_fuzzers.sh use (sourced, with $root the repository's root). The
# measurements behind them are in docs/reliability.md, "Speed".
#
# libFuzzer's entropic schedule keeps a list of the "rare" features (seen
# fewer than -entropic_feature_frequency_threshold times, 255 by default)
# and, for every feature of every input, looks it up in that list linearly
# (InputCorpus::UpdateFeatureFrequency). kdt's targets reach 20,000-40,000
# features, most of them rare for the first hundreds of thousands of inputs:
# at the default that was a third of the front end's time in the fast
# build and 40 % of the pipeline's. At 32 the list stays short and the
# coverage reached in a given number of inputs did not change. The pipeline,
# whose inputs are the generator's choices rather than text, runs faster
# still with the plain schedule (-entropic=0; for the front end that was
# slower: it picks larger inputs).
kdt_fuzz_flags() {
  case $1 in
    pipeline) echo "-entropic=0" ;;
    *) echo "-entropic_feature_frequency_threshold=32" ;;
  esac
}
KDT_FUZZ_ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:symbolize=1"
KDT_FUZZ_UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$root/tests/fuzz/ubsan.supp"
