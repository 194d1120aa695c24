// Command slowest runs go test with -json, prints what go test prints
// without -v (each package's ok/FAIL line, the output of tests that fail),
// then the slowest tests, and exits as go test did.
//
//	go run ./bench/slowest [-n 10] -- go test -json ./...
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type timing struct {
	name    string
	elapsed float64
}

// report reads go test -json from r, writes go test's usual output to w and
// returns the finished top-level tests and whether anything failed.
func report(r io.Reader, w io.Writer) (tests []timing, failed bool, err error) {
	type key struct{ pkg, test string }
	held := map[key][]string{} // a running test's output, printed if it fails
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line) // not an event: pass it on
			continue
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output", "build-output":
			if e.Test != "" {
				if isSummary(e.Output) {
					fmt.Fprint(w, e.Output) // a test's own figures, printed whatever its end
					continue
				}
				if !strings.HasPrefix(e.Output, "=== ") { // go test without -v prints no === RUN, PAUSE, CONT
					held[k] = append(held[k], e.Output)
				}
				continue
			}
			if e.Output == "PASS\n" || strings.HasPrefix(e.Output, "=== ") {
				continue // go test without -v prints neither
			}
			fmt.Fprint(w, e.Output)
		case "build-fail":
			failed = true
		case "pass", "skip":
			if e.Test == "" {
				continue
			}
			delete(held, k)
			if e.Action == "pass" && !strings.Contains(e.Test, "/") {
				tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed})
			}
		case "fail":
			failed = true
			if e.Test == "" {
				// A package that failed without its tests ending (a panic,
				// the timeout): show what its unfinished tests printed.
				for hk, out := range held {
					if hk.pkg == e.Package {
						fmt.Fprint(w, strings.Join(out, ""))
						delete(held, hk)
					}
				}
				continue
			}
			fmt.Fprint(w, strings.Join(held[k], ""))
			delete(held, k)
			if !strings.Contains(e.Test, "/") {
				tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed})
			}
		}
	}
	return tests, failed, sc.Err()
}

// summaries are the lines a test prints for make test to show even when it
// passes: the simulation's count of seeds and its time.
var summaries = []string{"simulation: "}

func isSummary(line string) bool {
	for _, p := range summaries {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func main() {
	n := flag.Int("n", 10, "how many of the slowest tests to print")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: slowest [-n 10] -- go test -json [packages]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowest:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "slowest:", err)
		os.Exit(2)
	}
	tests, failed, readErr := report(out, os.Stdout)
	waitErr := cmd.Wait()

	sort.SliceStable(tests, func(i, j int) bool { return tests[i].elapsed > tests[j].elapsed })
	if len(tests) > *n {
		tests = tests[:*n]
	}
	if len(tests) > 0 {
		fmt.Printf("\nslowest %d tests:\n", len(tests))
		for _, t := range tests {
			fmt.Printf("%8.2fs  %s\n", t.elapsed, t.name)
		}
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(waitErr, &ee):
		if code = ee.ExitCode(); code <= 0 {
			code = 1 // killed by a signal
		}
	case waitErr != nil || readErr != nil:
		fmt.Fprintln(os.Stderr, "slowest:", errors.Join(waitErr, readErr))
		code = 2
	}
	if code == 0 && failed {
		code = 1 // a failure go test itself did not exit for
	}
	os.Exit(code)
}
