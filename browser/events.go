package browser

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Event is something a page did that clients may listen to (PROTOCOL.md,
// "Events"): Method names it (page.console, page.request, ...), Params
// always carry the page id.
type Event struct {
	Method string
	Params map[string]any
}

// eventHub fans a browser's events out to its subscribers (one per client
// connection that asked for them).
type eventHub struct {
	mu   sync.Mutex
	subs map[int]func(Event)
	next int
	// dialogs counts subscribers that answer dialogs themselves; while it
	// is positive the driver leaves dialogs open for them.
	dialogs atomic.Int32
}

// Subscribe delivers every event of the browser to f until cancel is called.
// f runs on the page's event goroutine: it must not block for long. With
// dialogs, the subscriber answers dialogs (page.dialog) itself.
func (b *Browser) Subscribe(f func(Event), dialogs bool) (cancel func()) {
	h := &b.hub
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[int]func(Event){}
	}
	id := h.next
	h.next++
	h.subs[id] = f
	h.mu.Unlock()
	if dialogs {
		h.dialogs.Add(1)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.subs, id)
			h.mu.Unlock()
			if dialogs {
				h.dialogs.Add(-1)
			}
		})
	}
}

func (b *Browser) emit(method string, params map[string]any) {
	h := &b.hub
	h.mu.Lock()
	if len(h.subs) == 0 {
		h.mu.Unlock()
		return
	}
	fs := make([]func(Event), 0, len(h.subs))
	for _, f := range h.subs {
		fs = append(fs, f)
	}
	h.mu.Unlock()
	for _, f := range fs {
		f(Event{Method: method, Params: params})
	}
}

func (b *Browser) hasSubscribers() bool {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return len(b.hub.subs) > 0
}

// clientDialogs reports whether a subscriber answers dialogs.
func (b *Browser) clientDialogs() bool { return b.hub.dialogs.Load() > 0 }

func (p *Page) emit(method string, params map[string]any) {
	params["page"] = p.id
	if p.opener != "" {
		// A popup's first events may arrive before browser.page announces
		// it: the opener lets the client place it in its context at once.
		params["opener"] = p.opener
	}
	p.b.emit(method, params)
}

// observe turns the page's CDP events into client events.
func (p *Page) observe(msg *rod.Message) {
	if !p.b.hasSubscribers() {
		return
	}
	switch msg.Method {
	case "Runtime.consoleAPICalled":
		var e proto.RuntimeConsoleAPICalled
		if msg.Load(&e) {
			p.emitConsole(&e)
		}
	case "Runtime.exceptionThrown":
		var e proto.RuntimeExceptionThrown
		if msg.Load(&e) && e.ExceptionDetails != nil {
			p.emitPageError(e.ExceptionDetails)
		}
	case "Log.entryAdded":
		var e proto.LogEntryAdded
		if msg.Load(&e) && e.Entry != nil {
			p.emitLogEntry(e.Entry)
		}
	case "Page.javascriptDialogOpening":
		var e proto.PageJavascriptDialogOpening
		if msg.Load(&e) {
			p.emit("page.dialog", map[string]any{"type": string(e.Type), "message": e.Message, "default_value": e.DefaultPrompt})
		}
	case "Page.lifecycleEvent":
		var e proto.PageLifecycleEvent
		if msg.Load(&e) && e.FrameID == p.mainFrame() && (e.Name == "load" || e.Name == "DOMContentLoaded") {
			p.emit("page."+strings.ToLower(string(e.Name)), map[string]any{})
		}
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if msg.Load(&e) {
			p.emit("page.framenavigated", map[string]any{"url": e.Frame.URL + e.Frame.URLFragment, "main": e.Frame.ParentID == "", "name": e.Frame.Name,
				"frame": string(e.Frame.ID)})
		}
	case "Page.navigatedWithinDocument":
		var e proto.PageNavigatedWithinDocument
		if msg.Load(&e) {
			p.emit("page.framenavigated", map[string]any{"url": e.URL, "main": e.FrameID == p.mainFrame(), "same_document": true})
		}
	case "Page.fileChooserOpened":
		var e proto.PageFileChooserOpened
		if msg.Load(&e) {
			p.emitFileChooser(&e)
		}
	case "Runtime.bindingCalled":
		var e proto.RuntimeBindingCalled
		if msg.Load(&e) && strings.HasPrefix(e.Name, bindingPrefix) {
			p.emit("page.binding", map[string]any{"name": strings.TrimPrefix(e.Name, bindingPrefix),
				"payload": e.Payload, "context": int(e.ExecutionContextID)})
		}
	case "Network.requestWillBeSent":
		var e proto.NetworkRequestWillBeSent
		if msg.Load(&e) {
			p.emitRequest(&e)
		}
	default:
		p.observeFrames(msg)
	case "Network.responseReceived":
		var e proto.NetworkResponseReceived
		if msg.Load(&e) {
			p.emit("page.response", map[string]any{
				"request": string(e.RequestID), "url": e.Response.URL, "status": e.Response.Status,
				"status_text": e.Response.StatusText, "headers": e.Response.Headers, "from_cache": e.Response.FromDiskCache,
				"remote_ip": e.Response.RemoteIPAddress, "remote_port": e.Response.RemotePort, "protocol": e.Response.Protocol,
				"security": securityDetails(e.Response.SecurityDetails),
			})
		}
	case "Network.loadingFinished":
		var e proto.NetworkLoadingFinished
		if msg.Load(&e) {
			p.emit("page.requestfinished", map[string]any{"request": string(e.RequestID)})
		}
	case "Network.loadingFailed":
		var e proto.NetworkLoadingFailed
		if msg.Load(&e) {
			p.emit("page.requestfailed", map[string]any{"request": string(e.RequestID), "error": e.ErrorText, "canceled": e.Canceled})
		}
	}
}

func (p *Page) emitConsole(e *proto.RuntimeConsoleAPICalled) {
	url, line, col := "", 0, 0
	if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
		f := e.StackTrace.CallFrames[0]
		url, line, col = f.URL, f.LineNumber, f.ColumnNumber
	}
	args := make([]map[string]any, 0, len(e.Args))
	for _, a := range e.Args {
		args = append(args, map[string]any{"handle": string(a.ObjectID), "type": string(a.Type), "subtype": string(a.Subtype),
			"value": evalResult(a), "description": a.Description})
	}
	p.emit("page.console", map[string]any{"type": consoleType(string(e.Type)), "text": formatConsoleArgs(e.Args),
		"url": url, "line": line, "column": col, "args": args})
}

func (p *Page) emitPageError(d *proto.RuntimeExceptionDetails) {
	msg, name, stack := strings.TrimPrefix(d.Text, "Uncaught "), "Error", ""
	x := d.Exception
	switch {
	case x != nil && x.Subtype == proto.RuntimeRemoteObjectSubtypeNull:
		msg, name = "null", ""
	case x != nil && x.Type == proto.RuntimeRemoteObjectTypeUndefined:
		msg, name = "undefined", ""
	case x != nil && x.Subtype != proto.RuntimeRemoteObjectSubtypeError && x.Type == proto.RuntimeRemoteObjectTypeObject:
		// A thrown non-Error object ({} or window): no name, its description.
		msg, name = x.Description, ""
	case x != nil && x.Subtype == proto.RuntimeRemoteObjectSubtypeError:
		// "name: message" on the first line names the error, whatever its class
		// (error.name = "my-name" keeps the class Error).
		stack = x.Description
		first := strings.SplitN(stack, "\n", 2)[0]
		name, msg = first, ""
		if i := strings.Index(first, ": "); i >= 0 {
			name, msg = first[:i], first[i+2:]
		}
	case x != nil:
		msg, name, stack = pageErrorOf(x, name)
	}
	url, line, col := d.URL, d.LineNumber, d.ColumnNumber
	if d.StackTrace != nil && len(d.StackTrace.CallFrames) > 0 {
		f := d.StackTrace.CallFrames[0]
		url, line, col = f.URL, f.LineNumber, f.ColumnNumber
	}
	p.emit("page.pageerror", map[string]any{"message": msg, "name": name, "stack": stack,
		"url": url, "line": line, "column": col})
}

// pageErrorOf reads message, name and stack from a thrown value that is
// neither an Error nor an object (a string, a number).
func pageErrorOf(x *proto.RuntimeRemoteObject, name string) (msg, outName, stack string) {
	if x.ClassName != "" {
		name = x.ClassName
	}
	desc := x.Description
	if desc == "" && !x.Value.Nil() {
		desc = x.Value.String()
		name = ""
	}
	stack = desc
	first := strings.SplitN(desc, "\n", 2)[0]
	switch {
	case name != "" && strings.HasPrefix(first, name+": "):
		msg = strings.TrimPrefix(first, name+": ")
	case name != "" && first == name:
		msg = ""
	default:
		msg = first
	}
	return msg, name, stack
}

func (p *Page) emitRequest(e *proto.NetworkRequestWillBeSent) {
	if strings.HasPrefix(e.Request.URL, "data:") {
		return // data: URLs are no requests to the network (Playwright reports none)
	}
	params := map[string]any{
		"request": string(e.RequestID), "url": e.Request.URL, "method": e.Request.Method,
		"headers": e.Request.Headers, "resource_type": strings.ToLower(string(e.Type)),
		"navigation": e.Type == proto.NetworkResourceTypeDocument && string(e.LoaderID) == string(e.RequestID),
		"frame":      string(e.FrameID), "main_frame": e.FrameID == p.mainFrame(),
	}
	if e.Request.HasPostData {
		var data string
		for _, entry := range e.Request.PostDataEntries {
			data += string(entry.Bytes)
		}
		params["post_data"] = data
	}
	if e.RedirectResponse != nil {
		params["redirect_status"] = e.RedirectResponse.Status
		params["redirect_headers"] = e.RedirectResponse.Headers
		params["redirect_status_text"] = e.RedirectResponse.StatusText
	}
	p.emit("page.request", params)
}
