package browser

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/go-rod/rod/lib/proto"
)

// Event is something that happened in the browser that a client may listen
// to: one of the *...Event types below. Their fields carry the protocol's
// JSON names; which wire method each one is (page.console, page.request,
// ...) is the driver's to say (driver/PROTOCOL.md, "Events").
type Event interface{ event() }

// PageEvent is what every page event carries: the page, and its opener
// for a popup (whose first events may arrive before browser.page
// announces it, so the client can place it in its context at once).
type PageEvent struct {
	Page   string `json:"page"`
	Opener string `json:"opener,omitempty"`
}

func (*PageEvent) event() {}

func (e *PageEvent) header() *PageEvent { return e }

// pageEvent is an event Page.emit stamps with its page.
type pageEvent interface {
	Event
	header() *PageEvent
}

// PageOpenedEvent: a page opened (popups included); Opener is "" for none.
// Context names the client's context of a page one of its pages opened
// without an opener (a shift- or ctrl-click on a link).
type PageOpenedEvent struct {
	Page    string `json:"page"`
	Opener  string `json:"opener"`
	Context string `json:"context,omitempty"`
}

func (*PageOpenedEvent) event() {}

// PageClosedEvent: the page closed, and why.
type PageClosedEvent struct {
	PageEvent
	Reason string `json:"reason"`
}

// LoadEvent: the main frame fired load, or DOMContentLoaded when
// DOMContentLoaded is set.
type LoadEvent struct {
	PageEvent
	DOMContentLoaded bool `json:"-"`
}

// FrameAttachedEvent: a child frame was attached.
type FrameAttachedEvent struct {
	PageEvent
	Frame      string `json:"frame"`
	Parent     string `json:"parent"`
	ParentMain bool   `json:"parent_main"`
}

// FrameDetachedEvent: a child frame was detached.
type FrameDetachedEvent struct {
	PageEvent
	Frame string `json:"frame"`
}

// FrameNavigatedEvent: a frame committed a navigation to a new document.
type FrameNavigatedEvent struct {
	PageEvent
	URL   string `json:"url"`
	Main  bool   `json:"main"`
	Name  string `json:"name"`
	Frame string `json:"frame"`
}

// SameDocumentNavigationEvent: a frame's URL changed within its document
// (a fragment, the History API); on the wire a framenavigated too.
type SameDocumentNavigationEvent struct {
	PageEvent
	URL          string `json:"url"`
	Main         bool   `json:"main"`
	SameDocument bool   `json:"same_document"` // always true
}

// DialogEvent: a dialog opened.
type DialogEvent struct {
	PageEvent
	Type         string `json:"type"`
	Message      string `json:"message"`
	DefaultValue string `json:"default_value"`
}

// ConsoleEvent: a console message (console.* calls, and the browser's own
// log entries).
type ConsoleEvent struct {
	PageEvent
	Type   string       `json:"type"`
	Text   string       `json:"text"`
	URL    string       `json:"url"`
	Line   int          `json:"line"`
	Column int          `json:"column"`
	Args   []ConsoleArg `json:"args"`
	Worker string       `json:"worker,omitempty"` // the page's worker that logged it, if one did
}

// ConsoleArg is one argument of a console call, with a handle on it.
type ConsoleArg struct {
	Handle      string          `json:"handle"`
	Type        string          `json:"type"`
	Subtype     string          `json:"subtype"`
	Value       json.RawMessage `json:"value"`
	Description string          `json:"description"`
}

// PageErrorEvent: an uncaught exception.
type PageErrorEvent struct {
	PageEvent
	Message string `json:"message"`
	Name    string `json:"name"`
	Stack   string `json:"stack"`
	URL     string `json:"url"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// BindingEvent: the page called an exposed binding.
type BindingEvent struct {
	PageEvent
	Name    string `json:"name"`
	Payload string `json:"payload"`
	Context int    `json:"context"`
}

// FileChooserEvent: a file input opened its chooser while choosers are
// intercepted.
type FileChooserEvent struct {
	PageEvent
	Handle   string `json:"handle"`
	Multiple bool   `json:"multiple"`
}

// DownloadEvent: a download began.
type DownloadEvent struct {
	PageEvent
	Download          string `json:"download"`
	URL               string `json:"url"`
	SuggestedFilename string `json:"suggested_filename"`
}

// LocatorHandlerEvent: the client is to run locator handler UID now.
type LocatorHandlerEvent struct {
	PageEvent
	UID int `json:"uid"`
}

// RequestInfo is what request and route events say of a request.
type RequestInfo struct {
	Request      string               `json:"request"`
	URL          string               `json:"url"`
	Method       string               `json:"method"`
	Headers      proto.NetworkHeaders `json:"headers"`
	ResourceType string               `json:"resource_type"`
	Navigation   bool                 `json:"navigation"`
	PostData     *string              `json:"post_data,omitempty"` // nil: the request has no body
	// PostDataB64 is the body's bytes in base64 when they are not UTF-8
	// text (JSON would carry each invalid byte as U+FFFD).
	PostDataB64 *string `json:"post_data_b64,omitempty"`
}

// requestInfo describes r, sent as request id with its URL as given.
func requestInfo(id, url string, r *proto.NetworkRequest, typ proto.NetworkResourceType, navigation bool) RequestInfo {
	info := RequestInfo{Request: id, URL: url, Method: r.Method, Headers: r.Headers,
		ResourceType: strings.ToLower(string(typ)), Navigation: navigation, PostData: postData(r)}
	if info.PostData != nil && !utf8.ValidString(*info.PostData) {
		b := base64.StdEncoding.EncodeToString([]byte(*info.PostData))
		info.PostDataB64 = &b
	}
	return info
}

// RequestEvent: the page sent a request (a redirect is a new one).
type RequestEvent struct {
	PageEvent
	RequestInfo
	Frame     string `json:"frame"`
	MainFrame bool   `json:"main_frame"`
	// WallTime (seconds since the epoch) and Timestamp (Chromium's
	// monotonic clock, seconds) say when it was sent: a response's timing
	// is on the monotonic clock, and the client needs both to place it.
	WallTime  float64 `json:"wall_time"`
	Timestamp float64 `json:"timestamp"`
	*Redirect         // the response that redirected to this request, if any
}

// Redirect is the redirect response a request followed.
type Redirect struct {
	Status     int                  `json:"redirect_status"`
	Headers    proto.NetworkHeaders `json:"redirect_headers"`
	StatusText string               `json:"redirect_status_text"`
	// Timing is the redirect response's resource timing; it ended at this
	// request's Timestamp.
	Timing *proto.NetworkResourceTiming `json:"redirect_timing,omitempty"`
}

// RouteEvent: a routed request waits for the client's continue, fulfill
// or abort.
type RouteEvent struct {
	PageEvent
	Route string `json:"route"`
	RequestInfo
}

// ResponseEvent: a response's headers arrived.
type ResponseEvent struct {
	PageEvent
	Request    string               `json:"request"`
	URL        string               `json:"url"`
	Status     int                  `json:"status"`
	StatusText string               `json:"status_text"`
	Headers    proto.NetworkHeaders `json:"headers"`
	FromCache  bool                 `json:"from_cache"`
	// FromServiceWorker: a service worker of the page answered it.
	FromServiceWorker bool           `json:"from_service_worker,omitempty"`
	RemoteIP          string         `json:"remote_ip"`
	RemotePort        *int           `json:"remote_port"`
	Protocol          string         `json:"protocol"`
	Security          map[string]any `json:"security"` // nil for plain HTTP
	// Timing is Chromium's resource timing (ms after its requestTime, -1
	// where not measured); nil for a response from a cache or a route.
	Timing *proto.NetworkResourceTiming `json:"timing,omitempty"`
}

// RequestFinishedEvent: a request's body finished loading, at Timestamp
// (Chromium's monotonic clock, seconds: the end of the response's timing).
type RequestFinishedEvent struct {
	PageEvent
	Request   string  `json:"request"`
	Timestamp float64 `json:"timestamp"`
}

// RequestFailedEvent: a request failed (or was canceled).
type RequestFailedEvent struct {
	PageEvent
	Request  string `json:"request"`
	Error    string `json:"error"`
	Canceled bool   `json:"canceled"`
}
