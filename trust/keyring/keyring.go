// Package keyring keeps credentials out of wright's environment block.
//
// What a process was exec'd with stays readable in /proc/<pid>/environ for
// as long as it runs, whatever it later unsets: a model's shell read
// wright's key from /proc/$PPID/environ. So wright re-executes itself
// without the credential variables, handing their values to the new image
// through a pipe, and serves them from memory (Getenv) from then on.
package keyring

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// fdEnv names the descriptor the values arrive on after a re-exec.
const fdEnv = "WRIGHT_KEYRING_FD"

var (
	mu    sync.RWMutex
	stash = map[string]string{}
)

// Getenv returns a credential from the keyring, or else from the
// environment.
func Getenv(name string) string {
	mu.RLock()
	v, ok := stash[name]
	mu.RUnlock()
	if ok {
		return v
	}
	return os.Getenv(name)
}

// Set puts a value in the keyring (tests, and values read from elsewhere).
func Set(name, value string) {
	mu.Lock()
	defer mu.Unlock()
	stash[name] = value
}

// Names lists the variables held in the keyring.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(stash))
	for n := range stash {
		out = append(out, n)
	}
	return out
}

// credentialName matches variable names that hold API keys by convention.
// credentialName matches API keys, and OpenTelemetry's exporter headers,
// which carry a trace backend's credentials (Langfuse's Basic auth).
var credentialName = regexp.MustCompile(`(?i)((^|_)API_?KEY$|^OTEL_EXPORTER_OTLP_([A-Z]+_)?HEADERS$)`)

// Credentials are the names in environ that look like API keys or carry
// credentials in headers.
func Credentials(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if credentialName.MatchString(name) {
			out = append(out, name)
		}
	}
	return out
}

// Init reads the values a previous image handed over, if any. Call it
// first thing in main.
func Init() error {
	fdStr, ok := os.LookupEnv(fdEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(fdEnv)
	fd, err := strconv.Atoi(fdStr)
	if err != nil {
		return fmt.Errorf("keyring: bad %s=%q", fdEnv, fdStr)
	}
	f := os.NewFile(uintptr(fd), "keyring")
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return fmt.Errorf("keyring: read: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, rec := range strings.Split(string(data), "\x00") {
		if name, val, ok := strings.Cut(rec, "="); ok && name != "" {
			stash[name] = val
		}
	}
	return nil
}

// Drop makes sure none of names is in this process's environment block:
// when one is, the process re-executes itself (same binary, arguments and
// working directory) without them, and with the keyring handed over, and
// does not return. It returns nil when there was nothing to drop, and an
// error when the re-exec was impossible (the caller goes on, unsetting the
// variables, which hides them from children but not from /proc).
func Drop(names []string) error {
	moved := map[string]string{}
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			moved[n] = v
		}
	}
	if len(moved) == 0 {
		return nil
	}
	mu.Lock()
	for n, v := range moved {
		stash[n] = v
	}
	var payload strings.Builder
	for n, v := range stash {
		payload.WriteString(n + "=" + v + "\x00")
	}
	mu.Unlock()
	for n := range moved {
		os.Unsetenv(n)
	}
	return reexec(payload.String())
}

// reexec hands payload over through a pipe and execs this binary again.
func reexec(payload string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("keyring: %w", err)
	}
	if len(payload) > 60<<10 {
		return fmt.Errorf("keyring: %d bytes of credentials do not fit a pipe's buffer", len(payload))
	}
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		return fmt.Errorf("keyring: pipe: %w", err)
	}
	// The whole payload fits the pipe's buffer, so it is written before
	// the exec and read after it; the write end is closed so the reader
	// sees EOF.
	if _, err := syscall.Write(p[1], []byte(payload)); err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return fmt.Errorf("keyring: write: %w", err)
	}
	syscall.Close(p[1])
	// The read end must survive the exec (Go opens it close-on-exec).
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(p[0]), syscall.F_SETFD, 0); errno != 0 {
		syscall.Close(p[0])
		return fmt.Errorf("keyring: fcntl: %w", errno)
	}
	env := append(os.Environ(), fdEnv+"="+strconv.Itoa(p[0]))
	err = syscall.Exec(exe, os.Args, env)
	syscall.Close(p[0])
	return fmt.Errorf("keyring: re-exec: %w", err)
}
