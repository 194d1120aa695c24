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

// Iterations lists the iterations that have a cast in dir, oldest first;
// none when dir does not exist. Files not named <iteration>.cast are not casts.
func Iterations(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list casts: %v", err)
	}
	var iterations []int
	for _, e := range entries {
		if n, ok := iterationOf(e.Name()); ok && e.Type().IsRegular() {
			iterations = append(iterations, n)
		}
	}
	sort.Ints(iterations)
	return iterations, nil
}

// Prune keeps the casts in dir under limit bytes in all by removing the
// oldest iterations first; the newest cast is always kept, however large.
// Files that are not casts are neither counted nor touched.
func Prune(dir string, limit int64) error {
	iterations, err := Iterations(dir)
	if err != nil {
		return fmt.Errorf("prune casts: %v", err)
	}
	sizes := make([]int64, len(iterations))
	var total int64
	for i, n := range iterations {
		if info, err := os.Stat(filepath.Join(dir, FileName(n))); err == nil {
			sizes[i] = info.Size()
			total += info.Size()
		}
	}
	for i := 0; i < len(iterations)-1 && total > limit; i++ {
		err := os.Remove(filepath.Join(dir, FileName(iterations[i])))
		if err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("prune casts: %v", err)
		}
		total -= sizes[i]
	}
	return nil
}

// iterationOf reads the iteration from a cast's file name, which FileName
// wrote: digits without a leading zero.
func iterationOf(name string) (int, bool) {
	digits, ok := strings.CutSuffix(name, ".cast")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || (len(digits) > 1 && digits[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}
