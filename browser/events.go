package browser

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

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

func (b *Browser) emit(ev Event) {
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
		f(ev)
	}
}

func (b *Browser) hasSubscribers() bool {
	b.hub.mu.Lock()
	defer b.hub.mu.Unlock()
	return len(b.hub.subs) > 0
}

// clientDialogs reports whether a subscriber answers dialogs.
func (b *Browser) clientDialogs() bool { return b.hub.dialogs.Load() > 0 }

func (p *Page) emit(ev pageEvent) {
	h := ev.header()
	h.Page, h.Opener = p.id, p.opener
	p.b.emit(ev)
}

// observe turns the page's CDP events into client events.
func (p *Page) observe(msg *rod.Message) {
	if p.observeWebSocket(msg) { // before the check: the socket table is kept for later subscribers too
		return
	}
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
			p.emit(&DialogEvent{Type: string(e.Type), Message: e.Message, DefaultValue: e.DefaultPrompt})
		}
	case "Page.lifecycleEvent":
		var e proto.PageLifecycleEvent
		if msg.Load(&e) && e.FrameID == p.mainFrame() && (e.Name == "load" || e.Name == "DOMContentLoaded") {
			p.emit(&LoadEvent{DOMContentLoaded: e.Name == "DOMContentLoaded"})
		}
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if msg.Load(&e) {
			p.emit(&FrameNavigatedEvent{URL: e.Frame.URL + e.Frame.URLFragment, Main: e.Frame.ParentID == "", Name: e.Frame.Name,
				Frame: string(e.Frame.ID)})
		}
	case "Page.navigatedWithinDocument":
		var e proto.PageNavigatedWithinDocument
		if msg.Load(&e) {
			p.emit(&SameDocumentNavigationEvent{URL: e.URL, Main: e.FrameID == p.mainFrame(), SameDocument: true})
		}
	case "Page.fileChooserOpened":
		var e proto.PageFileChooserOpened
		if msg.Load(&e) {
			p.emitFileChooser(&e)
		}
	case "Runtime.bindingCalled":
		var e proto.RuntimeBindingCalled
		if msg.Load(&e) && strings.HasPrefix(e.Name, bindingPrefix) {
			p.emit(&BindingEvent{Name: strings.TrimPrefix(e.Name, bindingPrefix),
				Payload: e.Payload, Context: int(e.ExecutionContextID)})
		}
	case "Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed",
		"Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo":
		p.observeNetwork(msg)
	default:
		p.observeFrames(msg)
	}
}

func (p *Page) emitConsole(e *proto.RuntimeConsoleAPICalled) { p.emitConsoleOf(e, "") }

// emitConsoleOf emits a console message of the page, or of its worker.
func (p *Page) emitConsoleOf(e *proto.RuntimeConsoleAPICalled, worker string) {
	url, line, col := "", 0, 0
	if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
		f := e.StackTrace.CallFrames[0]
		url, line, col = f.URL, f.LineNumber, f.ColumnNumber
	}
	args := make([]ConsoleArg, 0, len(e.Args))
	for _, a := range e.Args {
		args = append(args, ConsoleArg{Handle: string(a.ObjectID), Type: string(a.Type), Subtype: string(a.Subtype),
			Value: evalResult(a), Description: a.Description})
	}
	p.emit(&ConsoleEvent{Type: consoleType(string(e.Type)), Text: formatConsoleArgs(e.Args),
		URL: url, Line: line, Column: col, Args: args, Worker: worker})
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
	p.emit(&PageErrorEvent{Message: msg, Name: name, Stack: stack,
		URL: url, Line: line, Column: col})
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

// InterceptFileChooser makes a file chooser the page opens (a click on an
// <input type=file>) a page.filechooser event instead of a dialog; the
// client then sets the files on the input the event names.
func (p *Page) InterceptFileChooser(ctx context.Context, enabled bool) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.PageSetInterceptFileChooserDialog{Enabled: enabled}); err != nil {
		return o.fail(err, "")
	}
	return nil
}

// emitFileChooser reports an intercepted file chooser with a handle on its
// input. It runs off the page's event pump: resolving the node is a call.
func (p *Page) emitFileChooser(e *proto.PageFileChooserOpened) {
	p.b.wg.Add(1)
	go func() {
		defer p.b.wg.Done()
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		defer cancel()
		node, err := proto.DOMResolveNode{BackendNodeID: e.BackendNodeID, ObjectGroup: handleGroup}.Call(p.rod.Context(ctx))
		if err != nil || node.Object == nil {
			return
		}
		p.emit(&FileChooserEvent{Handle: string(node.Object.ObjectID),
			Multiple: e.Mode == proto.PageFileChooserOpenedModeSelectMultiple})
	}()
}

// Event order. Chromium sends what a call caused (a console message, an
// exposed function called from a focus handler) before the call's answer,
// but the page's events reach clients through the event pump, while the
// answer goes straight back: a client could see the answer first, and
// Playwright's sync API promises the listeners ran by then. FlushEvents is
// the barrier: a binding of wright's world, called now, comes back
// through the same pump after everything Chromium sent before it.

const flushBinding = "__wright_flush"

// flushLimit bounds the barrier: a page held by a dialog or a busy script
// does not answer it, and the call it follows must not wait for that.
const flushLimit = 250 * time.Millisecond

type flusher struct {
	once  sync.Once
	added error
	mu    sync.Mutex
	seq   int
	wait  map[string]chan struct{}
}

// FlushEvents returns once the page's events sent before the call have
// been delivered to subscribers (or after a short limit).
func (p *Page) FlushEvents(ctx context.Context) {
	if p.closedErr() != nil || !p.b.hasSubscribers() {
		return
	}
	o := p.begin(ctx, flushLimit)
	defer o.end()
	f := &p.flush
	f.once.Do(func() {
		f.added = callCDP(o.rodPage(), proto.RuntimeAddBinding{Name: flushBinding, ExecutionContextName: worldName})
	})
	if f.added != nil {
		return
	}
	ec, err := p.main(o)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.seq++
	id := strconv.Itoa(f.seq)
	done := make(chan struct{})
	if f.wait == nil {
		f.wait = map[string]chan struct{}{}
	}
	f.wait[id] = done
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.wait, id)
		f.mu.Unlock()
	}()
	if _, err := (proto.RuntimeEvaluate{Expression: flushBinding + "('" + id + "')", ContextID: ec.id}).Call(o.rodPage()); err != nil {
		return
	}
	select {
	case <-done:
	case <-o.ctx.Done():
	}
}

// flushed is the pump's side of the barrier.
func (p *Page) flushed(msg *rod.Message) {
	var e proto.RuntimeBindingCalled
	if !msg.Load(&e) || e.Name != flushBinding {
		return
	}
	f := &p.flush
	f.mu.Lock()
	if ch, ok := f.wait[e.Payload]; ok {
		close(ch)
		delete(f.wait, e.Payload)
	}
	f.mu.Unlock()
}

// ConsoleMessage is one console API call of a page.
type ConsoleMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url"`
	Line int    `json:"line"`

	doc proto.NetworkLoaderID // the main frame's document when it was logged
}

// PageError is an uncaught exception of a page.
type PageError struct {
	Message string `json:"message"`
	Stack   string `json:"stack"`

	doc proto.NetworkLoaderID // the main frame's document when it was thrown
}

// Dialog is an alert, confirm, prompt or beforeunload dialog; all are
// accepted as they open (a prompt with its default value).
type Dialog struct {
	Type         string `json:"type"`
	Message      string `json:"message"`
	DefaultValue string `json:"default_value"`
}

// maxLog bounds each per-page log so a chatty page cannot grow the driver
// without limit; the oldest entries go first.
const maxLog = 2000

func appendCapped[T any](s []T, v T) []T {
	if len(s) >= maxLog {
		s = append(s[:0], s[len(s)-maxLog+1:]...)
	}
	return append(s, v)
}

func consoleType(t string) string {
	switch t {
	case "warning":
		return "warning"
	case "assert":
		return "assert"
	}
	return t
}

func (p *Page) addConsole(typ, text, url string, line int) {
	p.mu.Lock()
	p.console = appendCapped(p.console, ConsoleMessage{Type: typ, Text: text, URL: url, Line: line, doc: p.loader})
	p.broadcastLocked()
	p.mu.Unlock()
}

func (p *Page) addPageError(d *proto.RuntimeExceptionDetails) {
	msg, stack := d.Text, ""
	if d.Exception != nil {
		desc := d.Exception.Description
		if desc == "" && d.Exception.Value.Nil() == false {
			desc = d.Exception.Value.String()
		}
		if desc == "" && d.Exception.Subtype == proto.RuntimeRemoteObjectSubtypeNull {
			desc = "null"
		} else if desc == "" && d.Exception.Type == proto.RuntimeRemoteObjectTypeUndefined {
			desc = "undefined"
		}
		if desc != "" {
			stack = desc
			msg = strings.SplitN(desc, "\n", 2)[0]
		}
	}
	msg = strings.TrimPrefix(msg, "Uncaught ")
	p.mu.Lock()
	p.errors = appendCapped(p.errors, PageError{Message: msg, Stack: stack, doc: p.loader})
	p.broadcastLocked()
	p.mu.Unlock()
}

// formatConsoleArgs renders console arguments the way a person reads them.
func formatConsoleArgs(args []*proto.RuntimeRemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, formatRemote(a))
	}
	return strings.Join(parts, " ")
}

func formatRemote(a *proto.RuntimeRemoteObject) string {
	switch a.Type {
	case proto.RuntimeRemoteObjectTypeString:
		return a.Value.Str()
	case proto.RuntimeRemoteObjectTypeUndefined:
		return "undefined"
	case proto.RuntimeRemoteObjectTypeNumber, proto.RuntimeRemoteObjectTypeBoolean, proto.RuntimeRemoteObjectTypeBigint:
		if a.UnserializableValue != "" {
			return string(a.UnserializableValue)
		}
		return a.Value.JSON("", "")
	case proto.RuntimeRemoteObjectTypeObject:
		if a.Subtype == proto.RuntimeRemoteObjectSubtypeNull {
			return "null"
		}
		// Plain objects and arrays show their contents; anything else its
		// class (Window, Promise, Map(2)), as Playwright's console text does.
		plain := a.Description == "Object" || a.Subtype == proto.RuntimeRemoteObjectSubtypeArray
		if a.Preview != nil && plain {
			return formatPreview(a.Preview)
		}
	}
	return a.Description
}

func formatPreview(pv *proto.RuntimeObjectPreview) string {
	var b strings.Builder
	arr := pv.Subtype == proto.RuntimeObjectPreviewSubtypeArray
	if arr {
		b.WriteString("[")
	} else {
		b.WriteString("{")
	}
	for i, prop := range pv.Properties {
		if i > 0 {
			b.WriteString(", ")
		}
		if !arr {
			b.WriteString(prop.Name + ": ")
		}
		// Strings unquoted, as Playwright's console text shows them: {foo: bar}.
		b.WriteString(prop.Value)
	}
	if pv.Overflow {
		b.WriteString(", ...")
	}
	if arr {
		b.WriteString("]")
	} else {
		b.WriteString("}")
	}
	return b.String()
}

// ---- logs --------------------------------------------------------------------

// ConsoleMessages returns the console messages since the page opened or the
// last clear.
func (p *Page) ConsoleMessages(clear bool) []ConsoleMessage {
	return takeLog(&p.mu, &p.console, clear)
}

// PageErrors returns the uncaught exceptions since the page opened or the
// last clear.
func (p *Page) PageErrors(clear bool) []PageError {
	return takeLog(&p.mu, &p.errors, clear)
}

// ConsoleMessagesOfDocument is ConsoleMessages less those logged before the
// main frame's current document (Playwright's filter "since-navigation").
func (p *Page) ConsoleMessagesOfDocument(clear bool) []ConsoleMessage {
	return ofDocument(p, p.ConsoleMessages(clear), func(m ConsoleMessage) proto.NetworkLoaderID { return m.doc })
}

// PageErrorsOfDocument is PageErrors of the main frame's current document.
func (p *Page) PageErrorsOfDocument(clear bool) []PageError {
	return ofDocument(p, p.PageErrors(clear), func(e PageError) proto.NetworkLoaderID { return e.doc })
}

func ofDocument[T any](p *Page, log []T, doc func(T) proto.NetworkLoaderID) []T {
	p.mu.Lock()
	cur := p.loader
	p.mu.Unlock()
	var out []T
	for _, v := range log {
		if doc(v) == cur {
			out = append(out, v)
		}
	}
	return out
}

// Dialogs returns the dialogs since the page opened or the last clear.
func (p *Page) Dialogs(clear bool) []Dialog {
	return takeLog(&p.mu, &p.dialogs, clear)
}

// takeLog copies a page's log under its lock, emptying it when clear is set.
func takeLog[T any](mu *sync.Mutex, log *[]T, clear bool) []T {
	mu.Lock()
	defer mu.Unlock()
	out := append([]T{}, *log...)
	if clear {
		*log = nil
	}
	return out
}

// AnswerDialog accepts or dismisses the dialog open on the page; promptText
// (accept only) replaces a prompt's default value.
func (p *Page) AnswerDialog(ctx context.Context, accept bool, promptText *string) error {
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	req := proto.PageHandleJavaScriptDialog{Accept: accept}
	if promptText != nil {
		req.PromptText = *promptText
	}
	if err := req.Call(o.rodPage()); err != nil {
		return wrapErr(ErrInvalidParams, err, "no dialog to answer: %s", cdpMessage(err))
	}
	return nil
}

// A function that wright compiles with Runtime.callFunctionOn counts as
// foreign code to Chromium: an error it throws later (from a timer's
// callback) reaches pageerror as text only, "[object Object]", without the
// thrown value. A function compiled by eval from a script that
// Runtime.evaluate compiled is not, and its errors carry the value (a
// thrown {} reads "Object", an Error keeps its own name). A page whose CSP
// forbids eval, or has replaced it, gets the function as callFunctionOn
// compiled it.
const compilerJS = `((ev) => (src, direct) => {
  let f;
  try { f = ev('(' + src + '\n)'); } catch (e) { return direct(); }
  return typeof f === 'function' ? f : direct();
})(globalThis.eval)`

// evalCompiler returns the compiler of the main frame's main world, made
// once per document.
func (p *Page) evalCompiler(o *op, ec *execCtx) (proto.RuntimeRemoteObjectID, error) {
	p.mu.Lock()
	c := ec.compiler
	p.mu.Unlock()
	if c != "" {
		return c, nil
	}
	res, err := proto.RuntimeEvaluate{Expression: compilerJS, ObjectGroup: engineGroup}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	if res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return "", nil // no compiler: functions are compiled as before
	}
	p.mu.Lock()
	ec.compiler = res.Result.ObjectID
	p.mu.Unlock()
	return res.Result.ObjectID, nil
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// emitLogEntry reports a message of the browser itself (a CORS refusal, a
// resource that failed to load, an intervention) as a console message of
// its level, as Playwright does; a worker's entries are left out.
func (p *Page) emitLogEntry(e *proto.LogLogEntry) {
	if e.Source == proto.LogLogEntrySourceWorker {
		return
	}
	line := 0
	if e.LineNumber != nil {
		line = *e.LineNumber
	}
	p.emit(&ConsoleEvent{Type: string(e.Level), Text: e.Text, URL: e.URL, Line: line,
		Column: 0, Args: []ConsoleArg{}})
}

// recordLog keeps the page's console messages, page errors and dialogs
// from its CDP events (Page.pump), and accepts a dialog no client answers.
func (p *Page) recordLog(msg *rod.Message) {
	switch msg.Method {
	case "Runtime.consoleAPICalled":
		var e proto.RuntimeConsoleAPICalled
		if msg.Load(&e) {
			url, line := "", 0
			if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
				url, line = e.StackTrace.CallFrames[0].URL, e.StackTrace.CallFrames[0].LineNumber+1
			}
			p.addConsole(consoleType(string(e.Type)), formatConsoleArgs(e.Args), url, line)
		}
	case "Runtime.exceptionThrown":
		var e proto.RuntimeExceptionThrown
		if msg.Load(&e) && e.ExceptionDetails != nil {
			p.addPageError(e.ExceptionDetails)
		}
	case "Page.javascriptDialogOpening":
		var e proto.PageJavascriptDialogOpening
		if msg.Load(&e) {
			p.mu.Lock()
			p.dialogs = appendCapped(p.dialogs, Dialog{Type: string(e.Type), Message: e.Message, DefaultValue: e.DefaultPrompt})
			p.broadcastLocked()
			p.mu.Unlock()
			if !p.b.clientDialogs() { // else a client answers it (page.dialog_answer)
				ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
				_ = proto.PageHandleJavaScriptDialog{Accept: true, PromptText: e.DefaultPrompt}.Call(p.rod.Context(ctx))
				cancel()
			}
		}
	}
}
