package cast

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// FileName is the name of an iteration's cast in the casts folder.
func FileName(iteration int) string {
	return strconv.Itoa(iteration) + ".cast"
}

// Prune keeps the casts in dir under limit bytes in all by removing the
// oldest iterations first; the newest cast is always kept, however large.
// Files not named <iteration>.cast are neither counted nor touched.
func Prune(dir string, limit int64) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("prune casts: %v", err)
	}
	type cast struct {
		iteration int
		path      string
		size      int64
	}
	var casts []cast
	var total int64
	for _, e := range entries {
		n, ok := iterationOf(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		casts = append(casts, cast{n, filepath.Join(dir, e.Name()), info.Size()})
		total += info.Size()
	}
	sort.Slice(casts, func(i, j int) bool { return casts[i].iteration < casts[j].iteration })
	for i := 0; i < len(casts)-1 && total > limit; i++ {
		if err := os.Remove(casts[i].path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("prune casts: %v", err)
		}
		total -= casts[i].size
	}
	return nil
}

// iterationOf reads the iteration from a cast's file name.
func iterationOf(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, ".cast")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
