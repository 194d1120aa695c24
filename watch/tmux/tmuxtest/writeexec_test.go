package tmuxtest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// A program written while other goroutines start processes runs at once,
// never "text file busy".
func TestAProgramWrittenWhileOtherTestsStartProcessesRunsAtOnce(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					_ = exec.Command("/bin/true").Run()
				}
			}
		}()
	}
	defer wg.Wait()
	defer close(stop)
	// A program of a few MB, as ralph-watch is: the write takes a while.
	program := append([]byte("#!/bin/sh\nexit 0\n"), bytes.Repeat([]byte("# padding\n"), 400_000)...)
	dir := t.TempDir()
	for i := range 20 {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := WriteExecutable(path, program, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(path).Run(); err != nil {
			t.Fatalf("run %s just written: %v", path, err)
		}
	}
}
