package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeFlag accepts a size in bytes, KB, MB or GB (powers of 1024): 20MB,
// 500KB, 1048576.
type sizeFlag struct{ n *int64 }

// sizeUnits are the suffixes a size may carry, longest first.
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

func (f sizeFlag) String() string {
	if f.n == nil {
		return ""
	}
	return formatSize(*f.n)
}

func (f sizeFlag) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*f.n = n
	return nil
}

// parseSize reads a positive size: digits, then an optional unit.
func parseSize(s string) (int64, error) {
	text := strings.ToLower(strings.TrimSpace(s))
	unit := int64(1)
	for _, u := range sizeUnits {
		if digits, ok := strings.CutSuffix(text, u.suffix); ok {
			text, unit = strings.TrimSpace(digits), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q (use 20MB, 500KB or a number of bytes)", s)
	}
	if n == 0 {
		return 0, errors.New("size must be more than 0")
	}
	if n > math.MaxInt64/unit {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * unit, nil
}

// formatSize writes n in the largest unit that divides it.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		bytes  int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n > 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
