package iteration

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/creack/pty"
)

func TestTtyProbesReadTheTerminalOfAProgramsStandardInput(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command("sleep", "30")
	cmd.Stdin = tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid

	if got := ttyCanonical(pid); got != 1 {
		t.Errorf("a fresh terminal: canonical %d, want 1", got)
	}
	if _, err := ptmx.Write([]byte("ab\ncd")); err != nil {
		t.Fatal(err)
	}
	// In line mode only the whole line counts; the kernel may take a moment to queue it.
	deadline := time.Now().Add(5 * time.Second)
	for ttyQueued(pid) != 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := ttyQueued(pid); got != 3 {
		t.Errorf("queued %d, want 3 (the line ab)", got)
	}

	var raw syscall.Termios
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&raw))); errno != 0 {
		t.Fatal(errno)
	}
	raw.Lflag &^= syscall.ICANON
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, tty.Fd(), syscall.TCSETS, uintptr(unsafe.Pointer(&raw))); errno != 0 {
		t.Fatal(errno)
	}
	if got := ttyCanonical(pid); got != 0 {
		t.Errorf("a raw terminal: canonical %d, want 0", got)
	}

	for _, pid := range []int{0, -1} {
		if c, q := ttyCanonical(pid), ttyQueued(pid); c != -1 || q != -1 {
			t.Errorf("pid %d: canonical %d, queued %d, want -1 and -1", pid, c, q)
		}
	}
}
