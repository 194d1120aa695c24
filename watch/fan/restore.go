package fan

import (
	"path/filepath"

	"github.com/ralph-tmux/ralph.tmux/watch/state"
)

// LogPath is the fan's log: what its runner and its queue said.
func LogPath(dir string) string { return filepath.Join(dir, "fan.log") }

// Running reports whether the fan's process holds the fan's folder.
func Running(dir string) bool { return (&state.Store{Dir: dir}).Locked() }

// Restorable reports whether restore brings the fan back: it neither ended
// nor was stopped by the person, its process is gone, and its record says
// how to start it again.
func (s *State) Restorable(dir string) bool {
	return !s.Ended && !s.Stopped && len(s.Args) > 0 && s.Socket != "" && !Running(dir)
}

// Loops are the loops of the fans under root that have not ended: their
// fan takes them up, restore leaves them to it.
func Loops(root string) map[string]bool {
	loops := map[string]bool{}
	names, _ := Names(root)
	for _, name := range names {
		s, err := Load(Dir(root, name))
		if err != nil || s.Ended {
			continue
		}
		for _, t := range s.Tasks {
			if t.Loop != "" {
				loops[t.Loop] = true
			}
		}
	}
	return loops
}
