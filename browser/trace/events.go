package trace

import (
	"encoding/json"
	"fmt"
	"time"
)

// The events of the trace format that wright writes (see the package doc).
// Field names are the format's.

type contextOptions struct {
	Version       int                `json:"version"`
	Type          string             `json:"type"`
	Origin        string             `json:"origin"`
	BrowserName   string             `json:"browserName"`
	Platform      string             `json:"platform"`
	WallTime      float64            `json:"wallTime"`
	MonotonicTime float64            `json:"monotonicTime"`
	Title         string             `json:"title,omitempty"`
	SDKLanguage   string             `json:"sdkLanguage,omitempty"`
	Options       contextOptionsBody `json:"options"`
}

type contextOptionsBody struct {
	Viewport *Size `json:"viewport,omitempty"`
}

type beforeEvent struct {
	Type           string          `json:"type"`
	CallID         string          `json:"callId"`
	StartTime      float64         `json:"startTime"`
	Title          string          `json:"title,omitempty"`
	Class          string          `json:"class"`
	Method         string          `json:"method"`
	Params         json.RawMessage `json:"params"`
	BeforeSnapshot string          `json:"beforeSnapshot,omitempty"`
	Stack          []StackFrame    `json:"stack,omitempty"`
	PageID         string          `json:"pageId,omitempty"`
	ParentID       string          `json:"parentId,omitempty"`
}

type afterEvent struct {
	Type          string      `json:"type"`
	CallID        string      `json:"callId"`
	EndTime       float64     `json:"endTime"`
	AfterSnapshot string      `json:"afterSnapshot,omitempty"`
	Error         *errorValue `json:"error,omitempty"`
}

type errorValue struct {
	Message string `json:"message"`
	Name    string `json:"name"`
}

type logEvent struct {
	Type    string  `json:"type"`
	CallID  string  `json:"callId"`
	Time    float64 `json:"time"`
	Message string  `json:"message"`
}

type consoleEvent struct {
	Type        string          `json:"type"`
	Time        float64         `json:"time"`
	PageID      string          `json:"pageId,omitempty"`
	MessageType string          `json:"messageType"`
	Text        string          `json:"text"`
	Location    consoleLocation `json:"location"`
}

type consoleLocation struct {
	URL          string `json:"url"`
	LineNumber   int    `json:"lineNumber"`
	ColumnNumber int    `json:"columnNumber"`
}

type frameSnapshotEvent struct {
	Type     string        `json:"type"`
	Snapshot frameSnapshot `json:"snapshot"`
}

type frameSnapshot struct {
	SnapshotName      string          `json:"snapshotName"`
	CallID            string          `json:"callId"`
	PageID            string          `json:"pageId"`
	FrameID           string          `json:"frameId"`
	FrameURL          string          `json:"frameUrl"`
	Timestamp         float64         `json:"timestamp"`
	WallTime          float64         `json:"wallTime"`
	CollectionTime    float64         `json:"collectionTime"`
	Doctype           string          `json:"doctype,omitempty"`
	HTML              json.RawMessage `json:"html"`
	ResourceOverrides []struct{}      `json:"resourceOverrides"`
	Viewport          Size            `json:"viewport"`
	IsMainFrame       bool            `json:"isMainFrame"`
}

type screencastFrame struct {
	Type      string  `json:"type"`
	PageID    string  `json:"pageId"`
	SHA1      string  `json:"sha1"`
	Width     int     `json:"width"`
	Height    int     `json:"height"`
	Timestamp float64 `json:"timestamp"`
}

// Action is one call of the script's API, as the viewer lists it: Class
// and Method are Playwright's protocol names (Frame.goto, Page.mouseMove,
// ...), from which the viewer words the title unless Title is given;
// Params are the protocol's (the viewer reads "url", "selector", ...).
type Action struct {
	Class  string          `json:"class"`
	Method string          `json:"method"`
	Title  string          `json:"title"`
	Params json.RawMessage `json:"params"`
	PageID string          `json:"page"`
	Stack  []StackFrame    `json:"stack"`
}

// Snapshot is one frame's DOM as CaptureJS returns it.
type Snapshot struct {
	Doctype  string          `json:"doctype"`
	HTML     json.RawMessage `json:"html"`
	Viewport Size            `json:"viewport"`
	URL      string          `json:"url"`
	FrameID  string          `json:"-"` // the page's main frame when ""
}

// Begin records an action's start, with the DOM it starts on (snap may be
// nil), and returns its call id. An action begun inside a group is that
// group's child.
func (r *Recorder) Begin(a Action, snap *Snapshot) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunk == nil {
		return ""
	}
	r.chunk.seq++
	id := fmt.Sprintf("call@%d", r.chunk.seq)
	params := a.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	ev := beforeEvent{Type: "before", CallID: id, StartTime: r.now(), Title: a.Title, Class: a.Class,
		Method: a.Method, Params: params, Stack: a.Stack, PageID: a.PageID}
	if n := len(r.chunk.groups); n > 0 {
		ev.ParentID = r.chunk.groups[n-1]
	}
	if snap != nil {
		ev.BeforeSnapshot = r.snapshotLocked(id, "before", a.PageID, snap)
	}
	r.appendLocked(false, ev)
	return id
}

// End records an action's end: its error message ("" when it succeeded),
// the DOM it left (snap may be nil) and a screenshot (jpeg may be nil).
func (r *Recorder) End(callID, errMessage, pageID string, snap *Snapshot, shot *Screenshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunk == nil || callID == "" {
		return
	}
	ev := afterEvent{Type: "after", CallID: callID, EndTime: r.now()}
	if errMessage != "" {
		ev.Error = &errorValue{Message: errMessage, Name: "Error"}
	}
	if snap != nil {
		ev.AfterSnapshot = r.snapshotLocked(callID, "after", pageID, snap)
	}
	if shot != nil && pageID != "" {
		r.appendLocked(false, screencastFrame{Type: "screencast-frame", PageID: pageID,
			SHA1: r.addResourceLocked(shot.JPEG), Width: shot.Width, Height: shot.Height, Timestamp: r.now()})
	}
	r.appendLocked(false, ev)
}

// Screenshot is a JPEG of the page and its size in CSS pixels.
type Screenshot struct {
	JPEG          []byte
	Width, Height int
}

// Log adds a line to an action's call log.
func (r *Recorder) Log(callID, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendLocked(false, logEvent{Type: "log", CallID: callID, Time: r.now(), Message: message})
}

// snapshotLocked writes a frame snapshot and returns its name.
func (r *Recorder) snapshotLocked(callID, phase, pageID string, snap *Snapshot) string {
	name := phase + "@" + callID
	frameID := snap.FrameID
	if frameID == "" {
		frameID = pageID
	}
	now := time.Now()
	html := snap.HTML
	if len(html) == 0 {
		html = json.RawMessage(`["HTML",{}]`)
	}
	r.appendLocked(false, frameSnapshotEvent{Type: "frame-snapshot", Snapshot: frameSnapshot{
		SnapshotName: name, CallID: callID, PageID: pageID, FrameID: frameID, FrameURL: snap.URL,
		Timestamp: r.now(), WallTime: wallMillis(now), CollectionTime: 0, Doctype: snap.Doctype, HTML: html,
		ResourceOverrides: []struct{}{}, Viewport: snap.Viewport, IsMainFrame: true,
	}})
	return name
}

// Group opens a group of actions (tracing.group): the actions until its
// GroupEnd are listed under it.
func (r *Recorder) Group(name string, location *StackFrame) {
	params := map[string]any{"name": name}
	if location != nil {
		params["location"] = location
	}
	raw, _ := json.Marshal(params)
	id := r.Begin(Action{Class: "Tracing", Method: "tracingGroup", Title: name, Params: raw}, nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunk != nil && id != "" {
		r.chunk.groups = append(r.chunk.groups, id)
	}
}

// GroupEnd closes the innermost open group; with none open it does nothing.
func (r *Recorder) GroupEnd() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunk == nil || len(r.chunk.groups) == 0 {
		return
	}
	n := len(r.chunk.groups)
	id := r.chunk.groups[n-1]
	r.chunk.groups = r.chunk.groups[:n-1]
	r.appendLocked(false, afterEvent{Type: "after", CallID: id, EndTime: r.now()})
}

// Console records a console message of one of the context's pages.
func (r *Recorder) Console(pageID, typ, text, url string, line, column int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appendLocked(false, consoleEvent{Type: "console", Time: r.now(), PageID: pageID, MessageType: typ, Text: text,
		Location: consoleLocation{URL: url, LineNumber: line, ColumnNumber: column}})
}
