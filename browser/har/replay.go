package har

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"mime"
	"sort"
	"strings"
)

// Query is a request to answer from an archive.
type Query struct {
	URL        string
	Method     string
	Headers    []NameValue
	PostData   []byte // nil: no body
	Navigation bool   // a frame's document request
}

// What Lookup says to do.
const (
	ActionFulfill  = "fulfill"  // answer with Status, Headers, Body
	ActionRedirect = "redirect" // send the navigation to RedirectURL (whose entry answers it)
	ActionError    = "error"    // the archive is broken for this request (Message); treat as not found
	ActionNoEntry  = "noentry"  // nothing recorded for it
)

// Answer is Lookup's verdict.
type Answer struct {
	Action      string      `json:"action"`
	Status      int         `json:"status,omitempty"`
	Headers     []NameValue `json:"headers,omitempty"`
	Body        []byte      `json:"-"`
	RedirectURL string      `json:"redirect_url,omitempty"`
	Message     string      `json:"message,omitempty"`
}

// redirectStatus are the statuses whose Location is followed.
var redirectStatus = map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true}

// Lookup finds the recorded response for q as Playwright's route_from_har
// does: entries of the same URL and method, then the same body (for a
// POST with a body; multipart bodies compare without their boundary), then
// the one sharing the most headers with q (the first among equals). A
// recorded redirect is followed to its target's entry; for a navigation
// the answer is to redirect there, so that the page's URL is the final one.
func (a *Archive) Lookup(q Query) Answer {
	e, err := a.find(q)
	if err != nil {
		return Answer{Action: ActionError, Message: err.Error()}
	}
	if e == nil {
		return Answer{Action: ActionNoEntry}
	}
	if q.Navigation && e.Request.URL != q.URL {
		return Answer{Action: ActionRedirect, RedirectURL: e.Request.URL}
	}
	body, err := a.Body(e.Response.Content)
	if err != nil {
		return Answer{Action: ActionError, Message: err.Error()}
	}
	return Answer{Action: ActionFulfill, Status: e.Response.Status, Headers: e.Response.Headers, Body: body}
}

func (a *Archive) find(q Query) (*Entry, error) {
	u, method := q.URL, strings.ToUpper(q.Method)
	visited := map[*Entry]bool{}
	for {
		var cands []*Entry
		for i := range a.Log.Entries {
			c := &a.Log.Entries[i]
			if c.Request.URL != u || !strings.EqualFold(c.Request.Method, method) {
				continue
			}
			if method == "POST" && len(q.PostData) > 0 && c.Request.PostData != nil && !a.samePost(q, c) {
				continue
			}
			cands = append(cands, c)
		}
		if len(cands) == 0 {
			return nil, nil
		}
		e := bestByHeaders(cands, q.Headers)
		if visited[e] {
			return nil, fmt.Errorf("found a redirect cycle for %s", q.URL)
		}
		visited[e] = true
		loc := Header(e.Response.Headers, "location")
		if !redirectStatus[e.Response.Status] || loc == "" {
			return e, nil
		}
		next := resolve(u, loc)
		if next == "" {
			return e, nil
		}
		u = next
		if ((e.Response.Status == 301 || e.Response.Status == 302) && method == "POST") ||
			(e.Response.Status == 303 && method != "GET" && method != "HEAD") {
			method = "GET" // as fetch's redirect steps change the method
		}
	}
}

func (a *Archive) samePost(q Query, c *Entry) bool {
	recorded, err := a.postBody(c.Request.PostData)
	if err != nil {
		return false
	}
	if bytes.Equal(recorded, q.PostData) {
		return true
	}
	b1, b2 := boundary(Header(q.Headers, "content-type")), boundary(Header(c.Request.Headers, "content-type"))
	if b1 == "" || b2 == "" {
		return false
	}
	return bytes.Equal(bytes.ReplaceAll(q.PostData, []byte(b1), nil), bytes.ReplaceAll(recorded, []byte(b2), nil))
}

func boundary(contentType string) string {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		return ""
	}
	return params["boundary"]
}

func bestByHeaders(cands []*Entry, headers []NameValue) *Entry {
	if len(cands) == 1 {
		return cands[0]
	}
	have := map[string]bool{}
	for _, h := range headers {
		have[strings.ToLower(h.Name)+":"+h.Value] = true
	}
	score := func(e *Entry) int {
		n := 0
		for _, h := range e.Request.Headers {
			if have[strings.ToLower(h.Name)+":"+h.Value] {
				n++
			}
		}
		return n
	}
	sorted := append([]*Entry{}, cands...)
	sort.SliceStable(sorted, func(i, j int) bool { return score(sorted[i]) > score(sorted[j]) })
	return sorted[0]
}

func (a *Archive) postBody(pd *PostData) ([]byte, error) {
	if pd.File != "" {
		return a.file(pd.File)
	}
	return []byte(pd.Text), nil
}

// Body is a response's recorded body: its text (decoded from base64 when
// so encoded) or its attached file.
func (a *Archive) Body(c Content) ([]byte, error) {
	if c.File != "" {
		return a.file(c.File)
	}
	if c.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(c.Text)
		if err != nil {
			return nil, fmt.Errorf("har: a base64 body does not decode: %w", err)
		}
		return b, nil
	}
	return []byte(c.Text), nil
}
