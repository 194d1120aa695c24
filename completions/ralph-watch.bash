# bash completion for ralph-watch                         -*- shell-script -*-
# Installed as $(PREFIX)/share/bash-completion/completions/ralph-watch;
# without bash-completion: source <(ralph-watch completion bash)

# _ralph_watch_subcommands SUBCOMMAND: what follows it as a subcommand.
_ralph_watch_subcommands() {
    case $1 in
    '') echo run status list ls logs pause resume restore stop send note set skip retry clean init template demo version completion doctor hook trust replay finish follow report tasks plan fan ;;
    demo) echo agent ;;
    esac
}

# _ralph_watch_flags SUBCOMMAND: its flags, one a line; a trailing = marks
# a flag that takes a value. An arm ending in ;;& lets the next arms add theirs.
_ralph_watch_flags() {
    local -a flags=()
    case $1 in
    run) flags=(
        -t=
        --target=
        --worktree
        --task=
        --detach
        --replace
        --clean-state
        --no-run
        --goal=
        --goal-file=
        --judge=
        --judge-every=
        --judge-prompt-mode=
        --judge-timeout=
        --judge-patience=
        --protect=
        --no-protect
    ) ;;&
    fan) flags=(
        --max=
        --into=
        --merge-attempts=
        --detach
    ) ;;&
    # a loop's own flags: run's, and each loop of a fan's
    run | fan) flags+=(
        -L=
        --socket-name=
        -S=
        --socket-path=
        --name=
        --prompt-file=
        --prompt-mode=
        --max-iterations=
        --inactivity-timeout=
        --poll-interval=
        --lines=
        --done-pattern=
        --check-done-continuous
        --done-file=
        --ready-pattern=
        --ready-timeout=
        --agent=
        --busy-pattern=
        --dialog-pattern=
        --limit-pattern=
        --idle-grace=
        --dialog-timeout=
        --limit-wait=
        --turn-hook
        --check=
        --check-hint=
        --check-timeout=
        --check-output-chars=
        --check-fail-action=
        --include-iteration-count
        --on-iteration-end=
        --on-done=
        --on-fail=
        --commit
        --progress-file=
        --stall-limit=
        --pause-file=
        --end-command=
        --cast-limit=
        --no-cast
        --max-tokens=
        --max-cost=
        --prices=
        --max-context=
        --context-nudge=
        --context-windows=
        --tasks=
        --task-attempts=
        --review
        --review-cap=
        --diff-chars=
        --iteration-timeout=
        --max-time=
        --restart-delay=
        --tmux
    ) ;;
    status) flags=(
        --json
    ) ;;
    list | ls) flags=(
        --json
        --names
        --fans
    ) ;;
    logs) flags=(
        --live
        --lines=
        --tail=
    ) ;;
    resume) flags=(
        -t=
        --target=
        --max-iterations=
        --max-time=
        --max-tokens=
        --max-cost=
        --inactivity-timeout=
        --iteration-timeout=
        --task-attempts=
    ) ;;
    restore) flags=(
        --dry-run
        -L=
        --socket-name=
        -S=
        --socket-path=
    ) ;;
    stop) flags=(
        --kill
    ) ;;
    note) flags=(
        --sticky
        --clear
    ) ;;
    set) flags=(
        --max-iterations=
        --max-time=
        --max-tokens=
        --max-cost=
        --inactivity-timeout=
        --iteration-timeout=
        --task-attempts=
    ) ;;
    clean) flags=(
        --all
    ) ;;
    init) flags=(
        --force
        --tasks
    ) ;;
    doctor) flags=(
        --agent=
        --ready-pattern=
        --json
        --markdown
        --judge=
        --judge-prompt-mode=
        --judge-timeout=
    ) ;;
    hook) flags=(
        --state=
    ) ;;
    demo) flags=(
        --max-iterations=
        --attach=
    ) ;;
    replay) flags=(
        --speed=
        --idle-limit=
        --dump
    ) ;;
    finish) flags=(
        --merge
        --rebase
        --pr
        --patch=
        --remove
        --commit
        --into=
        --remote=
        --follow
        --follow-interval=
        --follow-rounds=
        --follow-anyone
    ) ;;
    follow) flags=(
        --follow-interval=
        --follow-rounds=
        --follow-anyone
        --detach
    ) ;;
    report) flags=(
        -o=
        --open
        --cast-tail=
    ) ;;
    tasks) flags=(
        --json
    ) ;;
    plan) flags=(
        --from-github
        --label=
        --milestone=
        --assignee=
        --limit=
        --repo=
    ) ;;
    trust) flags=(
        --revoke
        --list
        --check
    ) ;;
    esac
    ((${#flags[@]})) && printf '%s\n' "${flags[@]}"
}

# _ralph_watch_values FLAG: the values FLAG takes when they are a set.
_ralph_watch_values() {
    case $1 in
    --prompt-mode) echo type arg stdin ;;
    --judge-prompt-mode) echo stdin arg ;;
    --agent) echo claude codex gemini opencode copilot amp aider generic ;;
    --check-fail-action) echo append prepend replace ;;
    --attach) echo auto yes no ;;
    esac
}

# _ralph_watch_value FLAG CUR SERVER...: complete the value of FLAG.
_ralph_watch_value() {
    local flag=$1 cur=$2
    shift 2
    case $flag in
    -t | --target)
        COMPREPLY=($(compgen -W "$(tmux "$@" list-panes -a -F '#{pane_id}' 2>/dev/null)" -- "$cur"))
        ;;
    -S | --socket-path | --prompt-file | --done-file | --progress-file | --pause-file | --prices | --context-windows | --tasks)
        compopt -o filenames 2>/dev/null
        # One word a line: a file name with spaces stays one word.
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        ;;
    *)
        COMPREPLY=($(compgen -W "$(_ralph_watch_values "$flag")" -- "$cur"))
        ;;
    esac
}

_ralph_watch() {
    local cword=$COMP_CWORD
    local -a words=("${COMP_WORDS[@]}")
    local cur=${words[cword]} prev=${words[cword - 1]} prefix=
    # --flag=value, whether or not COMP_WORDBREAKS splits it at the =.
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]]; then
        prev=${words[cword - 2]}
    elif [[ $cur == -*=* ]]; then
        prev=${cur%%=*} prefix=${cur%%=*}= cur=${cur#*=}
    fi
    COMPREPLY=()

    # Walk the line: subcommands, flags with their values, arguments.
    local sub= flags= args=0 dashdash=0 i=1 w v
    local -a server=()
    while ((i < cword)); do
        w=${words[i]}
        if ((dashdash)); then
            ((args++))
        elif [[ $w == -- ]]; then
            dashdash=$i
        elif [[ $w == -?* ]]; then
            v=
            if [[ $w == *=* ]]; then
                v=${w#*=} w=${w%%=*}
            elif [[ $'\n'$flags$'\n' == *$'\n'$w=$'\n'* ]]; then
                [[ ${words[i + 1]} == = ]] && ((i++))
                ((i++))
                v=${words[i]}
            fi
            case $w in
            -L | --socket-name) server=(-L "$v") ;;
            -S | --socket-path) server=(-S "$v") ;;
            esac
        elif ((args == 0)) && [[ " $(_ralph_watch_subcommands "$sub") " == *" $w "* ]]; then
            sub=${sub:+$sub }$w
            flags=$(_ralph_watch_flags "$sub")
        else
            ((args++))
        fi
        ((i++))
    done

    if ((dashdash)); then
        # run -- COMMAND ARG...
        if ((cword == dashdash + 1)); then
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        else
            compopt -o default 2>/dev/null
        fi
    elif [[ $prev == -* && $'\n'$flags$'\n' == *$'\n'$prev=$'\n'* ]]; then
        _ralph_watch_value "$prev" "$cur" "${server[@]}"
        [[ $prefix ]] && COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
    elif [[ $cur == -* ]]; then
        # Flags follow the arguments too, but where the arguments are another's.
        ((args == 0)) || [[ " run fan doctor hook send demo " != *" $sub "* ]] && COMPREPLY=($(compgen -W "${flags//=/}" -- "$cur"))
    elif ((args == 0)); then
        case $sub in
        status | logs | pause | resume | stop | note | set | clean | finish | report)
            COMPREPLY=($(compgen -W "$(ralph-watch list --names 2>/dev/null) $(ralph-watch list --fans 2>/dev/null)" -- "$cur"))
            ;;
        send | skip | retry | replay | follow)
            COMPREPLY=($(compgen -W "$(ralph-watch list --names 2>/dev/null)" -- "$cur"))
            ;;
        restore)
            COMPREPLY=($(compgen -W "$(ralph-watch list --fans 2>/dev/null)" -- "$cur"))
            ;;
        completion)
            COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
            ;;
        tasks)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            COMPREPLY+=($(compgen -W "$(ralph-watch list --fans 2>/dev/null)" -- "$cur"))
            ;;
        plan)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            ;;
        trust)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            ;;
        *)
            COMPREPLY=($(compgen -W "$(_ralph_watch_subcommands "$sub")" -- "$cur"))
            ;;
        esac
    fi
}

complete -F _ralph_watch ralph-watch
