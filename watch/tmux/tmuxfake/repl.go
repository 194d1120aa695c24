package tmuxfake

// REPL is a program like an interactive agent: it draws prompt, echoes
// what is pasted or typed, and on Enter hands the input line to answer
// (which writes the reply, and may Exit), then draws prompt again on a new
// line unless it exited. Keys other than Enter and text are ignored.
func REPL(prompt string, answer func(t *Term, input string)) *Program {
	var input string
	return &Program{
		Start: func(t *Term) { t.Write(prompt) },
		Paste: func(t *Term, text string) {
			input += text
			t.Write(text)
		},
		Key: func(t *Term, key string) {
			switch {
			case key == "Enter":
				line := input
				input = ""
				t.Write("\n")
				if answer != nil {
					answer(t, line)
				}
				if !t.Dead() {
					t.Write("\n" + prompt)
				}
			case len(key) == 1 || len(key) > 1 && !isKeyName(key):
				input += key
				t.Write(key)
			}
		},
	}
}

// isKeyName tells a tmux key name (C-u, Escape, BSpace) from text.
func isKeyName(key string) bool {
	if len(key) > 2 && key[1] == '-' && (key[0] == 'C' || key[0] == 'M' || key[0] == 'S') {
		return true
	}
	switch key {
	case "Escape", "BSpace", "Tab", "Up", "Down", "Left", "Right", "Space":
		return true
	}
	return false
}
