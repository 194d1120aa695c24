package config

import (
	"strings"
	"testing"
)

func TestSizesTakeBytesOrAUnit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"1048576", 1 << 20}, {"20MB", 20 << 20}, {"500KB", 500 << 10}, {"500kb", 500 << 10},
		{"2G", 2 << 30}, {"64KiB", 64 << 10}, {" 12 MB ", 12 << 20}, {"100B", 100},
	} {
		if got, err := parseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "MB", "lots", "-5MB", "1.5MB", "0", "0KB", "9999999999GB"} {
		if n, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", bad, n)
		}
	}
	for n, want := range map[int64]string{20 << 20: "20MB", 500 << 10: "500KB", 1500: "1500", 3 << 30: "3GB"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, back, err)
		}
	}
	if _, err := parseSize("lots"); !strings.Contains(err.Error(), "20MB, 500KB") {
		t.Errorf("the error does not say what to write: %v", err)
	}
}
