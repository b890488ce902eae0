#!/bin/bash
# Bash completion (cmake/kdt-completion.bash): every option `kdt --help`,
# `kdt run --help` and `kdt build --help` name is offered, and a few
# completions come out as a user types them.  usage: completion_test.sh KDT SOURCE_DIR
set -u
kdt=$1 src=$2
source "$src/cmake/kdt-completion.bash"
failures=0
complete_words() {  # complete_words WORD... -> the candidates for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$(( $# - 1 ))
  COMPREPLY=()
  _kdt_complete
  printf '%s\n' "${COMPREPLY[@]}"
}
expect() {  # expect LABEL WANTED OUTPUT
  if ! grep -qxF -- "$2" <<<"$3"; then
    echo "FAIL $1: '$2' not offered (got: $(echo $3))"
    failures=$((failures + 1))
  fi
}
# The options a help text names (not `--max-...=N`, the generic form, nor `-march=native` or `-O0` from prose).
options_of() {
  "$kdt" "$@" --help | grep -oE '(^|[ ,[])--?[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]' | sed 's/^[ ,[]//' | sort -u |
    grep -vxE -- '--max|-march|-O0'
}
for option in $(options_of); do
  case $option in --max-|-march|--stdio|--input|--random|--random-all|--output-dir|--seed|--cxx|--cxxflags|--portable|--timeout|--jobs|--gdb|--gdb-args|--mpi|--xla-include) continue ;; esac
  expect "kdt $option" "$option" "$(complete_words kdt "$option")"
done
for option in $(options_of run); do
  expect "kdt run $option" "$option" "$(complete_words kdt run x.kd "$option")"
done
for option in $(options_of build); do
  expect "kdt build $option" "$option" "$(complete_words kdt build x.kd "$option")"
done
expect "subcommand" "build" "$(complete_words kdt bu)"
expect "--emit value" "xla-ffi" "$(complete_words kdt --emit x)"
expect "--emit= value" "discharged-ir" "$(complete_words kdt --emit = dis)"
expect "build's --emit" "c-api" "$(complete_words kdt build x.kd --emit c)"
expect "--dma-order value" "shuffle" "$(complete_words kdt run x.kd --dma-order sh)"
cd "$src/samples" && expect ".kd files" "softmax.kd" "$(complete_words kdt run soft)"
[ "$failures" -eq 0 ] && echo "completion: all offered"
exit $((failures > 0))
