package driver

import (
	"bytes"
	"context"
	"encoding/json"

	"wright/browser"
)

// flushEvents holds a page call's answer back until the events the call
// caused have gone to this connection's subscription (Browser.FlushEvents),
// so listeners run before the call returns, as in Playwright's sync API.
func (c *conn) flushEvents(ctx context.Context, req rpcRequest) {
	if methods[req.Method].quiet {
		return
	}
	c.subMu.Lock()
	subscribed := c.unsubscribe != nil
	c.subMu.Unlock()
	if !subscribed {
		return
	}
	var pp struct {
		Page string `json:"page"`
	}
	if json.Unmarshal(req.Params, &pp) != nil || pp.Page == "" {
		return
	}
	if p, err := c.s.page(pp.Page); err == nil {
		p.FlushEvents(ctx)
	}
}

// notify writes a JSON-RPC notification (no id) to the connection.
func (c *conn) notify(ev browser.Event) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	method := wireName(ev)
	if method == "" {
		return // an event this protocol does not send
	}
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "method": method, "params": ev}); err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(buf.Bytes())
}

// endSubscription ends the connection's event subscription, if any.
func endSubscription(c *conn) {
	c.subMu.Lock()
	cancel := c.unsubscribe
	c.unsubscribe = nil
	c.subMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// eventsSubscribe answers events.subscribe.
func eventsSubscribe(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var sp struct {
		Browser string `json:"browser"`
		Dialogs bool   `json:"dialogs"`
	}
	if err := decode(raw, &sp); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(sp.Browser)
	if err != nil {
		return nil, err
	}
	endSubscription(c)
	cancel := b.Subscribe(c.notify, sp.Dialogs)
	c.subMu.Lock()
	c.unsubscribe = cancel
	c.subMu.Unlock()
	return nil, nil
}

// eventsUnsubscribe answers events.unsubscribe.
func eventsUnsubscribe(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	endSubscription(c)
	return nil, nil
}

// pageDialogAnswer answers page.dialog_answer.
func pageDialogAnswer(ctx context.Context, p *browser.Page, dp *struct {
	pageParams
	Accept     bool    `json:"accept"`
	PromptText *string `json:"prompt_text"`
}) (any, error) {
	return nil, p.AnswerDialog(ctx, dp.Accept, dp.PromptText)
}

// wireName is an engine event's method on the wire (PROTOCOL.md,
// "Events"); "" for an event the protocol does not send.
func wireName(ev browser.Event) string {
	switch e := ev.(type) {
	case *browser.PageOpenedEvent:
		return "browser.page"
	case *browser.PageClosedEvent:
		return "page.close"
	case *browser.LoadEvent:
		if e.DOMContentLoaded {
			return "page.domcontentloaded"
		}
		return "page.load"
	case *browser.FrameAttachedEvent:
		return "page.frameattached"
	case *browser.FrameDetachedEvent:
		return "page.framedetached"
	case *browser.FrameNavigatedEvent, *browser.SameDocumentNavigationEvent:
		return "page.framenavigated"
	case *browser.DialogEvent:
		return "page.dialog"
	case *browser.ConsoleEvent:
		return "page.console"
	case *browser.PageErrorEvent:
		return "page.pageerror"
	case *browser.BindingEvent:
		return "page.binding"
	case *browser.FileChooserEvent:
		return "page.filechooser"
	case *browser.DownloadEvent:
		return "page.download"
	case *browser.LocatorHandlerEvent:
		return "page.locator_handler"
	case *browser.RequestEvent:
		return "page.request"
	case *browser.RouteEvent:
		return "page.route"
	case *browser.ResponseEvent:
		return "page.response"
	case *browser.RequestFinishedEvent:
		return "page.requestfinished"
	case *browser.RequestFailedEvent:
		return "page.requestfailed"
	case *browser.RawHeadersEvent:
		return "page.rawheaders"
	case *browser.WorkerEvent:
		return "page.worker"
	case *browser.WorkerClosedEvent:
		return "page.worker_closed"
	}
	return webSocketWireName(ev)
}
