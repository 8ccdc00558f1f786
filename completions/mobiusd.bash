# bash completion for mobiusd; `make install` puts it in share/bash-completion/completions/mobiusd.
# The flags are those `mobiusd --help` and `mobiusd replay --help` list (Tests/IntegrationTests/Completion/
# CompletionTests.swift checks them).

_mobiusd() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local flags="--config --socket --state-dir --ephemeral --log-level --check --version --help"
    if [[ ${COMP_WORDS[1]} == replay && COMP_CWORD -ge 2 ]]; then
        flags="--state-dir --config --current --since --until --all --log-level --help"
    elif [[ COMP_CWORD -eq 1 && $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "replay" -- "$cur")
        return
    fi
    if [[ $prev == "=" && COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]} cur=""
    fi
    case $prev in
        --config | --socket | --current)
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
        --since | --until)
            COMPREPLY=()
            return
            ;;
    esac
    mapfile -t COMPREPLY < <(compgen -W "$flags" -- "$cur")
}
complete -F _mobiusd mobiusd
