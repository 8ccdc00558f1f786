# bash completion for mobiusd; `make install` puts it in share/bash-completion/completions/mobiusd.
# The flags are those `mobiusd --help` lists (Tests/IntegrationTests/Docs/CompletionTests.swift checks them).

_mobiusd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local flags="--config --socket --state-dir --ephemeral --log-level --check --version --help"
    if [[ $prev == "=" && COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]} cur=""
    fi
    case $prev in
        --config | --socket)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
        --state-dir)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return
            ;;
        --log-level)
            mapfile -t COMPREPLY < <(compgen -W "error warning notice info debug" -- "$cur")
            return
            ;;
    esac
    mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
}
complete -F _mobiusd mobiusd
