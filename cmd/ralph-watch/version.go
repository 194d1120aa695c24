package main

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = ""

// Version is the build's version: the -ldflags value, else the module
// version under go install, else "devel".
func Version() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

func versionOf(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func versionCommand(e env) *ffcli.Command {
	return subcommand(newFlags("version"), ffcli.Command{
		ShortUsage: "ralph-watch version",
		ShortHelp:  "print the version",
		LongHelp: `
Print the version: the one make build stamps in, else the module version a
go install recorded, else devel.

Example:
  ralph-watch version`,
		Exec: func(ctx context.Context, args []string) error {
			fmt.Fprintf(e.Stdout, "ralph-watch %s\n", Version())
			return nil
		},
	})
}
