package state

import (
	"os"
	"path/filepath"
)

// WriteFile writes a file of the loop's folder (hook records and the like)
// atomically, as the state file is written.
func (s *Store) WriteFile(name string, data []byte) error {
	return writeAtomic(s.Path(name), "."+name+".*", data)
}

// writeAtomic writes path by a temp file in its folder (named by pattern, as
// os.CreateTemp takes it), fsync and rename, 0600, so a reader never sees
// half a file and a failed write leaves the old one.
func writeAtomic(path, pattern string, data []byte) error {
	return writeWhole(path, pattern, data, true)
}

// writeWhole writes path by a temp file and rename, with an fsync first
// when sync: a copy whose loss a crash cannot make matter needs none.
func writeWhole(path, pattern string, data []byte, sync bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
