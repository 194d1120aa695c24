//go:build !linux

package tmuxtest

import "sync"

// placeLock is a place held; without Linux's abstract sockets the places
// are this process's only.
type placeLock struct{ i int }

var (
	placesMu sync.Mutex
	taken    = map[int]bool{}
)

func tryPlace(i int) (placeLock, bool) {
	placesMu.Lock()
	defer placesMu.Unlock()
	if taken[i] {
		return placeLock{}, false
	}
	taken[i] = true
	return placeLock{i}, true
}

func (p placeLock) release() {
	placesMu.Lock()
	defer placesMu.Unlock()
	delete(taken, p.i)
}
