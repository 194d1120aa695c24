package main

import (
	"flag"
	"io"
	"testing"
)

// set and resume read +N as "N more" for every limit they take.
func TestLimitFlagsReadPlusNAsMoreForEveryLimit(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-cost", "+1"}, "max-cost +1.00"},
		{[]string{"--max-tokens", "+300000"}, "max-tokens +300000"},
		{[]string{"--max-time", "+1h"}, "max-time +1h0m0s"},
		{[]string{"--max-iterations", "+5", "--task-attempts", "+2"}, "max-iterations +5 task-attempts +2"},
		{[]string{"--inactivity-timeout", "+60", "--iteration-timeout", "+10m"}, "inactivity-timeout +1m0s iteration-timeout +10m0s"},
		{[]string{"--max-cost", "25", "--max-iterations", "30"}, "max-iterations 30 max-cost 25.00"},
	} {
		fs := flag.NewFlagSet("set", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		limits := limitFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		l, err := limits()
		if err != nil || l == nil || l.String() != tc.want {
			t.Errorf("%q: %v, %v; want %q", tc.args, l, err, tc.want)
		}
	}
	fs := flag.NewFlagSet("set", flag.ContinueOnError)
	limits := limitFlags(fs)
	_ = fs.Parse([]string{"--max-cost", "+x"})
	if _, err := limits(); err == nil {
		t.Error("--max-cost +x was taken")
	}
}
