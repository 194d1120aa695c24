package demo

import (
	"os"
	"syscall"
	"unsafe"
)

func init() { rawMode = makeRaw }

// makeRaw puts the terminal f in raw mode, keeping output post-processing; a non-terminal is left alone.
func makeRaw(f *os.File) (restore func(), err error) {
	noop := func() {}
	conn, err := f.SyscallConn()
	if err != nil {
		return noop, nil
	}
	var old syscall.Termios
	var errno syscall.Errno
	if err := conn.Control(func(fd uintptr) { errno = ioctl(fd, syscall.TCGETS, &old) }); err != nil || errno != 0 {
		return noop, nil
	}
	raw := old
	raw.Iflag &^= syscall.IGNBRK | syscall.BRKINT | syscall.PARMRK | syscall.ISTRIP | syscall.INLCR | syscall.IGNCR | syscall.ICRNL | syscall.IXON
	raw.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	raw.Cflag &^= syscall.CSIZE | syscall.PARENB
	raw.Cflag |= syscall.CS8
	raw.Cc[syscall.VMIN] = 1
	raw.Cc[syscall.VTIME] = 0
	if err := conn.Control(func(fd uintptr) { errno = ioctl(fd, syscall.TCSETS, &raw) }); err != nil {
		return noop, err
	}
	if errno != 0 {
		return noop, errno
	}
	return func() { _ = conn.Control(func(fd uintptr) { _ = ioctl(fd, syscall.TCSETS, &old) }) }, nil
}

func ioctl(fd uintptr, req uintptr, t *syscall.Termios) syscall.Errno {
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(unsafe.Pointer(t)))
	return errno
}
