package agent

import (
	"testing"
	"time"
)

func TestParseResetReadsTheFormsAgentsPrint(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	now := time.Date(2026, 11, 22, 14, 30, 0, 0, berlin) // a Sunday afternoon in Berlin
	ny, _ := time.LoadLocation("America/New_York")
	tests := []struct {
		text string
		want time.Time
	}{
		{"Claude AI usage limit reached|1795370400", time.Unix(1795370400, 0)},
		{"You've hit your limit · resets 8pm (Europe/Berlin)", time.Date(2026, 11, 22, 20, 0, 0, 0, berlin)},
		{"5-hour limit reached ∙ resets 3pm", time.Date(2026, 11, 22, 15, 0, 0, 0, berlin)},
		{"You've hit your limit · resets 2pm", time.Date(2026, 11, 23, 14, 0, 0, 0, berlin)}, // past today: tomorrow
		{"Your limit will reset at 3:45pm (America/New_York)", time.Date(2026, 11, 22, 15, 45, 0, 0, ny)},
		{"■ You've hit your usage limit. Upgrade to Pro or try again in 4 days 20 hours 9 minutes.", now.Add(4*24*time.Hour + 20*time.Hour + 9*time.Minute)},
		{"You've hit your usage limit. Try again in 1h 12m.", now.Add(72 * time.Minute)},
		{"You've hit your usage limit. Try again at Nov 23rd, 2026 8:05 PM.", time.Date(2026, 11, 23, 20, 5, 0, 0, berlin)},
		{"weekly limit reached · resets Nov 27, 5pm (Europe/Berlin)", time.Date(2026, 11, 27, 17, 0, 0, 0, berlin)},
		{"usage limit reached · resets 20:00", time.Date(2026, 11, 22, 20, 0, 0, 0, berlin)},
		{"Opus limit reached, resets at 9 am", time.Date(2026, 11, 23, 9, 0, 0, 0, berlin)},
	}
	for _, tt := range tests {
		got, ok := ParseReset(tt.text, now)
		if !ok || !got.Equal(tt.want) {
			t.Errorf("ParseReset(%q) = %v, %v; want %v", tt.text, got, ok, tt.want)
		}
	}
}

func TestParseResetFindsNoTimeWhereNoneIsWritten(t *testing.T) {
	now := time.Date(2026, 11, 22, 14, 30, 0, 0, time.UTC)
	for _, text := range []string{
		"Claude usage limit reached.",
		"Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'",
		"resets 42",            // a bare number is no time
		"resets 13pm",          // no such hour
		"try again in a while", // no figure
		"",
	} {
		if got, ok := ParseReset(text, now); ok {
			t.Errorf("ParseReset(%q) = %v, want no time", text, got)
		}
	}
}

func FuzzParseReset(f *testing.F) {
	for _, s := range []string{"resets 8pm (Europe/Berlin)", "limit|1795370400", "try again in 3 days 2h", "try again at Dec 31st, 11:59 PM"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 22, 14, 30, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := ParseReset(text, now)
		if ok && got.IsZero() {
			t.Fatalf("ParseReset(%q) said ok with a zero time", text)
		}
	})
}
