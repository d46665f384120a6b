package har

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// record plays a page load into a recorder: a document that redirects, its
// stylesheet, an image, and a POST.
func record(t *testing.T, o Options) *Recorder {
	t.Helper()
	r := NewRecorder(o)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	r.Request(RequestStart{Key: "p1:1", Page: "p1", URL: "http://x.test/old", Method: "GET", Headers: map[string]string{"Accept": "text/html"}, ResourceType: "document", Time: at(0)})
	r.Request(RequestStart{Key: "p1:1", Page: "p1", URL: "http://x.test/page?a=1&b=two%20words", Method: "GET", ResourceType: "document", Time: at(5),
		Redirect: &ResponseStart{Status: 302, StatusText: "Found", Headers: map[string]string{"Location": "/page?a=1&b=two%20words"}}})
	r.Response(ResponseStart{Key: "p1:1", Status: 200, StatusText: "OK", Headers: map[string]string{"Content-Type": "text/html; charset=utf-8", "Set-Cookie": "sid=abc; Path=/; HttpOnly\nlang=en"}, Protocol: "h2", RemoteIP: "[::1]", Time: at(20)})
	r.Finished("p1:1", []byte("<html>HAR Page</html>"), at(30))
	r.Request(RequestStart{Key: "p1:2", Page: "p1", URL: "http://x.test/style.css", Method: "GET", ResourceType: "stylesheet", Time: at(31)})
	r.Response(ResponseStart{Key: "p1:2", Status: 200, Headers: map[string]string{"Content-Type": "text/css"}, Time: at(35)})
	r.Finished("p1:2", []byte("body{color:pink}"), at(36))
	r.Request(RequestStart{Key: "p1:3", Page: "p1", URL: "http://x.test/img.png", Method: "GET", ResourceType: "image", Time: at(40)})
	r.Response(ResponseStart{Key: "p1:3", Status: 200, Headers: map[string]string{"Content-Type": "image/png"}, Time: at(41)})
	r.Finished("p1:3", []byte{0x89, 'P', 'N', 'G', 0xff, 0x00}, at(42))
	post := "n=1"
	r.Request(RequestStart{Key: "p1:4", Page: "p1", URL: "http://x.test/echo", Method: "POST", PostData: &post, Headers: map[string]string{"Content-Type": "text/plain"}, Time: at(50)})
	r.Response(ResponseStart{Key: "p1:4", Status: 200, Headers: map[string]string{"Content-Type": "text/plain"}, Time: at(51)})
	r.Finished("p1:4", []byte("1"), at(52))
	r.Request(RequestStart{Key: "p1:5", Page: "p1", URL: "http://x.test/gone", Method: "GET", Time: at(60)})
	r.Failed("p1:5", "net::ERR_CONNECTION_REFUSED", at(61))
	return r
}

func TestRecorderFull(t *testing.T) {
	h, files := record(t, Options{}).Log()
	if len(files) != 0 {
		t.Fatalf("embed attached files: %v", files)
	}
	es := h.Log.Entries
	if len(es) != 6 || h.Log.Version != "1.2" || len(h.Log.Pages) != 1 || es[0].Pageref != h.Log.Pages[0].ID {
		t.Fatalf("log: %d entries, pages %+v", len(es), h.Log.Pages)
	}
	if es[0].Response.Status != 302 || es[0].Response.RedirectURL != "http://x.test/page?a=1&b=two%20words" {
		t.Errorf("redirect entry: %+v", es[0].Response)
	}
	doc := es[1]
	if doc.Response.Content.Text != "<html>HAR Page</html>" || doc.Response.HTTPVersion != "HTTP/2.0" || doc.ServerIPAddress != "::1" {
		t.Errorf("document: %+v", doc.Response)
	}
	if q := doc.Request.QueryString; len(q) != 2 || q[1].Value != "two words" {
		t.Errorf("query string: %+v", q)
	}
	if c := doc.Response.Cookies; len(c) != 2 || c[0].Name != "sid" || !c[0].HTTPOnly {
		t.Errorf("cookies: %+v", c)
	}
	if doc.Timings.Wait != 15 || doc.Timings.Receive != 10 || doc.Time != 25 {
		t.Errorf("timings: %+v time %v", doc.Timings, doc.Time)
	}
	if img := es[3].Response.Content; img.Encoding != "base64" || img.Size != 6 {
		t.Errorf("a binary body is base64: %+v", img)
	}
	if pd := es[4].Request.PostData; pd == nil || pd.Text != "n=1" || es[4].Request.BodySize != 3 {
		t.Errorf("post data: %+v", es[4].Request)
	}
	if es[5].Response.Status != -1 || es[5].FailureText == "" {
		t.Errorf("failed request: %+v", es[5])
	}
}

func TestRecorderMinimalAttachAndFilter(t *testing.T) {
	r := record(t, Options{Minimal: true, Content: ContentAttach, Keep: func(u string) bool { return !strings.HasSuffix(u, ".css") }})
	h, files := r.Log()
	if len(h.Log.Pages) != 0 || len(h.Log.Entries) != 5 {
		t.Fatalf("pages %d, entries %d", len(h.Log.Pages), len(h.Log.Entries))
	}
	doc := h.Log.Entries[1]
	if doc.Request.BodySize != -1 || doc.Pageref != "" || len(doc.Response.Cookies) != 0 {
		t.Errorf("minimal keeps sizes, pages or cookies: %+v", doc)
	}
	c := doc.Response.Content
	if !strings.HasSuffix(c.File, ".html") || c.Text != "" || c.Compression == nil || string(files[c.File]) != "<html>HAR Page</html>" {
		t.Errorf("attached document: %+v (files %v)", c, len(files))
	}
	if !strings.HasSuffix(h.Log.Entries[2].Response.Content.File, ".png") {
		t.Errorf("image file: %q", h.Log.Entries[2].Response.Content.File)
	}
	omit, _ := record(t, Options{Content: ContentOmit}).Log()
	if c := omit.Log.Entries[1].Response.Content; c.Text != "" || c.File != "" || c.Size != 21 {
		t.Errorf("omit: %+v", c)
	}
}

func TestRecorderCapsBodies(t *testing.T) {
	r := NewRecorder(Options{MaxBody: 4})
	r.Request(RequestStart{Key: "k", URL: "http://x.test/big", Method: "GET", Time: time.Now()})
	r.Finished("k", []byte("too long"), time.Now())
	h, _ := r.Log()
	if c := h.Log.Entries[0].Response.Content; c.Text != "" || c.Size != 8 || c.Comment == "" {
		t.Errorf("a body over the cap: %+v", c)
	}
}

func TestWriteOpenLookup(t *testing.T) {
	for _, name := range []string{"a.zip", "a.har"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			h, files := record(t, Options{Content: ContentAttach, Minimal: true}).Log()
			if err := WriteFile(path, h, files); err != nil {
				t.Fatal(err)
			}
			a, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			ans := a.Lookup(Query{URL: "http://x.test/old", Method: "GET", Navigation: true})
			if ans.Action != ActionRedirect || ans.RedirectURL != "http://x.test/page?a=1&b=two%20words" {
				t.Fatalf("navigation through a redirect: %+v", ans)
			}
			ans = a.Lookup(Query{URL: "http://x.test/old", Method: "GET"})
			if ans.Action != ActionFulfill || string(ans.Body) != "<html>HAR Page</html>" {
				t.Fatalf("a subresource follows the redirect: %+v %q", ans, ans.Body)
			}
			if ans := a.Lookup(Query{URL: "http://x.test/img.png", Method: "GET"}); len(ans.Body) != 6 {
				t.Errorf("image: %+v", ans)
			}
			if ans := a.Lookup(Query{URL: "http://x.test/style.css", Method: "POST"}); ans.Action != ActionNoEntry {
				t.Errorf("method must match: %+v", ans)
			}
			if ans := a.Lookup(Query{URL: "http://x.test/echo", Method: "POST", PostData: []byte("n=2")}); ans.Action != ActionNoEntry {
				t.Errorf("post data must match: %+v", ans)
			}
			if ans := a.Lookup(Query{URL: "http://x.test/echo", Method: "POST", PostData: []byte("n=1")}); string(ans.Body) != "1" {
				t.Errorf("post data match: %+v", ans)
			}
		})
	}
}

func TestLookupHeadersMultipartAndCycles(t *testing.T) {
	entry := func(url, status, body string, headers ...NameValue) Entry {
		e := Entry{Request: Request{Method: "POST", URL: url, Headers: headers}, Response: Response{Status: 200, Content: Content{Text: body}}}
		if status != "" {
			e.Response.Status = 302
			e.Response.Headers = []NameValue{{Name: "Location", Value: status}}
		}
		return e
	}
	a := &Archive{Log: Log{Entries: []Entry{
		entry("http://x.test/h", "", "one", nv("foo", "1"), nv("baz", "a")),
		entry("http://x.test/h", "", "two", nv("foo", "1"), nv("baz", "b")),
		entry("http://x.test/loop1", "/loop2", ""),
		{Request: Request{Method: "GET", URL: "http://x.test/loop2"}, Response: Response{Status: 302, Headers: []NameValue{{Name: "location", Value: "/loop1"}}}},
		{Request: Request{Method: "GET", URL: "http://x.test/loop1"}, Response: Response{Status: 302, Headers: []NameValue{{Name: "location", Value: "/loop2"}}}},
	}}}
	if ans := a.Lookup(Query{URL: "http://x.test/h", Method: "POST", Headers: []NameValue{nv("Foo", "1"), nv("baz", "b")}}); string(ans.Body) != "two" {
		t.Errorf("the most headers in common wins: %q", ans.Body)
	}
	if ans := a.Lookup(Query{URL: "http://x.test/h", Method: "POST", Headers: []NameValue{nv("baz", "z")}}); string(ans.Body) != "one" {
		t.Errorf("ties go to the first: %q", ans.Body)
	}
	if ans := a.Lookup(Query{URL: "http://x.test/loop1", Method: "POST"}); ans.Action != ActionError || !strings.Contains(ans.Message, "cycle") {
		t.Errorf("a redirect cycle: %+v", ans)
	}
	mp := &Archive{Log: Log{Entries: []Entry{{
		Request:  Request{Method: "POST", URL: "http://x.test/up", Headers: []NameValue{nv("content-type", "multipart/form-data; boundary=AAA")}, PostData: &PostData{Text: "--AAA\r\nx\r\n--AAA--"}},
		Response: Response{Status: 201, Content: Content{Text: "ok"}},
	}}}}
	ans := mp.Lookup(Query{URL: "http://x.test/up", Method: "POST", Headers: []NameValue{nv("Content-Type", "multipart/form-data; boundary=BBB")}, PostData: []byte("--BBB\r\nx\r\n--BBB--")})
	if ans.Status != 201 {
		t.Errorf("multipart bodies compare without their boundary: %+v", ans)
	}
}

// A hostile archive: attached file names that climb out of its folder, a
// zip without a log, a file that is not JSON. Each is refused, never read.
func TestHostileArchives(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte("do not serve"), 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	h := HAR{Log: Log{Entries: []Entry{{Request: Request{Method: "GET", URL: "http://x.test/"}, Response: Response{Status: 200, Content: Content{File: "../secret.txt"}}}}}}
	data, _ := json.Marshal(h)
	path := filepath.Join(sub, "evil.har")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if ans := a.Lookup(Query{URL: "http://x.test/", Method: "GET"}); ans.Action != ActionError || len(ans.Body) != 0 {
		t.Errorf("a climbing file name was served: %+v %q", ans, ans.Body)
	}
	bad := filepath.Join(dir, "bad.har")
	if err := os.WriteFile(bad, []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "not a HAR") {
		t.Errorf("not JSON: %v", err)
	}
	empty := filepath.Join(dir, "empty.zip")
	f, _ := os.Create(empty)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("note.txt")
	_, _ = w.Write([]byte("hi"))
	_ = zw.Close()
	_ = f.Close()
	if _, err := Open(empty); err == nil {
		t.Error("a zip without a log opened")
	}
	if _, err := Open(filepath.Join(dir, "missing.har")); err == nil {
		t.Error("a missing file opened")
	}
}

func nv(name, value string) NameValue { return NameValue{Name: name, Value: value} }
