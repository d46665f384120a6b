package har

import (
	"crypto/sha1" //nolint:gosec // names attached bodies as Playwright does; not a security use
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// How a recorder keeps response bodies (Playwright's record_har_content).
const (
	ContentEmbed  = "embed"  // in the log, as text or base64
	ContentAttach = "attach" // as files beside the log (in the .zip, or the .har's folder)
	ContentOmit   = "omit"   // not at all
)

// Options say what a Recorder keeps.
type Options struct {
	Content string // ContentEmbed, ContentAttach or ContentOmit; "" is embed
	// Minimal keeps what replay needs only (Playwright's record_har_mode
	// "minimal"): no pages, cookies, sizes, timings or server addresses.
	Minimal bool
	// Keep, when set, says which request URLs are recorded.
	Keep    func(url string) bool
	Creator Creator // "" name: wright
	Browser *Creator
	// MaxBody caps a body kept (0: DefaultMaxBody): a bigger one keeps
	// its size only, so that a page streaming a huge file cannot fill
	// the recorder's memory.
	MaxBody int
}

// DefaultMaxBody is the biggest body a recorder keeps by default.
const DefaultMaxBody = 32 << 20

// RequestStart is a request the browser sent. Key tells requests apart
// within one recorder; a redirect keeps its request's key and carries the
// response that redirected.
type RequestStart struct {
	Key          string
	Page         string // the page (tab) it belongs to, "" for none
	URL          string
	Method       string
	Headers      map[string]string // multiple values of one name are joined by "\n"
	PostData     *string           // nil: no body
	ResourceType string
	Redirect     *ResponseStart // the response that redirected to this request
	Time         time.Time
}

// ResponseStart is a response's head.
type ResponseStart struct {
	Key        string
	Status     int
	StatusText string
	Headers    map[string]string
	Protocol   string // as the browser says it: "http/1.1", "h2", ...
	RemoteIP   string
	Time       time.Time
}

// Recorder builds a log from a browser's network events. Its methods may
// be called from any goroutine.
type Recorder struct {
	mu      sync.Mutex
	opts    Options
	entries []*Entry
	open    map[string]*pending
	files   map[string][]byte // attached bodies by file name
	pages   []Page
	pageIDs map[string]string // browser page -> HAR page id
}

type pending struct {
	e          *Entry
	start, got time.Time // request sent, response head arrived
}

// NewRecorder starts an empty log.
func NewRecorder(o Options) *Recorder {
	if o.Content == "" {
		o.Content = ContentEmbed
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Creator.Name == "" {
		o.Creator = Creator{Name: "wright", Version: "1"}
	}
	return &Recorder{opts: o, open: map[string]*pending{}, files: map[string][]byte{}, pageIDs: map[string]string{}}
}

// Keeps says whether the recorder wants the response body of the request
// (so a caller can skip fetching bodies it would drop).
func (r *Recorder) Keeps(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.open[key]
	return ok && r.opts.Content != ContentOmit
}

// Request records a request sent (and ends the one it redirected from).
func (r *Recorder) Request(q RequestStart) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if q.Redirect != nil {
		if p := r.open[q.Key]; p != nil {
			q.Redirect.Time = q.Time
			r.response(p, *q.Redirect)
			p.e.Response.RedirectURL = resolve(p.e.Request.URL, headerValue(q.Redirect.Headers, "location"))
			r.finish(p, nil, q.Time)
			delete(r.open, q.Key)
		}
	}
	if r.opts.Keep != nil && !r.opts.Keep(q.URL) {
		return
	}
	e := &Entry{StartedDateTime: q.Time, Request: r.request(q), ResourceType: q.ResourceType,
		Response: Response{Status: -1, HTTPVersion: "HTTP/1.1", Cookies: []Cookie{}, Headers: []NameValue{},
			HeadersSize: -1, BodySize: -1, Content: Content{Size: -1, MimeType: "x-unknown"}},
		Timings: Timings{Blocked: -1, DNS: -1, Connect: -1, Send: -1, Wait: -1, Receive: -1, SSL: -1}}
	if !r.opts.Minimal {
		e.Pageref = r.pageRef(q.Page, q.URL, q.Time)
	}
	r.entries = append(r.entries, e)
	r.open[q.Key] = &pending{e: e, start: q.Time}
}

func (r *Recorder) request(q RequestStart) Request {
	req := Request{Method: q.Method, URL: q.URL, HTTPVersion: "HTTP/1.1", Cookies: []Cookie{},
		Headers: nameValues(q.Headers), QueryString: queryString(q.URL), HeadersSize: -1, BodySize: -1}
	if q.PostData != nil {
		req.PostData = r.postData(*q.PostData, headerValue(q.Headers, "content-type"))
	}
	if !r.opts.Minimal {
		req.BodySize = 0
		if q.PostData != nil {
			req.BodySize = int64(len(*q.PostData))
		}
		req.Cookies = requestCookies(headerValue(q.Headers, "cookie"))
	}
	return req
}

func (r *Recorder) postData(body, mimeType string) *PostData {
	pd := &PostData{MimeType: mimeType, Params: []Param{}}
	if utf8.ValidString(body) || r.opts.Content != ContentAttach {
		pd.Text = body
		return pd
	}
	pd.File = r.attach([]byte(body), mimeType)
	return pd
}

// Response records a response's head.
func (r *Recorder) Response(s ResponseStart) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.open[s.Key]; p != nil {
		r.response(p, s)
	}
}

func (r *Recorder) response(p *pending, s ResponseStart) {
	p.got = s.Time
	res := &p.e.Response
	res.Status, res.StatusText, res.Headers = s.Status, s.StatusText, nameValues(s.Headers)
	res.HTTPVersion = httpVersion(s.Protocol)
	p.e.Request.HTTPVersion = res.HTTPVersion
	res.Content.MimeType = headerValue(s.Headers, "content-type")
	if res.Content.MimeType == "" {
		res.Content.MimeType = "x-unknown"
	}
	if !r.opts.Minimal {
		res.Cookies = responseCookies(s.Headers)
		p.e.ServerIPAddress = strings.Trim(s.RemoteIP, "[]")
	}
}

// Finished records that the response's body arrived: body, or nil when
// the caller could not get it (or the recorder does not keep bodies).
func (r *Recorder) Finished(key string, body []byte, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.open[key]; p != nil {
		r.finish(p, body, at)
		delete(r.open, key)
	}
}

// Failed records that the request failed (or was canceled).
func (r *Recorder) Failed(key, errorText string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p := r.open[key]; p != nil {
		p.e.FailureText = errorText
		r.finish(p, nil, at)
		delete(r.open, key)
	}
}

func (r *Recorder) finish(p *pending, body []byte, at time.Time) {
	e := p.e
	c := &e.Response.Content
	c.Size = int64(len(body))
	if !r.opts.Minimal {
		e.Response.BodySize = c.Size
		r.timings(p, at)
	}
	if body == nil || r.opts.Content == ContentOmit {
		return
	}
	if len(body) > r.opts.MaxBody {
		c.Comment = fmt.Sprintf("the body (%d bytes) is over the recorder's %d and was not kept", len(body), r.opts.MaxBody)
		return
	}
	switch r.opts.Content {
	case ContentAttach:
		c.File = r.attach(body, c.MimeType)
		zero := int64(0)
		c.Compression = &zero
	default:
		if isText(c.MimeType) && utf8.Valid(body) {
			c.Text = string(body)
		} else {
			c.Text, c.Encoding = base64.StdEncoding.EncodeToString(body), "base64"
		}
	}
}

func (r *Recorder) timings(p *pending, at time.Time) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	t := &p.e.Timings
	t.Send = 0
	if p.got.IsZero() {
		t.Wait, t.Receive = ms(at.Sub(p.start)), 0
	} else {
		t.Wait, t.Receive = ms(p.got.Sub(p.start)), ms(at.Sub(p.got))
	}
	if t.Wait < 0 {
		t.Wait = 0
	}
	if t.Receive < 0 {
		t.Receive = 0
	}
	p.e.Time = t.Send + t.Wait + t.Receive
}

// attach keeps body as a file named by its SHA-1 and its type's extension.
func (r *Recorder) attach(body []byte, mimeType string) string {
	sum := sha1.Sum(body) //nolint:gosec // a name, as Playwright names attachments
	name := hex.EncodeToString(sum[:]) + "." + Extension(mimeType)
	r.files[name] = body
	return name
}

func (r *Recorder) pageRef(page, firstURL string, at time.Time) string {
	if page == "" {
		return ""
	}
	if id, ok := r.pageIDs[page]; ok {
		return id
	}
	id := "page@" + page
	r.pageIDs[page] = id
	r.pages = append(r.pages, Page{StartedDateTime: at, ID: id, Title: firstURL,
		PageTimings: PageTimings{OnContentLoad: -1, OnLoad: -1}})
	return id
}

// Log returns the log so far and the attached bodies (requests still
// open are in it as they stand).
func (r *Recorder) Log() (*HAR, map[string][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &HAR{Log: Log{Version: Version, Creator: r.opts.Creator, Browser: r.opts.Browser, Entries: make([]Entry, 0, len(r.entries))}}
	if !r.opts.Minimal {
		h.Log.Pages = append([]Page{}, r.pages...)
	}
	for _, e := range r.entries {
		h.Log.Entries = append(h.Log.Entries, *e)
	}
	files := make(map[string][]byte, len(r.files))
	for k, v := range r.files {
		files[k] = v
	}
	return h, files
}

// ---- helpers ----------------------------------------------------------------

func nameValues(h map[string]string) []NameValue {
	out := []NameValue{}
	for k, v := range h {
		for _, line := range strings.Split(v, "\n") {
			out = append(out, NameValue{Name: k, Value: line})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func queryString(u string) []NameValue {
	out := []NameValue{}
	pu, err := url.Parse(u)
	if err != nil || pu.RawQuery == "" {
		return out
	}
	for _, part := range strings.Split(pu.RawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		out = append(out, NameValue{Name: dk, Value: dv})
	}
	return out
}

func resolve(base, ref string) string {
	if ref == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := b.Parse(ref)
	if err != nil {
		return ref
	}
	return r.String()
}

func httpVersion(protocol string) string {
	switch strings.ToLower(protocol) {
	case "h2", "http/2", "http/2.0":
		return "HTTP/2.0"
	case "h3", "http/3", "quic":
		return "HTTP/3.0"
	case "http/1.0":
		return "HTTP/1.0"
	}
	return "HTTP/1.1"
}

func requestCookies(header string) []Cookie {
	out := []Cookie{}
	if header == "" {
		return out
	}
	cs, err := http.ParseCookie(header)
	if err != nil {
		return out
	}
	for _, c := range cs {
		out = append(out, Cookie{Name: c.Name, Value: c.Value})
	}
	return out
}

func responseCookies(h map[string]string) []Cookie {
	out := []Cookie{}
	for _, line := range strings.Split(headerValue(h, "set-cookie"), "\n") {
		if line == "" {
			continue
		}
		c, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		hc := Cookie{Name: c.Name, Value: c.Value, Path: c.Path, Domain: c.Domain, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if !c.Expires.IsZero() {
			t := c.Expires.UTC()
			hc.Expires = &t
		}
		switch c.SameSite {
		case http.SameSiteLaxMode:
			hc.SameSite = "Lax"
		case http.SameSiteStrictMode:
			hc.SameSite = "Strict"
		case http.SameSiteNoneMode:
			hc.SameSite = "None"
		}
		out = append(out, hc)
	}
	return out
}

func isText(mimeType string) bool {
	mt, _, _ := mime.ParseMediaType(mimeType)
	if mt == "" {
		mt = strings.ToLower(strings.TrimSpace(mimeType))
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") ||
		mt == "application/json" || mt == "application/javascript" || mt == "application/xml" ||
		mt == "application/x-www-form-urlencoded" || mt == "image/svg+xml"
}

// extensions are the file extensions attached bodies get, for the types a
// page loads most (mime's table gives ".htm" for text/html and knows few).
var extensions = map[string]string{
	"text/html": "html", "text/css": "css", "text/javascript": "js", "application/javascript": "js",
	"application/json": "json", "text/plain": "txt", "image/png": "png", "image/jpeg": "jpeg",
	"image/gif": "gif", "image/svg+xml": "svg", "image/webp": "webp", "image/x-icon": "ico",
	"image/vnd.microsoft.icon": "ico", "font/woff": "woff", "font/woff2": "woff2", "font/ttf": "ttf",
	"application/xml": "xml", "text/xml": "xml", "application/pdf": "pdf", "application/wasm": "wasm",
	"video/mp4": "mp4", "audio/mpeg": "mp3", "application/octet-stream": "bin",
}

// Extension is the file extension (without the dot) for a MIME type, "dat"
// when it has none.
func Extension(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return "dat"
	}
	if ext, ok := extensions[mt]; ok {
		return ext
	}
	if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
		return strings.TrimPrefix(exts[0], ".")
	}
	return "dat"
}
