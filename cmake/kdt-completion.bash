# Bash completion for kdt: subcommands, options (per subcommand), the values
# of options that take a fixed set, and .kd files. `cmake --install`
# puts it in share/bash-completion/completions/kdt, where bash-completion
# finds it; or `source` it. Zsh runs the same script through bashcompinit
# (kdt-completion.zsh), so it keeps to what zsh's emulation of compgen
# offers (no `mapfile`). tests/completion_test.sh keeps the option lists in
# step with `kdt --help`, in bash and in zsh.

_kdt_common="--kernel -D -I --no-checks --dma-mode --dma-order --program-order --flush-subnormal-adds --diagnostics-format
  --diagnostics-file --color --Werror -Werror -Wall -Wextra -Wno-error -Wunused-binding -Wno-unused-binding
  -Wasm-cross-lane -Wno-asm-cross-lane -Werror=unused-binding -Werror=asm-cross-lane --warning
  -w --no-static-dma-checks --max-nesting --max-expression-terms
  --max-include-depth --max-literal-length --max-kernels --max-function-instances --max-tile-bytes --max-scratch-bytes --max-ref-bytes
  --max-devices --max-programs --max-source-bytes --help"
_kdt_transpile="--emit -o --MD --MF --MT --MP -MD -MF -MT -MP --arch --threads --cuda-debug --cuda-tf32 --harness --devices --explain --version"
_kdt_run="--input --random --random-all --output-dir --seed --cxx --cxxflags --portable --timeout --jobs -j -g --gdb --gdb-args --mpi -n"
_kdt_build="--emit --xla-include --arch --cxx --cxxflags --portable"

# COMPREPLY from the lines of standard input.
_kdt_reply() {
  COMPREPLY=()
  local line
  while IFS= read -r line; do COMPREPLY+=("$line"); done
}

_kdt_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub=""
  # `--emit=cpp`: bash splits at `=`; complete the value of the option before it.
  if [[ $cur == "=" ]]; then
    cur=""
  elif [[ $prev == "=" ]]; then
    prev=${COMP_WORDS[COMP_CWORD-2]}
  fi
  if (( COMP_CWORD > 1 )); then
    case ${COMP_WORDS[1]} in run | build | lsp) sub=${COMP_WORDS[1]} ;; esac
  fi
  # `--emit=cpp` as one word (zsh's words; bash splits it): complete the
  # value, keeping `--emit=` in front of each candidate.
  local keep=""
  if [[ $cur == --*=* ]]; then
    prev=${cur%%=*}
    keep="$prev="
    cur=${cur#*=}
  fi
  local values=""
  case $prev in
    --emit) values="check ast ir discharged-ir cpp c-api xla-ffi cuda cuda-xla-ffi ptx"
      [[ $sub == build ]] && values="c-api xla-ffi cuda-xla-ffi" ;;
    --diagnostics-format) values="text json sarif" ;;
    --color) values="auto always never" ;;
    --dma-mode) values="on_wait eager" ;;
    --dma-order) values="fifo lifo shuffle" ;;
    --program-order) values="forward reverse shuffle" ;;
    --devices) values="simulated mpi nvshmem" ;;
    --arch) values="sm_80 sm_86 sm_89 sm_90 sm_90a" ;;
    -o | --MF | -MF | --diagnostics-file | --input)
      _kdt_reply < <(compgen -f -- "$cur")
      return ;;
    -I | --output-dir | --xla-include)
      _kdt_reply < <(compgen -d -- "$cur")
      return ;;
  esac
  if [[ -n $values ]]; then
    _kdt_reply < <(compgen -W "$values" -- "$cur")
    [[ -n $keep ]] && COMPREPLY=("${COMPREPLY[@]/#/$keep}")
    return
  fi
  if [[ $cur == -* ]]; then
    local options="$_kdt_common"
    case $sub in
      run) options+=" $_kdt_run" ;;
      build) options+=" $_kdt_build" ;;
      lsp) options="-I -D --stdio --help --max-nesting --max-expression-terms --max-include-depth --max-kernels" ;;
      *) options+=" $_kdt_transpile" ;;
    esac
    _kdt_reply < <(compgen -W "$options" -- "$cur")
    return
  fi
  # A subcommand first, then .kd files (and directories to reach them).
  local words=""
  (( COMP_CWORD == 1 )) && words="run build lsp"
  _kdt_reply < <(compgen -W "$words" -- "$cur"; compgen -f -X '!*.kd' -- "$cur"; compgen -d -- "$cur")
}
complete -o filenames -F _kdt_complete kdt
