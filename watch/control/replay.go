package control

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ralph-tmux/ralph.tmux/watch/cast"
	"github.com/ralph-tmux/ralph.tmux/watch/contract"
	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// Cast finds the cast of a loop's iteration, 0 for the newest, and says
// which iteration it is; the error names the iterations that have one.
func Cast(l *Loop, iteration int) (path string, found int, err error) {
	dir := l.Store.Path(state.CastsDir)
	have, err := cast.Iterations(dir)
	if err != nil {
		return "", 0, failed(err)
	}
	if len(have) == 0 {
		return "", 0, Errorf(contract.ExitFailed, "loop %s has no casts (was it run with --no-cast, or has no iteration started?)", l.Name)
	}
	found = have[len(have)-1]
	if iteration != 0 {
		found = 0
		for _, n := range have {
			if n == iteration {
				found = n
			}
		}
		if found == 0 {
			return "", 0, Errorf(contract.ExitFailed, "loop %s has no cast of iteration %d (casts of iterations %s)", l.Name, iteration, Ranges(have))
		}
	}
	return filepath.Join(dir, cast.FileName(found)), found, nil
}

// Ranges writes sorted numbers as runs: 1-3, 7, 9-10.
func Ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		part := strconv.Itoa(ns[i])
		if j > i {
			part = fmt.Sprintf("%d-%d", ns[i], ns[j])
		}
		parts = append(parts, part)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
