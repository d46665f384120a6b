// Package har holds HTTP Archive (HAR 1.2) files: the types, a recorder
// that turns a browser's network events into entries, the writer (a .har
// file, or a .zip with the bodies beside it), and the replay side that
// finds a recorded response for a request as Playwright's route_from_har
// does.
//
// It uses the standard library only, so that any part of wright (the
// trace, bench) can read and write HAR without pulling in the browser.
package har

import (
	"strings"
	"time"
)

// Version is the HAR version written.
const Version = "1.2"

// HAR is a whole file: {"log": ...}.
type HAR struct {
	Log Log `json:"log"`
}

// Log is the archive.
type Log struct {
	Version string   `json:"version"`
	Creator Creator  `json:"creator"`
	Browser *Creator `json:"browser,omitempty"`
	Pages   []Page   `json:"pages,omitempty"`
	Entries []Entry  `json:"entries"`
	Comment string   `json:"comment,omitempty"`
}

// Creator names the program that wrote the log (or the browser).
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Comment string `json:"comment,omitempty"`
}

// Page is one page (a browser tab's document) entries belong to.
type Page struct {
	StartedDateTime time.Time   `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
	Comment         string      `json:"comment,omitempty"`
}

// PageTimings are milliseconds since the page started; -1 is unknown.
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
	Comment       string  `json:"comment,omitempty"`
}

// Entry is one request and its response.
type Entry struct {
	Pageref         string    `json:"pageref,omitempty"`
	StartedDateTime time.Time `json:"startedDateTime"`
	Time            float64   `json:"time"` // ms, the sum of the timings that are known
	Request         Request   `json:"request"`
	Response        Response  `json:"response"`
	Cache           Cache     `json:"cache"`
	Timings         Timings   `json:"timings"`
	ServerIPAddress string    `json:"serverIPAddress,omitempty"`
	Connection      string    `json:"connection,omitempty"`
	Comment         string    `json:"comment,omitempty"`

	// Custom fields (HAR allows names starting with "_"), as Playwright writes them.
	ResourceType string `json:"_resourceType,omitempty"`
	FailureText  string `json:"_failureText,omitempty"`
}

// Request is what was sent.
type Request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	QueryString []NameValue `json:"queryString"`
	PostData    *PostData   `json:"postData,omitempty"`
	HeadersSize int64       `json:"headersSize"` // -1: unknown
	BodySize    int64       `json:"bodySize"`    // -1: unknown
	Comment     string      `json:"comment,omitempty"`
}

// Response is what came back.
type Response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []Cookie    `json:"cookies"`
	Headers     []NameValue `json:"headers"`
	Content     Content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int64       `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

// Cookie is a cookie sent or set.
type Cookie struct {
	Name     string     `json:"name"`
	Value    string     `json:"value"`
	Path     string     `json:"path,omitempty"`
	Domain   string     `json:"domain,omitempty"`
	Expires  *time.Time `json:"expires,omitempty"`
	HTTPOnly bool       `json:"httpOnly,omitempty"`
	Secure   bool       `json:"secure,omitempty"`
	SameSite string     `json:"sameSite,omitempty"`
	Comment  string     `json:"comment,omitempty"`
}

// NameValue is a header or a query parameter.
type NameValue struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Comment string `json:"comment,omitempty"`
}

// PostData is a request's body. Text holds it (or, with File, the body is
// the attached file of that name).
type PostData struct {
	MimeType string  `json:"mimeType"`
	Params   []Param `json:"params"`
	Text     string  `json:"text"`
	File     string  `json:"_file,omitempty"`
	Comment  string  `json:"comment,omitempty"`
}

// Param is a posted form field.
type Param struct {
	Name        string `json:"name"`
	Value       string `json:"value,omitempty"`
	FileName    string `json:"fileName,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Comment     string `json:"comment,omitempty"`
}

// Content is a response body: in Text (base64 when Encoding says so), in
// an attached file named by File, or left out.
type Content struct {
	Size        int64  `json:"size"`
	Compression *int64 `json:"compression,omitempty"`
	MimeType    string `json:"mimeType"`
	Text        string `json:"text,omitempty"`
	Encoding    string `json:"encoding,omitempty"`
	File        string `json:"_file,omitempty"`
	Comment     string `json:"comment,omitempty"`
}

// Cache is what the browser cache knew; wright records none.
type Cache struct {
	Comment string `json:"comment,omitempty"`
}

// Timings are the phases of an entry in milliseconds; -1 is unknown (send,
// wait and receive are always given).
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
	Comment string  `json:"comment,omitempty"`
}

// Header returns the value of the first header named name (any case), or "".
func Header(hs []NameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
