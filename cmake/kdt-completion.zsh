#compdef kdt
# Zsh completion for kdt: the bash completion (kdt-completion.bash, appended
# below when CMake writes this file as `_kdt`) run through zsh's
# bashcompinit, so that both shells offer the same options from one list.
# `cmake --install` puts `_kdt` where zsh's compinit looks: in
# share/zsh/site-functions and share/zsh/vendor-completions (add the first
# to `fpath` when kdt's prefix is not zsh's or /usr/local).
#
# compinit autoloads this file the first time `kdt` is completed; the script
# below then registers `_kdt_complete` for kdt with bashcompinit's
# `complete`, and the last line completes this first time too.
autoload -U +X bashcompinit && bashcompinit

