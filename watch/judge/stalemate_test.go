package judge

import (
	"reflect"
	"testing"
)

func TestStalemateIsNVerdictsTheSameOnUnchangedWork(t *testing.T) {
	not := func(work string, missing ...string) Judged {
		return Judged{Verdict: Verdict{Missing: missing}, Work: work}
	}
	tests := []struct {
		name     string
		history  []Judged
		patience int
		want     bool
	}{
		{"two the same, patience 2: at the second", []Judged{not("w", "docs"), not("w", "docs")}, 2, true},
		{"one, patience 2", []Judged{not("w", "docs")}, 2, false},
		{"two the same, patience 3", []Judged{not("w", "docs"), not("w", "docs")}, 3, false},
		{"three the same, patience 3", []Judged{not("w", "a"), not("w", "a"), not("w", "a")}, 3, true},
		{"case and spaces aside, any order", []Judged{not("w", "The README", "tests"), not("w", "tests", "the  readme")}, 2, true},
		{"other missing items", []Judged{not("w", "docs"), not("w", "tests")}, 2, false},
		{"the work changed", []Judged{not("w1", "docs"), not("w2", "docs")}, 2, false},
		{"the work unknown", []Judged{not("", "docs"), not("", "docs")}, 2, false},
		{"a met verdict between", []Judged{not("w", "a"), {Verdict: Verdict{Met: true}, Work: "w"}, not("w", "a")}, 2, false},
		{"only the last ones count", []Judged{not("v", "b"), not("w", "a"), not("w", "a")}, 2, true},
		{"the same failure with nothing named", []Judged{{Verdict: Verdict{Reason: "timeout"}, Work: "w"}, {Verdict: Verdict{Reason: "timeout"}, Work: "w"}}, 2, true},
		{"patience 0 is never", []Judged{not("w", "a"), not("w", "a")}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, got := Stalemate(tc.history, tc.patience); got != tc.want {
				t.Errorf("Stalemate = %v, want %v", got, tc.want)
			}
		})
	}
	missing, _ := Stalemate([]Judged{not("w", "docs", "tests"), not("w", "Docs", "tests")}, 2)
	if want := []string{"docs", "tests"}; !reflect.DeepEqual(missing, want) {
		t.Errorf("what stayed missing: %q, want %q", missing, want)
	}
}
