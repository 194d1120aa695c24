package tmuxtest

import (
	"net"
	"strconv"
)

// placeLock is a place held: a listening socket in Linux's abstract
// namespace, which one process at a time can hold, the kernel frees when
// the process ends, and which leaves no file behind.
type placeLock struct{ l net.Listener }

// placeName names the places (tests of this package use names of their own).
var placeName = "@ralph-test-agent-place-"

func tryPlace(i int) (placeLock, bool) {
	l, err := net.Listen("unix", placeName+strconv.Itoa(i))
	if err != nil {
		return placeLock{}, false
	}
	return placeLock{l}, true
}

func (p placeLock) release() { _ = p.l.Close() }
