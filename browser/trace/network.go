package trace

import (
	"fmt"
	"net/url"
	"sort"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser"
	"wright/browser/har"
)

// resourceSnapshot is a network request as the trace holds it: a HAR entry
// with the trace's own fields beside it.
type resourceSnapshot struct {
	Type     string        `json:"type"`
	Snapshot resourceEntry `json:"snapshot"`
}

type resourceEntry struct {
	har.Entry
	FrameRef      string  `json:"_frameref,omitempty"`
	MonotonicTime float64 `json:"_monotonicTime"`
}

// pending is a request seen but not finished yet.
type pending struct {
	entry   resourceEntry
	started time.Time
}

// Observe records the browser events of the context's pages that the trace
// shows: console messages and network requests (written once each has
// finished or failed). The caller passes only the events of the traced
// context's pages.
func (r *Recorder) Observe(ev browser.Event) {
	switch e := ev.(type) {
	case *browser.ConsoleEvent:
		r.Console(e.Page, e.Type, e.Text, e.URL, e.Line, e.Column)
	case *browser.RequestEvent:
		r.request(e)
	case *browser.ResponseEvent:
		r.response(e)
	case *browser.RequestFinishedEvent:
		r.finish(e.Request, "")
	case *browser.RequestFailedEvent:
		r.finish(e.Request, e.Error)
	}
}

func (r *Recorder) request(e *browser.RequestEvent) {
	now := time.Now()
	req := har.Request{Method: e.Method, URL: e.URL, HTTPVersion: "HTTP/1.1", Cookies: []har.Cookie{},
		Headers: headerList(e.RequestInfo.Headers), QueryString: queryOf(e.URL), HeadersSize: -1, BodySize: 0}
	if e.PostData != nil {
		req.BodySize = int64(len(*e.PostData))
		req.PostData = &har.PostData{MimeType: headerValue(e.RequestInfo.Headers, "content-type"), Params: []har.Param{},
			Text: *e.PostData}
	}
	entry := resourceEntry{Entry: har.Entry{Pageref: e.Page, StartedDateTime: now, Time: -1, Request: req,
		Response: har.Response{Status: -1, Cookies: []har.Cookie{}, Headers: []har.NameValue{},
			Content: har.Content{Size: -1, MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1},
		Timings:      har.Timings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: -1, Receive: -1, SSL: -1},
		ResourceType: e.ResourceType}, FrameRef: e.Frame}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunk == nil {
		return
	}
	if r.inflight == nil {
		r.inflight = map[string]*pending{}
	}
	r.inflight[e.Request] = &pending{entry: entry, started: now}
}

func (r *Recorder) response(e *browser.ResponseEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.inflight[e.Request]
	if p == nil {
		return
	}
	resp := &p.entry.Response
	resp.Status, resp.StatusText, resp.HTTPVersion = e.Status, e.StatusText, httpVersion(e.Protocol)
	resp.Headers = headerList(e.Headers)
	resp.Content.MimeType = headerValue(e.Headers, "content-type")
	if resp.Content.MimeType == "" {
		resp.Content.MimeType = "x-unknown"
	}
	resp.RedirectURL = headerValue(e.Headers, "location")
	p.entry.ServerIPAddress = e.RemoteIP
	p.entry.Timings.Wait = float64(time.Since(p.started).Microseconds()) / 1000
}

// finish writes a request's entry; failure is its error text ("" when it
// finished).
func (r *Recorder) finish(id, failure string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.inflight[id]
	if p == nil {
		return
	}
	delete(r.inflight, id)
	p.entry.Time = float64(time.Since(p.started).Microseconds()) / 1000
	if p.entry.Timings.Wait < 0 {
		p.entry.Timings.Wait = p.entry.Time
	}
	p.entry.Timings.Receive = p.entry.Time - p.entry.Timings.Wait
	p.entry.FailureText = failure
	p.entry.MonotonicTime = float64(p.started.Sub(r.origin).Microseconds()) / 1000
	r.appendLocked(true, resourceSnapshot{Type: "resource-snapshot", Snapshot: p.entry})
}

func headerList(h proto.NetworkHeaders) []har.NameValue {
	out := make([]har.NameValue, 0, len(h))
	for k, v := range h {
		out = append(out, har.NameValue{Name: k, Value: fmt.Sprint(v.Val())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func headerValue(h proto.NetworkHeaders, name string) string {
	return har.Header(headerList(h), name)
}

func queryOf(raw string) []har.NameValue {
	out := []har.NameValue{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for k, vs := range u.Query() {
		for _, v := range vs {
			out = append(out, har.NameValue{Name: k, Value: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func httpVersion(protocol string) string {
	switch protocol {
	case "h2":
		return "HTTP/2.0"
	case "":
		return "HTTP/1.1"
	}
	return protocol
}
