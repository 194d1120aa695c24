module github.com/ralph-tmux/ralph.tmux

go 1.22

require (
	github.com/acarl005/stripansi v0.0.0-20180116102854-5a71ef0e047d
	github.com/peterbourgon/ff/v3 v3.4.0
)

require github.com/creack/pty v1.1.24
