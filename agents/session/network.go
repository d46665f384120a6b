package session

import (
	"fmt"
	"sync"

	"wright/browser"
)

// netLog keeps the session's requests, as the engine reports them, for
// the network tool: live mode has no network log of its own, and the
// runner need not be asked.
type netLog struct {
	mu      sync.Mutex
	b       *browser.Browser
	cancel  func()
	order   []string // request ids, oldest first
	entries map[string]*netEntry
}

type netEntry struct {
	method, url, kind string
	status            int
	failed            string
}

const maxNetEntries = 500

// follow subscribes to b's events, once per browser (a step may have
// restarted Chromium).
func (n *netLog) follow(b *browser.Browser) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if b == nil || b == n.b {
		return
	}
	if n.cancel != nil {
		n.cancel()
	}
	n.b = b
	if n.entries == nil {
		n.entries = map[string]*netEntry{}
	}
	n.cancel = b.Subscribe(n.record, false)
}

// record runs on the page's event goroutine: it only files the event.
func (n *netLog) record(ev browser.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch e := ev.(type) {
	case *browser.RequestEvent:
		if _, ok := n.entries[e.Request]; !ok {
			n.order = append(n.order, e.Request)
		}
		n.entries[e.Request] = &netEntry{method: e.Method, url: e.URL, kind: e.ResourceType}
		if over := len(n.order) - maxNetEntries; over > 0 {
			for _, id := range n.order[:over] {
				delete(n.entries, id)
			}
			n.order = append([]string{}, n.order[over:]...)
		}
	case *browser.ResponseEvent:
		if en := n.entries[e.Request]; en != nil {
			en.status = e.Status
		}
	case *browser.RequestFailedEvent:
		if en := n.entries[e.Request]; en != nil {
			en.failed = e.Error
		}
	}
}

// lines lists the last limit requests, oldest first.
func (n *netLog) lines(limit int, staticToo bool) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, id := range n.order {
		en := n.entries[id]
		if en == nil {
			continue
		}
		if !staticToo && (en.kind == "image" || en.kind == "stylesheet" || en.kind == "font" || en.kind == "media") {
			continue
		}
		status := "pending"
		switch {
		case en.failed != "":
			status = "failed: " + en.failed
		case en.status != 0:
			status = fmt.Sprint(en.status)
		}
		out = append(out, fmt.Sprintf("%s %s → %s (%s)", en.method, en.url, status, en.kind))
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

func (n *netLog) stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cancel != nil {
		n.cancel()
		n.cancel = nil
	}
}
