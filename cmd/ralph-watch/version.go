package main

import (
	"context"
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/peterbourgon/ff/v3/ffcli"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = ""

// Version is the build's version: the -ldflags value, else the module
// version under go install, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func versionCommand(e env) *ffcli.Command {
	return &ffcli.Command{
		Name:       "version",
		ShortUsage: "ralph-watch version",
		ShortHelp:  "print the version",
		FlagSet:    flag.NewFlagSet("version", flag.ContinueOnError),
		Exec: func(ctx context.Context, args []string) error {
			fmt.Fprintf(e.Stdout, "ralph-watch %s\n", Version())
			return nil
		},
	}
}
