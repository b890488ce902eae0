#!/usr/bin/zsh -f
# Zsh completion (the `_kdt` that CMake writes: kdt-completion.bash under
# zsh's bashcompinit), driven as a user meets it: an interactive zsh in a
# pseudo-terminal, compinit finding `_kdt` on fpath, a command line typed
# and TAB pressed; the candidates are read from a compadd that prints what
# zsh would offer.  usage: completion_zsh_test.zsh KDT DIR_WITH__kdt SOURCE_DIR
zmodload zsh/zpty
kdt=$1 completions=$2 src=$3
failures=0

# candidates WORDS...: what zsh offers after typing WORDS and TAB, one per line.
candidates() {
  zpty z zsh -f -i
  zpty -w z "PROMPT=''; RPROMPT=''"
  zpty -w z "fpath=(${(q)completions} \$fpath); path=(${(q)kdt:h} \$path); autoload -U compinit && compinit -u -D"
  zpty -w z "bindkey '^I' complete-word; zstyle ':completion:*' list-prompt ''"
  # The markers are typed split in two, so that zsh's echo of the typed
  # line is not read as them.
  zpty -w z "_kdt_test_end() { print -r -- '<<''end>>'; exit }; comppostfuncs=( _kdt_test_end )"
  zpty -w z "compadd() { local -a hits; builtin compadd -O hits \"\$@\"; print -rl -- \"<<\"\"hit>>\"\${^hits}; builtin compadd \"\$@\" }"
  zpty -w z "cd ${(q)src}/samples"
  zpty -n -w z "$*"$'\t'
  local line
  local -a out
  while zpty -r z line; do
    line=${line//$'\r'/}
    [[ $line == *'<<end>>'* ]] && break
    [[ $line == *'<<hit>>'* ]] && out+=("${line##*<<hit>>}")
  done
  zpty -d z
  print -rl -- $out
}

expect() {  # expect WANTED WORDS...
  local wanted=$1
  shift
  local got=$(candidates "$@")
  if ! print -r -- "$got" | grep -qxF -- "$wanted"; then
    print -r -- "FAIL '$*<TAB>': '$wanted' not offered (got: ${(f)got})"
    (( failures++ ))
  fi
}

expect --emit kdt --em
expect build kdt bu
expect --dma-order kdt run x.kd --dma-o
expect shuffle kdt run x.kd --dma-order sh
expect discharged-ir kdt --emit dis
expect --emit=discharged-ir kdt --emit=dis
expect c-api kdt build x.kd --emit c
expect --jobs kdt run x.kd --jo
expect softmax.kd kdt run soft
(( failures == 0 )) && print "zsh completion: all offered"
exit $(( failures > 0 ))
