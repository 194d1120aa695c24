// Package tmux is the small tmux client ralph-watch needs: one method per
// tmux operation, run by exec against one server.
package tmux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Client is every tmux operation the loop uses.
type Client interface {
	// Version returns the server's tmux version, e.g. "3.3a".
	Version() (string, error)
	// Pane describes a pane; ErrNoPane if it does not exist.
	Pane(target string) (Pane, error)
	// NewWindow creates a detached window (and the session if needed) and returns its pane id.
	NewWindow(req NewWindowRequest) (string, error)
	// Respawn restarts the pane with a new command, killing what runs there,
	// and returns the new process's id (0 where it has none, as a fake).
	Respawn(req RespawnRequest) (pid int, err error)
	// Capture returns the pane's text from start (negative: history lines) to the end of the screen.
	Capture(req CaptureRequest) (string, error)
	// Snapshot is Pane and Capture in one round trip, for the loop's polls.
	Snapshot(req CaptureRequest) (Pane, string, error)
	// Paste delivers text into the pane as a bracketed paste, byte for byte.
	// Like every write into a pane it is refused inside tmux, in the same
	// command, when the pane is dead (ErrPaneDead): see IfAlive.
	Paste(pane, buffer string, text []byte) error
	// SendKeys sends key names (Enter, C-u) to the pane; ErrPaneDead as Paste.
	SendKeys(pane string, keys ...string) error
	// SetPaneOptions sets pane options (user options start with @); an empty value unsets.
	SetPaneOptions(pane string, options []Option) error
	// PaneOption reads a pane's own option; ok is false when it is not set on the pane.
	PaneOption(pane, name string) (value string, ok bool, err error)
	// PipePane sends the pane's output to a shell command; "" closes the pipe.
	PipePane(pane, command string) error
	// Nudge makes the server reap children, bringing back a lost exit status.
	Nudge() error
	// SocketPath is the server's socket, by which any client can reach it again.
	SocketPath() (string, error)
	// Message shows text on every client attached to the pane's session.
	Message(pane, text string) error
	// GlobalOption reads a global (server or session) option; "" when unset.
	GlobalOption(name string) (string, error)
	// Later has the server run a tmux command after d, in the background.
	Later(d time.Duration, command string) error
}

// Cursor is a pane's cursor: its cell on the visible screen, and whether
// the program shows it (many TUIs hide it and draw their own).
type Cursor struct {
	X, Y    int
	Visible bool
}

// ErrNoPane is returned when a target names no pane.
var ErrNoPane = errors.New("no such pane")

// Pane is what the loop needs to know about a pane.
type Pane struct {
	ID         string // %N
	PID        int
	Dead       bool
	DeadStatus string // exit status of a dead pane, "" while unknown
	DeadSignal string
	Path       string // current directory
	Session    string
	Window     string // window index
	Width      int    // columns, 0 when unknown
	Height     int    // rows, 0 when unknown
	ServerPID  int    // the tmux server's pid: a restarted server reuses pane ids, not pids; 0 when unknown
	// HistorySize is how many lines have scrolled into the history: with
	// the cursor's row, the cursor's line in the pane.
	HistorySize int
	Cursor      Cursor
}

// Option is one pane option.
type Option struct{ Name, Value string }

// NewWindowRequest is a detached window to create.
type NewWindowRequest struct {
	Session, Name, Dir string
}

// RespawnRequest restarts a pane.
type RespawnRequest struct {
	Pane         string
	Dir          string
	Env          []string // NAME=value
	Command      []string // run without a shell when it has more than one word
	ClearHistory bool
	// Path is the command's PATH. tmux gives a new pane the PATH of the
	// client that asks (not -e's), so it is the tmux command's own.
	Path string
}

// CaptureRequest selects what to capture.
type CaptureRequest struct {
	Pane  string
	Start int  // 0: the visible screen; -N: N history lines too
	Join  bool // join wrapped lines, so the width does not matter
}

// Exec runs tmux commands by exec against one server.
type Exec struct {
	Binary string   // tmux binary; "tmux" if empty
	Server []string // -L NAME or -S PATH, or none for the default
}

// GlobalEnv is the server's global environment, which a new pane's
// process starts with: NAME=value lines (a "-NAME" line, removed, is left out).
func (c *Exec) GlobalEnv() (map[string]string, error) {
	out, err := c.command(nil, "show-environment", "-g")
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if name, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(name, "-") {
			env[name] = value
		}
	}
	return env, nil
}

func (c *Exec) command(stdin []byte, args ...string) (string, error) {
	return c.commandPath("", stdin, args...)
}

// commandPath is command with PATH set to path ("": this program's own).
func (c *Exec) commandPath(path string, stdin []byte, args ...string) (string, error) {
	bin := c.Binary
	if bin == "" {
		bin = "tmux"
	}
	cmd := exec.Command(bin, append(append([]string(nil), c.Server...), args...)...)
	if path != "" {
		if resolved, err := exec.LookPath(bin); err == nil {
			cmd.Path = resolved // tmux is found by this program's PATH, the agent by path
		}
		cmd.Env = append(os.Environ(), "PATH="+path)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), &Error{Args: args, Msg: msg}
	}
	return stdout.String(), nil
}

// Error is a failed tmux command with what tmux said.
type Error struct {
	Args []string
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("tmux %s: %s", e.Args[0], e.Msg) }

// NoServer reports whether err says no tmux server is running.
func NoServer(err error) bool {
	var te *Error
	return errors.As(err, &te) && (strings.Contains(te.Msg, "no server running") ||
		strings.Contains(te.Msg, "error connecting to") || strings.Contains(te.Msg, "server exited"))
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)`)

// Version implements Client.
func (c *Exec) Version() (string, error) {
	out, err := c.command(nil, "-V")
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(strings.TrimSpace(out), "tmux "), nil
}

// AtLeast reports whether a tmux version string is at least major.minor;
// unparsable versions (master, next-*) pass.
func AtLeast(version string, major, minor int) bool {
	m := versionRE.FindStringSubmatch(version)
	if m == nil {
		return true
	}
	maj, _ := strconv.Atoi(m[1])
	mnr, _ := strconv.Atoi(m[2])
	return maj > major || maj == major && mnr >= minor
}

const paneFormat = "#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{session_name}\t#{window_index}\t#{pane_width}\t#{pane_height}\t#{pid}\t#{history_size}\t#{cursor_x}\t#{cursor_y}\t#{cursor_flag}\t#{pane_current_path}"

// Pane implements Client.
func (c *Exec) Pane(target string) (Pane, error) {
	if match, ok := exactTarget(target); ok {
		return c.listedPane(match, target)
	}
	// display-message falls back to the current pane for a target it cannot
	// find (main:99 is %0); capture-pane does not, so it checks the target.
	out, err := c.command(nil, "display-message", "-p", "-t", target, paneFormat, ";",
		"capture-pane", "-p", "-t", target, "-S", "0", "-E", "0")
	if err != nil {
		return Pane{}, paneError(err, target)
	}
	info, _, _ := strings.Cut(out, "\n")
	return parsePane(info, target)
}

// listedPane is the pane for which the format match is true, found in
// list-panes, which does not fail when there is none: tmux keeps every
// failed command's error in its messages (show-messages), where asking for
// panes that went with the last server (restore, list) left a line each.
func (c *Exec) listedPane(match, target string) (Pane, error) {
	out, err := c.command(nil, "list-panes", "-a", "-F", match+"\t"+paneFormat)
	if err != nil {
		return Pane{}, paneError(err, target)
	}
	for _, line := range strings.Split(out, "\n") {
		if info, ok := strings.CutPrefix(line, "1\t"); ok {
			return parsePane(info, target)
		}
	}
	return Pane{}, fmt.Errorf("%w: %s", ErrNoPane, target)
}

// exactTarget is a format true only for the pane target names, when it is
// a pane id (%N) or a window named exactly (=SESSION:=WINDOW, its active
// pane) in plain words; ok is false for any other target.
func exactTarget(target string) (match string, ok bool) {
	if id, found := strings.CutPrefix(target, "%"); found && id != "" && strings.Trim(id, "0123456789") == "" {
		return "#{==:#{pane_id}," + target + "}", true
	}
	session, window, found := strings.Cut(target, ":=")
	if session, ok = strings.CutPrefix(session, "="); ok && found && plainWord(session) && plainWord(window) {
		return "#{&&:#{pane_active},#{&&:#{==:#{session_name}," + session + "},#{==:#{window_name}," + window + "}}}", true
	}
	return "", false
}

// plainWord reports whether s is a name a format may hold as it is.
func plainWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}

// Snapshot implements Client.
func (c *Exec) Snapshot(req CaptureRequest) (Pane, string, error) {
	args := append([]string{"display-message", "-p", "-t", req.Pane, paneFormat, ";"}, captureArgs(req)...)
	out, err := c.command(nil, args...)
	if err != nil {
		return Pane{}, "", paneError(err, req.Pane)
	}
	info, screen, _ := strings.Cut(out, "\n")
	pane, err := parsePane(info, req.Pane)
	return pane, screen, err
}

func paneError(err error, target string) error {
	var te *Error
	if errors.As(err, &te) && (strings.Contains(te.Msg, "can't find") || strings.Contains(te.Msg, "no such")) {
		return fmt.Errorf("%w: %s", ErrNoPane, target)
	}
	return err
}

func parsePane(line, target string) (Pane, error) {
	// display exits 0 with empty fields for a pane that does not exist.
	f := strings.SplitN(line, "\t", 15)
	if len(f) < 15 || f[0] == "" {
		return Pane{}, fmt.Errorf("%w: %s", ErrNoPane, target)
	}
	pid, _ := strconv.Atoi(f[1])
	width, _ := strconv.Atoi(f[7])
	height, _ := strconv.Atoi(f[8])
	server, _ := strconv.Atoi(f[9])
	history, _ := strconv.Atoi(f[10])
	cursorX, _ := strconv.Atoi(f[11])
	cursorY, _ := strconv.Atoi(f[12])
	return Pane{ID: f[0], PID: pid, Dead: f[2] == "1", DeadStatus: f[3], DeadSignal: f[4],
		Session: f[5], Window: f[6], Width: width, Height: height, ServerPID: server,
		HistorySize: history, Cursor: Cursor{X: cursorX, Y: cursorY, Visible: f[13] == "1"}, Path: f[14]}, nil
}

// NewWindow implements Client.
func (c *Exec) NewWindow(req NewWindowRequest) (string, error) {
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", req.Session + ":", "-n", req.Name}
	// list-sessions, not has-session, which leaves an error in show-messages.
	if out, err := c.command(nil, "list-sessions", "-F", "#{session_name}"); err != nil || !slices.Contains(strings.Split(out, "\n"), req.Session) {
		args = []string{"new-session", "-d", "-P", "-F", "#{pane_id}", "-s", req.Session, "-n", req.Name}
	}
	if req.Dir != "" {
		args = append(args, "-c", dirArg(req.Dir))
	}
	out, err := c.command(nil, args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// Respawn implements Client. The command reaches tmux on its stdin
// (source-file -), not in its argv, which any process on the machine can
// read: -e carries the person's keys. The new process's id comes back in
// the same call: a pane closed a moment later cannot hide it.
func (c *Exec) Respawn(req RespawnRequest) (int, error) {
	words := []string{"respawn-pane", "-k", "-t", Quote(req.Pane)}
	if req.Dir != "" {
		words = append(words, "-c", Quote(EscapeFormat(req.Dir)))
	}
	for _, e := range req.Env {
		words = append(words, "-e", Quote(e))
	}
	for _, w := range req.Command {
		words = append(words, Quote(w))
	}
	script := strings.Join(words, " ") + "\n"
	script += "display-message -p -t " + Quote(req.Pane) + " '#{pane_pid}'\n"
	if req.ClearHistory {
		script += "clear-history -t " + Quote(req.Pane) + "\n"
	}
	out, err := c.commandPath(req.Path, []byte(script), "source-file", "-")
	if te := (*Error)(nil); errors.As(err, &te) {
		te.Args = []string{"respawn-pane"}
		return 0, err
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(out))
	return pid, err
}

// Quote makes arg one word of tmux's command language, taken to the letter:
// single quotes stop $, ~, # and ; from meaning anything; a quote is \'.
func Quote(arg string) string {
	return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
}

// Capture implements Client.
func (c *Exec) Capture(req CaptureRequest) (string, error) {
	return c.command(nil, captureArgs(req)...)
}

func captureArgs(req CaptureRequest) []string {
	args := []string{"capture-pane", "-p", "-t", req.Pane}
	if req.Join {
		args = append(args, "-J")
	}
	if req.Start != 0 {
		args = append(args, "-S", strconv.Itoa(req.Start))
	}
	return args
}

// Paste implements Client: load-buffer from stdin, never parsed by tmux or a
// shell, then PasteCommand, refused inside tmux when the pane is dead.
func (c *Exec) Paste(pane, buffer string, text []byte) error {
	if text == nil {
		text = []byte{}
	}
	out, err := c.command(text, append([]string{"load-buffer", "-b", buffer, "-", ";"}, PasteCommand(pane, buffer)...)...)
	return writeError(out, err, pane)
}

// SendKeys implements Client.
func (c *Exec) SendKeys(pane string, keys ...string) error {
	out, err := c.command(nil, SendKeysCommand(pane, keys...)...)
	return writeError(out, err, pane)
}

// writeError is a guarded write's outcome: ErrPaneDead when tmux refused
// it, ErrNoPane when the pane is gone.
func writeError(out string, err error, pane string) error {
	if err != nil {
		return paneError(err, pane)
	}
	if refused(out) {
		return fmt.Errorf("%w: %s", ErrPaneDead, pane)
	}
	return nil
}

// SetPaneOptions implements Client, in one tmux call.
func (c *Exec) SetPaneOptions(pane string, options []Option) error {
	var args []string
	for i, o := range options {
		if i > 0 {
			args = append(args, ";")
		}
		if o.Value == "" {
			args = append(args, "set-option", "-p", "-u", "-t", pane, o.Name)
		} else {
			args = append(args, "set-option", "-p", "-t", pane, o.Name, Escape(o.Value))
		}
	}
	if len(args) == 0 {
		return nil
	}
	_, err := c.command(nil, args...)
	return err
}

// PaneOption implements Client.
func (c *Exec) PaneOption(pane, name string) (string, bool, error) {
	out, err := c.command(nil, "show-options", "-p", "-q", "-v", "-t", pane, name)
	if err != nil {
		return "", false, err
	}
	value := strings.TrimSuffix(out, "\n")
	return value, value != "", nil
}

// PipePane implements Client.
func (c *Exec) PipePane(pane, command string) error {
	args := []string{"pipe-pane", "-t", pane}
	if command != "" {
		args = append(args, "-O", Escape(command))
	}
	_, err := c.command(nil, args...)
	return err
}

// SocketPath implements Client.
func (c *Exec) SocketPath() (string, error) {
	out, err := c.command(nil, "display-message", "-p", "#{socket_path}")
	return strings.TrimSpace(out), err
}

// Nudge implements Client.
func (c *Exec) Nudge() error {
	// -b: the server does not wait for the child, so a lost exit cannot hold this call.
	_, err := c.command(nil, "run-shell", "-b", "true")
	return err
}

// Escape protects an argument from tmux's own parsing of argv, which takes a
// trailing ";" as a command separator.
func Escape(arg string) string {
	if strings.HasSuffix(arg, ";") {
		return arg[:len(arg)-1] + `\;`
	}
	return arg
}
