package modeltest

import (
	"fmt"
	"strings"
	"sync"

	"wright/model"
)

// Wire is how the server speaks one wire API: the bodies of a scripted
// reply and of a scripted error in that API's shape. A test that adds a
// provider to model's table adds its Wire with RegisterWire, and the
// server serves it at the provider's Path.
type Wire struct {
	Reply func(req Request, a Answer) any
	Error func(status int, typ, message string) any
}

// Answer is a scripted reply, for a Wire to put in its API's shape.
type Answer struct {
	Served       int    // responses served so far, this one included: for the answer's ids
	Content      string // the assistant's text (or the refusal's)
	Refusal      bool
	FinishReason string // "" (a normal stop) or the scripted one ("length", ...)
	// PromptTokens is the whole prompt, CachedTokens and
	// CacheWriteTokens included.
	PromptTokens, CompletionTokens, CachedTokens, CacheWriteTokens, ReasoningTokens int
}

var wires = struct {
	sync.RWMutex
	byAPI map[string]Wire
}{byAPI: map[string]Wire{}}

// RegisterWire makes the server speak api, which must be in model's
// provider table; call it from an init function, after model.Register
// for an API of the test's own. It panics on a Wire without both bodies,
// an API the table lacks or one registered twice: mistakes in the test
// program, found when it starts.
func RegisterWire(api string, w Wire) {
	if w.Reply == nil || w.Error == nil {
		panic(fmt.Sprintf("modeltest: wire %q lacks its reply or error body", api))
	}
	if _, ok := model.LookupProvider(api); !ok {
		panic(fmt.Sprintf("modeltest: wire %q: model has no such provider (model.Register it first)", api))
	}
	wires.Lock()
	defer wires.Unlock()
	if _, ok := wires.byAPI[api]; ok {
		panic(fmt.Sprintf("modeltest: wire %q registered twice", api))
	}
	wires.byAPI[api] = w
}

// wireAt is the wire served at a request path (with or without /v1).
func wireAt(path string) (Wire, bool) {
	path = strings.TrimPrefix(path, "/v1")
	wires.RLock()
	defer wires.RUnlock()
	for _, p := range model.Providers() {
		if w, ok := wires.byAPI[p.Name]; ok && p.Path == path {
			return w, true
		}
	}
	return Wire{}, false
}

// servedPaths are the paths of the wires, for the answer to any other.
func servedPaths() string {
	wires.RLock()
	defer wires.RUnlock()
	var paths []string
	for _, p := range model.Providers() {
		if _, ok := wires.byAPI[p.Name]; ok {
			paths = append(paths, "/v1"+p.Path)
		}
	}
	if n := len(paths); n > 1 {
		return strings.Join(paths[:n-1], ", ") + " and " + paths[n-1]
	}
	return strings.Join(paths, "")
}
