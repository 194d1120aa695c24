package judge

import (
	"encoding/json"
	"fmt"
	"io/fs"
)

// kept is a session's start as the loop's folder keeps it: the commit the
// loop began at and the protected files' bytes then, so that a resumed
// loop judges the work since its first start and puts back the person's
// bytes, not what stood there when it resumed.
type kept struct {
	Base     string              `json:"base"`
	Patterns []string            `json:"patterns"`
	Files    map[string]keptFile `json:"files"`
}

type keptFile struct {
	Data []byte      `json:"data,omitempty"`
	Mode fs.FileMode `json:"mode"`
	Link string      `json:"link,omitempty"`
}

// Kept is the session's start, to be written where a resumed loop reads it.
func (s *Session) Kept() ([]byte, error) {
	k := kept{Base: s.Base, Patterns: s.Snapshot.Patterns, Files: map[string]keptFile{}}
	for rel, f := range s.Snapshot.Files {
		k.Files[rel] = keptFile(f)
	}
	return json.Marshal(k)
}

// Resumed is goal mode in a resumed run of the loop in dir: its base and
// snapshot as Kept wrote them at the loop's first start.
func Resumed(set Settings, dir string, data []byte) (*Session, error) {
	var k kept
	if err := json.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("read the protected files' snapshot: %w", err)
	}
	snap := Snapshot{Dir: dir, Patterns: k.Patterns, Files: map[string]File{}}
	for rel, f := range k.Files {
		snap.Files[rel] = File(f)
	}
	return &Session{Settings: set, Base: k.Base, Snapshot: snap}, nil
}
