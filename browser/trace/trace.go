// Package trace records a browser context's session as a Playwright trace:
// the trace.zip that Playwright's own trace viewer (`npx playwright
// show-trace`, trace.playwright.dev, or the viewer shipped in npm's
// playwright-core under lib/vite/traceViewer) opens. A trace holds the
// actions a script ran, with DOM snapshots before and after each, the
// pages' console messages and network requests, screenshots, and the
// script's source files.
//
// The format is Playwright's trace format, version FormatVersion: one JSON
// event per line in <name>.trace (actions, snapshots, console) and
// <name>.network (resource snapshots, HAR-shaped), and blobs named by the
// SHA-1 of their content under resources/. The recorder is written for
// wright from the format's description; it shares no code with Playwright.
package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// FormatVersion is the trace format version written. Playwright's viewer
// refuses a trace newer than it knows and modernizes older ones: 1.62
// reads up to 8, 1.63 up to 9 (its 8-to-9 step only renames a marker of API
// requests, which wright's traces do not carry). 8 is the newest both read.
const FormatVersion = 8

// Options are what tracing.start was given and what the context-options
// event says about the browser.
type Options struct {
	Snapshots   bool // DOM snapshots before and after each action
	Screenshots bool // a screenshot after each action (the viewer's film strip)
	BrowserName string
	Platform    string
	SDKLanguage string // "python", "javascript"...
	Viewport    *Size
}

// Size is a viewport's size in CSS pixels.
type Size struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// StackFrame is one frame of the script's stack when it called an action.
type StackFrame struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Function string `json:"function,omitempty"`
}

// ErrNoChunk: stop_chunk without a chunk, worded as Playwright words it.
var ErrNoChunk = errors.New("must start tracing before stopping")

// Recorder collects one context's trace. Its methods are safe for
// concurrent use: the driver's client calls and the browser's events (console,
// network) reach it from different goroutines.
type Recorder struct {
	mu     sync.Mutex
	opts   Options
	origin time.Time // monotonic times are milliseconds since it
	name   string    // the tracing's name; chunks after the first are name-N
	chunks int
	chunk  *chunk // nil between chunks
	// inflight are the requests seen and not finished yet (network.go).
	inflight map[string]*pending
}

// chunk is what one start_chunk..stop_chunk collects.
type chunk struct {
	name      string
	title     string
	trace     [][]byte          // one JSON event per element
	network   [][]byte          // resource snapshots
	resources map[string][]byte // sha1 -> blob
	groups    []string          // call ids of the open groups, innermost last
	seq       int
}

// New returns a recorder for a tracing named name ("" names it "trace").
func New(name string, opts Options) *Recorder {
	if name == "" {
		name = "trace"
	}
	return &Recorder{opts: opts, origin: time.Now(), name: name}
}

// Options returns what the recorder records.
func (r *Recorder) Options() Options {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opts
}

// now is the monotonic time in milliseconds, as the trace's timestamps are.
func (r *Recorder) now() float64 {
	return float64(time.Since(r.origin).Microseconds()) / 1000
}

// StartChunk starts collecting; name and title default to the tracing's.
// A chunk still being collected is discarded, as Playwright does. It
// returns the chunk's name (the stem of its .trace and .network files).
func (r *Recorder) StartChunk(name, title string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight = nil
	if name == "" {
		name = r.name
		if r.chunks > 0 {
			name = fmt.Sprintf("%s-%d", r.name, r.chunks)
		}
	}
	r.chunks++
	r.chunk = &chunk{name: name, title: title, resources: map[string][]byte{}}
	r.appendLocked(false, contextOptions{
		Version: FormatVersion, Type: "context-options", Origin: "library",
		BrowserName: r.opts.BrowserName, Platform: r.opts.Platform, WallTime: wallMillis(time.Now()),
		MonotonicTime: r.now(), Title: title, SDKLanguage: r.opts.SDKLanguage,
		Options: contextOptionsBody{Viewport: r.opts.Viewport},
	})
	return name, nil
}

// Recording says whether a chunk is being collected.
func (r *Recorder) Recording() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.chunk != nil
}

// StopChunk ends the chunk and returns what it collected.
func (r *Recorder) StopChunk() (*Archive, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.chunk
	if c == nil {
		return nil, ErrNoChunk
	}
	r.chunk = nil
	// Groups left open end with the chunk, so the viewer does not show them
	// running forever.
	for i := len(c.groups) - 1; i >= 0; i-- {
		c.trace = append(c.trace, mustJSON(afterEvent{Type: "after", CallID: c.groups[i], EndTime: r.now()}))
	}
	return &Archive{Name: c.name, Trace: c.trace, Network: c.network, Resources: c.resources}, nil
}

// appendLocked adds one event to the chunk's trace (or, with network, its
// network file); without a chunk it is dropped. r.mu is held.
func (r *Recorder) appendLocked(network bool, ev any) {
	if r.chunk == nil {
		return
	}
	line := mustJSON(ev)
	if line == nil {
		return
	}
	if network {
		r.chunk.network = append(r.chunk.network, line)
	} else {
		r.chunk.trace = append(r.chunk.trace, line)
	}
}

// addResourceLocked stores a blob and returns its name (its SHA-1).
func (r *Recorder) addResourceLocked(data []byte) string {
	name := sha1Hex(data)
	if r.chunk != nil {
		r.chunk.resources[name] = data
	}
	return name
}

// mustJSON encodes an event; one that cannot be encoded (a client's params
// that are not JSON) is left out of the trace rather than breaking it.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func wallMillis(t time.Time) float64 { return float64(t.UnixMicro()) / 1000 }
