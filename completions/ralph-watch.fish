# fish completion for ralph-watch. Installed as
# $(PREFIX)/share/fish/vendor_completions.d/ralph-watch.fish; or:
# ralph-watch completion fish >~/.config/fish/completions/ralph-watch.fish

# The subcommand typed so far (demo agent is "demo agent"), else nothing.
function __ralph_watch_subcommand
    set -l words (commandline -opc)
    if set -q words[2]; and contains -- $words[2] run status list ls logs pause resume restore stop send note set skip retry clean init template demo version completion doctor hook trust replay finish follow report tasks plan fan
        if test "$words[2]" = demo; and contains -- agent $words[3..-1]
            echo demo agent
        else
            echo $words[2]
        end
        return 0
    end
    return 1
end

# __ralph_watch_using SUBCOMMAND...: the line's subcommand is one of them,
# and -- has not been typed.
function __ralph_watch_using
    contains -- -- (commandline -opc); and return 1
    contains -- (__ralph_watch_subcommand) $argv
end

function __ralph_watch_loops
    ralph-watch list --names 2>/dev/null
end

function __ralph_watch_fans
    ralph-watch list --fans 2>/dev/null
end

# No loop name typed yet after the subcommand.
function __ralph_watch_no_name_yet
    set -l names (__ralph_watch_loops) (__ralph_watch_fans)
    for w in (commandline -opc)[3..-1]
        contains -- $w $names; and return 1
    end
    return 0
end

# Pane ids of the tmux server named by -L/-S earlier on the line.
function __ralph_watch_panes
    set -l words (commandline -opc)
    set -l server
    for i in (seq (count $words))
        set -l flag $words[$i]
        set -l value $words[(math $i + 1)]
        if string match -qr -- '^--socket-(name|path)=' $flag
            set value (string split -m1 = -- $flag)[2]
            set flag (string split -m1 = -- $flag)[1]
        end
        switch $flag
            case -L --socket-name
                set server -L $value
            case -S --socket-path
                set server -S $value
        end
    end
    tmux $server list-panes -a -F '#{pane_id}' 2>/dev/null
end

# __ralph_watch_values FLAG: the values --FLAG takes when they are a set.
function __ralph_watch_values
    switch $argv[1]
        case prompt-mode
            printf '%s\n' type arg stdin
        case agent
            printf '%s\n' claude codex gemini opencode copilot amp aider generic
        case check-fail-action
            printf '%s\n' append prepend replace
        case attach
            printf '%s\n' auto yes no
    end
end

# run (or doctor) ... -- COMMAND ARG...: complete COMMAND as fish would.
function __ralph_watch_after_dashdash
    contains -- "$(__ralph_watch_subcommand)" run doctor; and contains -- -- (commandline -opc)
end
function __ralph_watch_command
    set -l words (commandline -opc)
    set -l at (contains -i -- -- $words)
    __fish_complete_subcommand --commandline $words[(math $at + 1)..-1] (commandline -ct)
end

complete -c ralph-watch -f

# Subcommands.
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a run -d 'loop a pane (blocks; --detach returns)'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a status -d "show a loop's status"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a list -d 'list the loops'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a ls -d 'list the loops'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a logs -d "print a loop's iterations log"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a pause -d 'pause a loop; the agent runs on'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a resume -d 'resume a paused or disconnected loop'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a restore -d 're-arm the loops live when the tmux server went away'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a stop -d 'end a loop (and with --kill its agent)'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a send -d "type a message into a loop's pane"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a note -d "leave a note for a loop's next iteration"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a set -d "change a running or paused loop's limits"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a skip -d 'end the current iteration now; with a plan, skip its task'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a retry -d 'end the current iteration and start its task again in a fresh agent'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a clean -d "remove a loop's state"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a init -d 'write a minimal PROMPT.md'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a template -d 'print the PROMPT.md template'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a demo -d 'loop the built-in demo agent in a private tmux server'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a version -d 'print the version'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a completion -d 'print the shell completion script'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a doctor -d 'check an installed agent offline'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a hook -d 'report an agent'\''s own event to its watcher'
complete -c ralph-watch -n '__ralph_watch_using hook' -a 'session-start prompt-submit turn-end turn-failed needs-input working'
complete -c ralph-watch -n '__ralph_watch_using hook' -l state -r -d 'the loop'\''s state folder'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a trust -d "allow a folder's .ralph/config to run its commands"
complete -c ralph-watch -n '__ralph_watch_using trust' -f -a '(__fish_complete_directories)'
complete -c ralph-watch -n '__ralph_watch_using trust' -l revoke -d "forget the folder's config file"
complete -c ralph-watch -n '__ralph_watch_using trust' -l list -d 'list the trusted config files'
complete -c ralph-watch -n '__ralph_watch_using trust' -l check -d 'exit 1 and print the commands unless run would take the file'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a replay -d "play an iteration's recorded pane output"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a finish -d "land a loop's work: merge, rebase, pull request or patch"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a follow -d "bring a pull request's CI failures and reviews back to the loop"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a report -d "write one self-contained HTML page of a loop's run"
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a tasks -d 'show the tasks of a plan file as the loop sees them'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a plan -d 'write a plan from GitHub issues, or bring one up to date'
complete -c ralph-watch -n 'not __ralph_watch_subcommand' -a fan -d 'run several loops on one plan, landed one at a time by a merge queue'
complete -c ralph-watch -n '__ralph_watch_using demo; and test (count (commandline -opc)) -eq 2' -a agent -d 'run the demo agent itself'

# Arguments.
complete -c ralph-watch -n '__ralph_watch_using status logs pause resume stop send note set skip retry clean replay finish follow report; and __ralph_watch_no_name_yet' -a '(__ralph_watch_loops)' -d loop
complete -c ralph-watch -n '__ralph_watch_using status logs pause resume stop note set clean finish report tasks; and __ralph_watch_no_name_yet' -a '(__ralph_watch_fans)' -d fan
complete -c ralph-watch -n '__ralph_watch_using restore' -a '(__ralph_watch_fans)' -d fan
complete -c ralph-watch -n '__ralph_watch_using completion' -a 'bash zsh fish'
complete -c ralph-watch -n '__ralph_watch_using plan' -F
complete -c ralph-watch -n __ralph_watch_after_dashdash -a '(__ralph_watch_command)'

# Flags, one a line.
complete -c ralph-watch -n '__ralph_watch_using run' -s t -x -a '(__ralph_watch_panes)' -d 'pane to loop (short for --target)'
complete -c ralph-watch -n '__ralph_watch_using run' -l target -x -a '(__ralph_watch_panes)' -d 'pane to loop (default $TMUX_PANE)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -s L -x -d 'tmux server socket name (short for --socket-name)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l socket-name -x -d 'tmux server socket name, as tmux -L'
complete -c ralph-watch -n '__ralph_watch_using run fan' -s S -r -F -d 'tmux server socket path (short for --socket-path)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l socket-path -r -F -d 'tmux server socket path, as tmux -S'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l name -x -d 'loop name (default derived from the pane)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l prompt-file -r -F -d 'prompt file, read fresh every iteration'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l prompt-mode -x -a '(__ralph_watch_values prompt-mode)' -d 'how the prompt reaches the agent'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l max-iterations -x -d 'stop after this many iterations (0: no limit)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l inactivity-timeout -x -d 'restart when the screen is unchanged this long'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l poll-interval -x -d 'how often the screen is compared'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l lines -x -d 'lines compared for inactivity'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l done-pattern -x -d 'regular expression (RE2) that ends the loop'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check-done-continuous -d 'match the done pattern while the agent runs'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l done-file -r -F -d 'end the loop when this file exists'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l ready-pattern -x -d 'regular expression that shows the agent is ready'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l ready-timeout -x -d 'longest wait for the agent to be ready'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l agent -x -a '(__ralph_watch_values agent)' -d 'agent profile'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l busy-pattern -x -d 'regular expression that shows the agent is working'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l dialog-pattern -x -d 'regular expression that shows the agent waits on a question'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l limit-pattern -x -d 'regular expression that shows a usage limit'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l idle-grace -x -d 'end the turn when the agent sits idle this long'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l dialog-timeout -x -d 'restart when a question waits this long'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l limit-wait -x -d 'wait after a usage limit that shows no reset time'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l turn-hook -d 'let the agent report the end of its turn by its own hook'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check -x -d 'command run after every iteration (repeatable)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check-hint -x -d 'hint for the check before it'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check-timeout -x -d 'longest run of a check'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check-output-chars -x -d 'characters of a failed check output in the next prompt'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l check-fail-action -x -a '(__ralph_watch_values check-fail-action)' -d 'how failures join the next prompt'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l include-iteration-count -d 'start the prompt with the iteration count'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l on-iteration-end -x -d 'command run after every iteration'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l on-done -x -d 'command run when the loop is done'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l on-fail -x -d 'command run when the loop fails'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l commit -d 'commit all changes after an iteration whose checks pass'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l progress-file -r -F -d 'file a section is appended to per iteration'
complete -c ralph-watch -n '__ralph_watch_using run' -l worktree -d 'loop in a git worktree on branch ralph/NAME'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l stall-limit -x -d 'stop after this many iterations that changed nothing'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l pause-file -r -F -d 'pause the loop when this file appears'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l end-command -r -a '(__fish_complete_command)' -d 'run in the pane when the loop ends with its agent gone'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l cast-limit -x -d 'keep at most this size of iteration casts (20MB, 500KB)'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l no-cast -d 'record no casts of the iterations'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l max-tokens -x -d 'stop the loop once its iterations used this many tokens'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l max-cost -x -d 'stop the loop once its estimated cost reaches this many US dollars'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l prices -r -F -d 'JSON file of model prices over the built-in table'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l max-context -x -d 'at this share of its context window nudge the agent; 15 points more ends the iteration'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l context-nudge -x -d 'what --max-context tells the agent'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l context-windows -r -F -d "JSON file of models' context windows"
complete -c ralph-watch -n '__ralph_watch_using run fan' -l tasks -r -F -d 'plan to work through, one task an iteration'
complete -c ralph-watch -n '__ralph_watch_using run' -l task -x -d 'work on this one task of the plan and stop when it is done'
complete -c ralph-watch -n '__ralph_watch_using run' -l goal -x -d 'the goal a judge must find met before the loop ends done'
complete -c ralph-watch -n '__ralph_watch_using run' -l goal-file -r -F -d 'file holding the goal, re-read at each judging'
complete -c ralph-watch -n '__ralph_watch_using run' -l judge -x -d 'one-shot command that judges the goal and answers JSON'
complete -c ralph-watch -n '__ralph_watch_using run' -l judge-every -x -d 'ask the judge after every N-th iteration too'
complete -c ralph-watch -n '__ralph_watch_using run' -l judge-prompt-mode -x -a 'stdin arg' -d 'how the judge gets its input'
complete -c ralph-watch -n '__ralph_watch_using run' -l judge-timeout -x -d 'longest a judge may run'
complete -c ralph-watch -n '__ralph_watch_using run' -l judge-patience -x -d 'not-met verdicts in a row, the same, that end the loop'
complete -c ralph-watch -n '__ralph_watch_using run' -l protect -x -d 'glob of files the agent may not change'
complete -c ralph-watch -n '__ralph_watch_using run' -l no-protect -d 'protect only the --protect globs'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l task-attempts -x -d 'tries a task gets before it is skipped'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l review -d 'follow each implemented task with a review iteration'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l review-cap -x -d 'reviews of one task; the last one approves'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l diff-chars -x -d 'characters of {{diff}}, the rest cut'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l iteration-timeout -x -d 'restart an iteration that runs this long'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l max-time -x -d 'stop the loop after this long'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l restart-delay -x -d 'pause between iterations'
complete -c ralph-watch -n '__ralph_watch_using run' -l detach -d 'run the watcher in the background and return'
complete -c ralph-watch -n '__ralph_watch_using run' -l replace -d 'stop a loop of the same name, or the loop of the pane, and start afresh'
complete -c ralph-watch -n '__ralph_watch_using run' -l clean-state -d 'clear the state of a loop of the same name first'
complete -c ralph-watch -n '__ralph_watch_using run' -l no-run -d 'prepare the pane and state without looping'
complete -c ralph-watch -n '__ralph_watch_using run fan' -l tmux -d 'accepted for compatibility; loops always use tmux'
complete -c ralph-watch -n '__ralph_watch_using status' -l json -d 'print the state as JSON'
complete -c ralph-watch -n '__ralph_watch_using list ls' -l json -d 'print the loops as JSON'
complete -c ralph-watch -n '__ralph_watch_using list ls' -l names -d 'print only the loop names'
complete -c ralph-watch -n '__ralph_watch_using list ls' -l fans -d "print only the fans' names"
complete -c ralph-watch -n '__ralph_watch_using logs' -l live -d 'follow the log until the loop ends'
complete -c ralph-watch -n '__ralph_watch_using logs' -l lines -x -d 'print only the last N lines'
complete -c ralph-watch -n '__ralph_watch_using logs' -l tail -x -d 'same as --lines'
complete -c ralph-watch -n '__ralph_watch_using resume' -s t -x -a '(__ralph_watch_panes)' -d 'pane for a loop whose pane is gone (short for --target)'
complete -c ralph-watch -n '__ralph_watch_using resume' -l target -x -a '(__ralph_watch_panes)' -d 'pane for a loop whose pane is gone'
complete -c ralph-watch -n '__ralph_watch_using restore' -l dry-run -d 'only say which loops and fans would be brought back'
complete -c ralph-watch -n '__ralph_watch_using restore' -s L -x -d 'tmux server socket name (short for --socket-name)'
complete -c ralph-watch -n '__ralph_watch_using restore' -l socket-name -x -d 'tmux server socket name, as tmux -L'
complete -c ralph-watch -n '__ralph_watch_using restore' -s S -r -F -d 'tmux server socket path (short for --socket-path)'
complete -c ralph-watch -n '__ralph_watch_using restore' -l socket-path -r -F -d 'tmux server socket path, as tmux -S'
complete -c ralph-watch -n '__ralph_watch_using stop' -l kill -d 'end the agent too'
complete -c ralph-watch -n '__ralph_watch_using note' -l sticky -d "keep the note in every iteration's prompt until --clear"
complete -c ralph-watch -n '__ralph_watch_using note' -l clear -d 'drop the notes left so far, sticky ones too'
complete -c ralph-watch -n '__ralph_watch_using set resume' -l max-iterations -x -d "the most iterations the loop runs; +N adds N"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l max-time -x -d "stop the loop this long after it first started"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l max-tokens -x -d "stop the loop once its iterations used this many tokens"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l max-cost -x -d "stop the loop once its estimated cost reaches this many US dollars"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l inactivity-timeout -x -d "restart when the screen is unchanged this long"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l iteration-timeout -x -d "restart an iteration that runs this long"
complete -c ralph-watch -n '__ralph_watch_using set resume' -l task-attempts -x -d "tries of a plan's task before it is skipped"
complete -c ralph-watch -n '__ralph_watch_using clean' -l all -d 'clean every loop no watcher holds'
complete -c ralph-watch -n '__ralph_watch_using init' -l force -d 'overwrite an existing PROMPT.md'
complete -c ralph-watch -n '__ralph_watch_using init' -l tasks -d 'also write a starting IMPLEMENTATION_PLAN.md'
complete -c ralph-watch -n '__ralph_watch_using demo' -l max-iterations -x -d 'iterations at most'
complete -c ralph-watch -n '__ralph_watch_using demo' -l attach -x -a '(__ralph_watch_values attach)' -d "attach to the demo's tmux session"
complete -c ralph-watch -n '__ralph_watch_using doctor' -l agent -x -a '(__ralph_watch_values agent)' -d 'agent profile'
complete -c ralph-watch -n '__ralph_watch_using doctor' -l ready-pattern -x -d "try this ready pattern instead of the profile's"
complete -c ralph-watch -n '__ralph_watch_using doctor' -l json -d 'print each report as one line of JSON'
complete -c ralph-watch -n '__ralph_watch_using doctor' -l markdown -d 'print rows of the compatibility table'
complete -c ralph-watch -n '__ralph_watch_using doctor' -l judge -x -d 'check that this goal-mode judge answers in the JSON form'
complete -c ralph-watch -n '__ralph_watch_using doctor' -l judge-prompt-mode -x -a 'stdin arg' -d 'how the judge gets its input'
complete -c ralph-watch -n '__ralph_watch_using doctor' -l judge-timeout -x -d 'longest the judge may run'
complete -c ralph-watch -n '__ralph_watch_using replay' -l speed -x -d 'play this many times as fast as recorded'
complete -c ralph-watch -n '__ralph_watch_using replay' -l idle-limit -x -d 'cap every pause in the output at this long'
complete -c ralph-watch -n '__ralph_watch_using replay' -l dump -d "print the iteration's last screen as text"
complete -c ralph-watch -n '__ralph_watch_using finish' -l merge -d "merge the loop's branch into the branch it came from"
complete -c ralph-watch -n '__ralph_watch_using finish' -l rebase -d "rebase the loop's branch onto it, then fast-forward"
complete -c ralph-watch -n '__ralph_watch_using finish' -l pr -d 'push the branch and open a pull request with gh'
complete -c ralph-watch -n '__ralph_watch_using finish' -l patch -r -F -d 'write the commits as a patch series to FILE'
complete -c ralph-watch -n '__ralph_watch_using finish' -l remove -d 'then remove the worktree and branch, once merged'
complete -c ralph-watch -n '__ralph_watch_using finish' -l commit -d 'commit uncommitted changes in the worktree first'
complete -c ralph-watch -n '__ralph_watch_using finish' -l into -x -d 'land on this branch'
complete -c ralph-watch -n '__ralph_watch_using finish' -l remote -x -d '--pr: push to this remote'
complete -c ralph-watch -n '__ralph_watch_using finish' -l follow -d '--pr: then follow the pull request'
complete -c ralph-watch -n '__ralph_watch_using finish follow' -l follow-interval -x -d 'look at the pull request this often'
complete -c ralph-watch -n '__ralph_watch_using finish follow' -l follow-rounds -x -d 'rounds of fixes before follow ends'
complete -c ralph-watch -n '__ralph_watch_using finish follow' -l follow-anyone -d "give the agent everyone's reviews and comments"
complete -c ralph-watch -n '__ralph_watch_using follow' -l detach -d 'follow in the background'
complete -c ralph-watch -n '__ralph_watch_using report' -s o -r -F -d 'write the page to this file'
complete -c ralph-watch -n '__ralph_watch_using report' -l open -d 'open the page once written'
complete -c ralph-watch -n '__ralph_watch_using report' -l cast-tail -x -d 'keep this much of the end of each cast'
complete -c ralph-watch -n '__ralph_watch_using tasks' -l json -d 'print the plan as JSON'
complete -c ralph-watch -n '__ralph_watch_using plan' -l from-github -d "take the tasks from the repository's open GitHub issues"
complete -c ralph-watch -n '__ralph_watch_using plan' -l label -x -d 'only issues with this label (repeatable)'
complete -c ralph-watch -n '__ralph_watch_using plan' -l milestone -x -d 'only issues of this milestone'
complete -c ralph-watch -n '__ralph_watch_using plan' -l assignee -x -d 'only issues assigned to this login (@me: yours)'
complete -c ralph-watch -n '__ralph_watch_using plan' -l limit -x -d 'at most this many open issues'
complete -c ralph-watch -n '__ralph_watch_using plan' -l repo -x -d 'the issues of this repository (OWNER/NAME)'
complete -c ralph-watch -n '__ralph_watch_using fan' -l max -x -d 'loops at once'
complete -c ralph-watch -n '__ralph_watch_using fan' -l into -x -d 'branch the tasks land on'
complete -c ralph-watch -n '__ralph_watch_using fan' -l merge-attempts -x -d 'landings a task gets before it needs review'
complete -c ralph-watch -n '__ralph_watch_using fan' -l detach -d 'run the fan in the background and return once it runs'
