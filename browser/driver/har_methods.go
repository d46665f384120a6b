package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser"
	"wright/browser/har"
	"wright/trust/secrets"
)

// HAR recording and replay (Playwright's record_har_* context options and
// route_from_har). A recording subscribes to the browser's network events,
// keeps those of one context (or one page) in a har.Recorder, fetches the
// bodies it keeps as their requests finish, and writes the file when the
// client exports it (on the context's close). Replay opens an archive the
// client then asks, request by request, what to answer (the client routes
// the requests and fulfills them; the driver only looks up).

// harRegistry is the server's open recordings and archives, by id.
type harRegistry struct {
	mu       sync.Mutex
	next     int
	records  map[string]*harRecording
	archives map[string]*har.Archive

	browserRecs []*harRecording // the server's own, of whole browsers (HAROptions.RecordDir)
	replay      har.Set         // HAROptions.Replay, opened at the first launch
	// redact is applied to the server's own recordings as they are written.
	redact func([]byte) []byte
}

func (r *harRegistry) id(prefix string) string {
	r.next++
	return prefix + strconv.Itoa(r.next)
}

// harRecording is one recording: its recorder, the event subscription
// feeding it, and the goroutine fetching bodies.
type harRecording struct {
	rec     *har.Recorder
	path    string
	b       *browser.Browser
	context string
	page    string // "" for the whole context
	all     bool   // every page of the browser
	cancel  func() // ends the subscription
	bodies  chan bodyJob
	done    chan struct{} // the body goroutine ended
	stop    context.CancelFunc
	once    sync.Once
}

type bodyJob struct {
	page, request, key string
	at                 time.Time
}

// harRecordStart answers har.record_start.
func harRecordStart(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Browser string `json:"browser"`
		Context string `json:"context"`
		Page    string `json:"page"`
		harRecordParams
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(p.Browser)
	if err != nil {
		return nil, err
	}
	opts, err := p.options(b)
	if err != nil {
		return nil, err
	}
	if _, err := c.s.files().check("record the HAR", p.Path); err != nil {
		return nil, err
	}
	rc := newRecording(b, opts, p.Context, p.Page, false)
	rc.path = p.Path
	reg := &c.s.hars
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.records == nil {
		reg.records = map[string]*harRecording{}
	}
	id := reg.id("har")
	reg.records[id] = rc
	return map[string]any{"har": id}, nil
}

// newRecording starts recording b's traffic: of one page, one context, or all.
func newRecording(b *browser.Browser, opts har.Options, contextID, page string, all bool) *harRecording {
	rc := &harRecording{rec: har.NewRecorder(opts), b: b, context: contextID, page: page, all: all,
		bodies: make(chan bodyJob, 4096), done: make(chan struct{})}
	bctx, stop := context.WithCancel(context.Background()) // the recording's own: it ends with it
	rc.stop = stop
	go rc.fetchBodies(bctx)
	rc.cancel = b.Subscribe(rc.observe, false)
	return rc
}

// harRecordParams say what a recording keeps (har.record_start and
// apirequest.har_start).
type harRecordParams struct {
	Path     string `json:"path"`
	Content  string `json:"content"`
	Mode     string `json:"mode"`
	URLRegex string `json:"url_regex"`
}

// options are the recorder's, for the traffic of b (nil: no browser's).
func (hp harRecordParams) options(b *browser.Browser) (har.Options, error) {
	return recorderOptions(hp.Path, hp.Content, hp.Mode, hp.URLRegex, b)
}

func recorderOptions(path, content, mode, urlRegex string, b *browser.Browser) (har.Options, error) {
	var o har.Options
	if path == "" {
		return o, invalid("har.record_start needs a path")
	}
	switch content {
	case "":
		content = har.ContentEmbed
		if har.IsZip(path) {
			content = har.ContentAttach
		}
	case har.ContentEmbed, har.ContentAttach, har.ContentOmit:
	default:
		return o, invalid("content must be embed, attach or omit, not %q", content)
	}
	switch mode {
	case "", "full":
	case "minimal":
		o.Minimal = true
	default:
		return o, invalid("mode must be full or minimal, not %q", mode)
	}
	o.Content = content
	if urlRegex != "" {
		re, err := regexp.Compile(urlRegex)
		if err != nil {
			return o, invalid("the HAR URL filter %q is no regular expression wright can use: %v", urlRegex, err)
		}
		o.Keep = re.MatchString
	}
	if b == nil {
		return o, nil // an API request context's: no browser made its traffic
	}
	o.Browser = &har.Creator{Name: "chromium"}
	if v, err := (proto.BrowserGetVersion{}).Call(b.Rod()); err == nil {
		o.Browser.Version = v.Product
	}
	return o, nil
}

// observe is the recording's event subscriber: it runs on a page's event
// goroutine, so it only records and queues (bodies are fetched elsewhere).
func (rc *harRecording) observe(ev browser.Event) {
	now := time.Now()
	switch e := ev.(type) {
	case *browser.RequestEvent:
		if !rc.wants(e.Page) {
			return
		}
		q := har.RequestStart{Key: e.Page + ":" + e.Request, Page: e.Page, URL: e.URL, Method: e.Method,
			Headers: headerMap(e.RequestInfo.Headers), PostData: e.PostData, ResourceType: e.ResourceType, Time: now}
		if e.Redirect != nil {
			q.Redirect = &har.ResponseStart{Key: q.Key, Status: e.Redirect.Status, StatusText: e.Redirect.StatusText,
				Headers: headerMap(e.Redirect.Headers)}
		}
		rc.rec.Request(q)
	case *browser.ResponseEvent:
		rc.rec.Response(har.ResponseStart{Key: e.Page + ":" + e.Request, Status: e.Status, StatusText: e.StatusText,
			Headers: headerMap(e.Headers), Protocol: e.Protocol, RemoteIP: e.RemoteIP, Time: now})
	case *browser.RequestFinishedEvent:
		key := e.Page + ":" + e.Request
		if !rc.rec.Keeps(key) {
			rc.rec.Finished(key, nil, now)
			return
		}
		select {
		case rc.bodies <- bodyJob{page: e.Page, request: e.Request, key: key, at: now}:
		default:
			rc.rec.Finished(key, nil, now) // too many at once: this one goes without its body
		}
	case *browser.RequestFailedEvent:
		rc.rec.Failed(e.Page+":"+e.Request, e.Error, now)
	}
}

// wants says whether a page's requests belong to the recording.
func (rc *harRecording) wants(page string) bool {
	if rc.all {
		return true
	}
	if rc.page != "" {
		return page == rc.page
	}
	p := rc.b.Page(page)
	return p != nil && p.ContextID() == rc.context
}

// fetchBodies gets the bodies of finished requests until the queue is
// closed (export) or ctx ends.
func (rc *harRecording) fetchBodies(ctx context.Context) {
	defer close(rc.done)
	for {
		select {
		case <-ctx.Done():
			return
		case j, ok := <-rc.bodies:
			if !ok {
				return
			}
			var body []byte
			if p := rc.b.Page(j.page); p != nil {
				bctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				body, _ = p.ResponseBody(bctx, j.request) // none: the entry keeps its size unknown
				cancel()
			}
			rc.rec.Finished(j.key, body, j.at)
		}
	}
}

// end stops the subscription and waits (within ctx) for the bodies queued.
func (rc *harRecording) end(ctx context.Context) {
	rc.once.Do(func() {
		rc.cancel()
		close(rc.bodies)
		select {
		case <-rc.done:
		case <-ctx.Done():
		}
		rc.stop()
		<-rc.done
	})
}

// harRecordExport answers har.record_export: the recording ends and its
// file is written.
func harRecordExport(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Har string `json:"har"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	reg := &c.s.hars
	reg.mu.Lock()
	rc := reg.records[p.Har]
	delete(reg.records, p.Har)
	reg.mu.Unlock()
	if rc == nil {
		return nil, invalid("unknown HAR recording %q", p.Har)
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	rc.end(wctx)
	return c.s.writeHAR(rc.rec, rc.path)
}

// writeHAR writes what rec recorded to path through the server's path
// policy, with every secret value redacted as it is written (the run's
// end sweep is the net, not the rule), answering with the path and how
// many entries it holds.
func (s *Server) writeHAR(rec *har.Recorder, path string) (any, error) {
	h, files := rec.Log()
	out, err := har.Files(path, h, files)
	if err != nil {
		return nil, browser.Errorf(browser.ErrBrowser, "write the HAR: %v", err)
	}
	root := s.files()
	// The log last, so that a reader never finds one whose bodies are missing.
	for name, data := range out {
		if name != path {
			if err := root.writeFile("write the HAR", name, s.redactRecording(data)); err != nil {
				return nil, err
			}
		}
	}
	if err := root.writeFile("write the HAR", path, s.redactZipped(path, out[path])); err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "entries": len(h.Log.Entries)}, nil
}

// redactRecording replaces every secret value in a recording's text, in
// each form the run's redaction knows (as typed, URL-encoded, JSON-escaped,
// base64 as in an Authorization: Basic header).
func (s *Server) redactRecording(data []byte) []byte {
	src := s.opts.Browser.Secrets
	if src == nil {
		return data
	}
	if r, ok := src.(browser.SecretRedactor); ok {
		return []byte(r.Redact(string(data)))
	}
	return []byte(src.RedactReads(string(data)))
}

// redactZipped is redactRecording for a file that may be a zip: each
// member is redacted, and the zip written again.
func (s *Server) redactZipped(path string, data []byte) []byte {
	if s.opts.Browser.Secrets == nil {
		return data
	}
	if !har.IsZip(path) {
		return s.redactRecording(data)
	}
	out, err := secrets.RedactZip(data, s.redactRecording)
	if err != nil {
		return s.redactRecording(data) // not a zip after all: redact it as it is
	}
	return out
}

// harOpen answers har.open: an archive to look requests up in.
func harOpen(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Path string `json:"path"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	root := c.s.files()
	a, err := har.OpenWith(p.Path, func(path string) (*os.File, error) { return root.open("open the HAR", path) })
	if err != nil {
		return nil, invalid("%v", err)
	}
	reg := &c.s.hars
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.archives == nil {
		reg.archives = map[string]*har.Archive{}
	}
	id := reg.id("archive")
	reg.archives[id] = a
	return map[string]any{"har": id, "entries": len(a.Log.Entries)}, nil
}

// harLookup answers har.lookup.
func harLookup(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Har        string          `json:"har"`
		URL        string          `json:"url"`
		Method     string          `json:"method"`
		Headers    []har.NameValue `json:"headers"`
		PostData   *string         `json:"post_data"` // base64
		Navigation bool            `json:"navigation"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	c.s.hars.mu.Lock()
	a := c.s.hars.archives[p.Har]
	c.s.hars.mu.Unlock()
	if a == nil {
		return nil, invalid("unknown HAR archive %q", p.Har)
	}
	q := har.Query{URL: p.URL, Method: p.Method, Headers: p.Headers, Navigation: p.Navigation}
	if p.PostData != nil {
		b, err := base64.StdEncoding.DecodeString(*p.PostData)
		if err != nil {
			return nil, invalid("post_data must be base64: %v", err)
		}
		q.PostData = b
	}
	ans := a.Lookup(q)
	out := map[string]any{"action": ans.Action}
	switch ans.Action {
	case har.ActionFulfill:
		out["status"], out["headers"] = ans.Status, ans.Headers
		out["body"] = base64.StdEncoding.EncodeToString(ans.Body)
	case har.ActionRedirect:
		out["redirect_url"] = ans.RedirectURL
	case har.ActionError:
		out["message"] = ans.Message
	}
	return out, nil
}

// harClose answers har.close: an archive, or a recording dropped unwritten.
func harClose(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Har string `json:"har"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	reg := &c.s.hars
	reg.mu.Lock()
	a, rc := reg.archives[p.Har], reg.records[p.Har]
	delete(reg.archives, p.Har)
	delete(reg.records, p.Har)
	reg.mu.Unlock()
	switch {
	case a != nil:
		return nil, a.Close()
	case rc != nil:
		rc.end(ctx)
		return nil, nil
	}
	return nil, invalid("unknown HAR %q", p.Har)
}

// closeAll ends every recording and archive (the server is closing),
// writing the server's own recordings.
func (r *harRegistry) closeAll(ctx context.Context) error {
	var errs []error
	r.mu.Lock()
	recs, archives, mine, replay := r.records, r.archives, r.browserRecs, r.replay
	r.records, r.archives, r.browserRecs, r.replay = nil, nil, nil, nil
	r.mu.Unlock()
	for _, rc := range recs {
		rc.end(ctx)
	}
	for _, a := range archives {
		_ = a.Close()
	}
	for _, rc := range mine {
		rc.end(ctx)
		h, files := rc.rec.Log()
		out, err := har.Files(rc.path, h, files)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// The folder is the harness's (HAROptions), not a client's: no root.
		// The log last, so that a reader never finds one whose bodies are missing.
		names := slices.DeleteFunc(slices.Sorted(maps.Keys(out)), func(n string) bool { return n == rc.path })
		for _, name := range append(names, rc.path) {
			data := out[name]
			if r.redact != nil {
				data = r.redact(data)
			}
			if err := (fileRoot{}).writeFile("write the HAR", name, data); err != nil {
				errs = append(errs, err)
			}
		}
	}
	replay.Close()
	return errors.Join(errs...)
}

func headerMap(h proto.NetworkHeaders) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = v.Str()
	}
	return out
}

// HAROptions make a server record or replay the whole traffic of its
// browser (wright bench's --record-har and --replay-har). The harness sets
// them; a client cannot.
type HAROptions struct {
	// RecordDir, if set, receives one HAR per browser the server launched,
	// written when the server closes (bodies embedded, Playwright's "full" mode).
	RecordDir string
	// Replay, if set, is a HAR file, or a folder of them, that answers
	// every request in the network's place; a request it lacks fails, so
	// the pages are the same at every attempt.
	Replay string
}

// The variables `wright driver` reads its HAROptions from (the harness
// sets them for the drivers the model's scripts start).
const (
	HARRecordEnv = "WRIGHT_HAR_RECORD_DIR"
	HARReplayEnv = "WRIGHT_HAR_REPLAY"
)

// HAROptionsFromEnv reads HARRecordEnv and HARReplayEnv.
func HAROptionsFromEnv() HAROptions {
	return HAROptions{RecordDir: os.Getenv(HARRecordEnv), Replay: os.Getenv(HARReplayEnv)}
}

// harLaunch gives a browser about to launch the server's replayer.
func (s *Server) harLaunch(opts *browser.Options) error {
	if s.opts.HAR.Replay == "" {
		return nil
	}
	reg := &s.hars
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.replay == nil {
		set, err := har.OpenSet(s.opts.HAR.Replay)
		if err != nil {
			return browser.Errorf(browser.ErrInvalidParams, "replay: %v", err)
		}
		reg.replay = set
	}
	opts.Replay = harReplayer{set: reg.replay}
	return nil
}

// harLaunched starts recording a browser just launched, when the server records.
func (s *Server) harLaunched(b *browser.Browser, id string) {
	if s.opts.HAR.RecordDir == "" {
		return
	}
	opts := har.Options{Content: har.ContentEmbed, Creator: har.Creator{Name: "wright", Version: "1"}}
	rc := newRecording(b, opts, "", "", true)
	rc.path = filepath.Join(s.opts.HAR.RecordDir,
		fmt.Sprintf("browser-%s-%d-%s.har", time.Now().UTC().Format("20060102T150405.000"), os.Getpid(), id))
	reg := &s.hars
	reg.mu.Lock()
	reg.browserRecs = append(reg.browserRecs, rc)
	reg.redact = s.redactRecording
	reg.mu.Unlock()
}

// harReplayer answers a browser's requests from archives.
type harReplayer struct{ set har.Set }

// Answer implements browser.Replayer.
func (r harReplayer) Answer(info browser.RequestInfo) *browser.ReplayedResponse {
	u, _, _ := strings.Cut(info.URL, "#")
	q := har.Query{URL: u, Method: info.Method, Navigation: info.Navigation}
	for k, v := range headerMap(info.Headers) {
		q.Headers = append(q.Headers, har.NameValue{Name: k, Value: v})
	}
	if info.PostData != nil {
		q.PostData = []byte(*info.PostData)
	}
	ans := r.set.Lookup(q)
	switch {
	case ans.Action == har.ActionRedirect:
		return &browser.ReplayedResponse{Location: ans.RedirectURL}
	case ans.Action != har.ActionFulfill || ans.Status <= 0:
		return nil
	}
	out := &browser.ReplayedResponse{Status: ans.Status, Body: ans.Body}
	for _, h := range ans.Headers {
		switch strings.ToLower(h.Name) {
		case "content-encoding", "content-length", "transfer-encoding":
			continue // the body is kept decoded and whole
		}
		out.Headers = append(out.Headers, [2]string{h.Name, h.Value})
	}
	return out
}
