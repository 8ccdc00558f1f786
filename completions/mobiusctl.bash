# bash completion for mobiusctl; `make install` puts it in share/bash-completion/completions/mobiusctl.
# Commands and options are those `mobiusctl --help` lists (Tests/IntegrationTests/Docs/CompletionTests.swift
# checks that they stay the same).

_mobiusctl() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local commands="send model watch status monitor log hello ping reload plugin metrics top help"
    local options="--socket --app --json --human --help --version"
    # `--socket=PATH`: bash splits the word at `=` (COMP_WORDBREAKS), so the value is its own word after "=".
    if [[ $prev == "=" && COMP_CWORD -ge 2 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == "=" ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]} cur=""
    fi
    case $prev in
        --socket)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
        --app | --path | --since | --limit | --timeout | --at)
            COMPREPLY=()
            return
            ;;
        --format)
            mapfile -t COMPREPLY < <(compgen -W "openmetrics prometheus" -- "$cur")
            return
            ;;
        --output)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return
            ;;
    esac
    # The command is the first word that is neither an option nor an option's value.
    local i command=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --socket | --app | --path | --since | --limit | --timeout | --format | --output | --at) ((i++)) ;;
            = | -*) ;;
            *)
                [[ ${COMP_WORDS[i - 1]} == "=" ]] && continue
                command=${COMP_WORDS[i]}
                break
                ;;
        esac
    done
    case $command in
        model) options+=" --path --at" ;;
        watch) options+=" --path" ;;
        log) options+=" --since --follow --limit --models" ;;
        reload) options+=" --timeout" ;;
        metrics) options+=" --format --output" ;;
        plugin)
            # `plugin restart NAME`: the action right after the command, then a plugin name nobody can guess here.
            if [[ $cur != -* ]]; then
                if ((COMP_CWORD == i + 1)); then
                    mapfile -t COMPREPLY < <(compgen -W "restart" -- "$cur")
                else
                    COMPREPLY=()
                fi
                return
            fi
            ;;
        help)
            if [[ $cur != -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
                return
            fi
            ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    elif [[ -z $command ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    else
        COMPREPLY=()
    fi
}
complete -F _mobiusctl mobiusctl
