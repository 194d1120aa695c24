// Command agent is the scripted agent of the benchmark: it stamps the moments
// the harness measures (nanoseconds since the epoch) into a file.
//
//	agent idle STAMP [PROMPT]      ready for input; once the prompt came (typed, or
//	                               as PROMPT), print "working", stamp, and sit still
//	agent done STAMP               work a random 0.5-2.5 s, then stamp and print
//	                               the done token, and sit still
//	agent turn LOG                 append "start NS", work 0.2-0.6 s, append
//	                               "exit NS", exit 0
//	agent receive SIZE STAMP       ready for input; stamp "READY FIRST LAST" once
//	                               SIZE bytes of a paste arrived; exit on Enter
package main

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DoneToken is what the done agent prints; the harness's done pattern matches it.
const DoneToken = "RALPH_DONE_42"

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: agent idle|done|turn|receive ...")
		os.Exit(2)
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	switch os.Args[1] {
	case "idle":
		if len(os.Args) < 4 {
			ready()
			readUntilEnter()
		}
		fmt.Print("working on it\r\n")
		stamp(os.Args[2], time.Now())
		stillForever()
	case "done":
		fmt.Print("working on it\n")
		time.Sleep(500*time.Millisecond + time.Duration(rng.Int63n(int64(2*time.Second))))
		t := time.Now()
		fmt.Print(DoneToken + "\n")
		stamp(os.Args[2], t)
		stillForever()
	case "turn":
		appendLine(os.Args[2], "start", time.Now())
		fmt.Print("working on it\n")
		time.Sleep(200*time.Millisecond + time.Duration(rng.Int63n(int64(400*time.Millisecond))))
		appendLine(os.Args[2], "exit", time.Now())
		os.Exit(0)
	case "receive":
		size, err := strconv.Atoi(os.Args[2])
		if err != nil || len(os.Args) < 4 {
			fmt.Fprintln(os.Stderr, "usage: agent receive SIZE STAMP")
			os.Exit(2)
		}
		receive(size, os.Args[3])
	default:
		fmt.Fprintln(os.Stderr, "agent: unknown mode", os.Args[1])
		os.Exit(2)
	}
}

// ready puts the terminal in raw mode, turns on bracketed paste and draws an
// input prompt, as interactive agents do.
func ready() {
	cmd := exec.Command("stty", "raw", "-echo")
	cmd.Stdin = os.Stdin
	_ = cmd.Run()
	fmt.Print("\x1b[?2004hagent ready\r\n❯ ")
}

func readUntilEnter() {
	buf := make([]byte, 64<<10)
	for {
		n, err := os.Stdin.Read(buf)
		for _, b := range buf[:n] {
			if b == '\r' {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// receive stamps when the agent became ready, and when the first and the
// last of size bytes of input arrived; Enter then ends it.
func receive(size int, path string) {
	ready()
	readyAt := time.Now()
	var first time.Time
	got, want := 0, size
	submitted := false
	buf := make([]byte, 64<<10)
	for got < want {
		n, err := os.Stdin.Read(buf)
		if n > 0 && got == 0 {
			first = time.Now()
			if strings.HasPrefix(string(buf[:n]), "\x1b[200~") {
				want += 12 // a bracketed paste: its start and end marks
			}
		}
		got += n
		if err != nil {
			os.Exit(1)
		}
		if got > want && strings.ContainsRune(string(buf[n-(got-want):n]), '\r') {
			submitted = true // Enter came in the same read as the end of the text
		}
	}
	last := time.Now()
	_ = os.WriteFile(path, []byte(fmt.Sprintf("%d %d %d\n", readyAt.UnixNano(), first.UnixNano(), last.UnixNano())), 0o644)
	fmt.Printf("received %d bytes\r\n", got)
	if !submitted {
		readUntilEnter()
	}
	fmt.Print("\x1b[?2004lsubmitted\r\n")
	os.Exit(0)
}

func stamp(path string, t time.Time) {
	_ = os.WriteFile(path, []byte(strconv.FormatInt(t.UnixNano(), 10)+"\n"), 0o644)
}

func appendLine(path, what string, t time.Time) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, t.UnixNano())
	f.Close()
}

// stillForever keeps the agent alive and its screen unchanged, reading and
// dropping input as an idle REPL would.
func stillForever() {
	buf := make([]byte, 4096)
	for {
		if _, err := os.Stdin.Read(buf); err != nil {
			select {}
		}
	}
}
