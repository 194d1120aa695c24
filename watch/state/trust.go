package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// TrustFile names the list of trusted config files in the state folder.
const TrustFile = "trust.json"

// Trusted is one config file this user allowed to run commands: its path
// (absolute, symlinks resolved) and the SHA-256 of the bytes they read.
type Trusted struct {
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Trusted string `json:"trusted"` // when, as Stamp writes it
}

// Sum is the hex SHA-256 of a config file's bytes.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// TrustList reads the trusted files under root, sorted by path; none when
// nothing was ever trusted.
func TrustList(root string) ([]Trusted, error) {
	data, err := os.ReadFile(filepath.Join(root, TrustFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read trusted files: %w", err)
	}
	var list []Trusted
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("corrupt trust file %s: %v", filepath.Join(root, TrustFile), err)
	}
	return list, nil
}

// IsTrusted reports whether path was trusted with exactly the bytes whose sum is given.
func IsTrusted(root, path, sum string) (bool, error) {
	trusted, err := TrustedSum(root, path)
	return trusted != "" && trusted == sum, err
}

// TrustedSum is the sum path was trusted with, "" if it is not trusted.
func TrustedSum(root, path string) (string, error) {
	list, err := TrustList(root)
	for _, t := range list {
		if t.Path == path {
			return t.SHA256, err
		}
	}
	return "", err
}

// Trust records path with its sum, replacing what was recorded for it.
func Trust(root, path, sum string, now time.Time) error {
	return editTrust(root, func(list []Trusted) []Trusted {
		list = without(list, path)
		return append(list, Trusted{Path: path, SHA256: sum, Trusted: Stamp(now)})
	})
}

// Revoke forgets path; it reports whether it was trusted.
func Revoke(root, path string) (bool, error) {
	found := false
	err := editTrust(root, func(list []Trusted) []Trusted {
		kept := without(list, path)
		found = len(kept) < len(list)
		return kept
	})
	return found, err
}

func without(list []Trusted, path string) []Trusted {
	var kept []Trusted
	for _, t := range list {
		if t.Path != path {
			kept = append(kept, t)
		}
	}
	return kept
}

// editTrust changes the list under a lock, so two trust commands at once
// both count; the folder is 0700 and the file 0600, the user's alone.
func editTrust(root string, change func([]Trusted) []Trusted) error {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return fmt.Errorf("create state folder: %w", err)
	}
	if err := os.Chmod(root, 0o700); err != nil {
		return fmt.Errorf("create state folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(root, "."+TrustFile+".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock trusted files: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock trusted files: %w", err)
	}
	list, err := TrustList(root)
	if err != nil {
		return err
	}
	list = change(list)
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	if list == nil {
		list = []Trusted{}
	}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(root, TrustFile), ".trust-*.json", append(data, '\n')); err != nil {
		return fmt.Errorf("write trusted files: %w", err)
	}
	return nil
}

// Sources of a command value, as status shows them.
const (
	FromFlag   = "flag"
	FromEnv    = "environment"
	FromConfig = "config file"
)

// CommandSource says where a command the loop runs came from.
type CommandSource struct {
	Key     string `json:"key"`            // the flag: check, on-done, …
	Command string `json:"command"`        // what runs, with sh -c
	From    string `json:"from"`           // FromFlag, FromEnv or FromConfig
	File    string `json:"file,omitempty"` // the config file, when from one
}
