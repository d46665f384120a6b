package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// addPlaywrightHandlers adds the methods the Playwright-compatible client
// builds on: calls with value transfer and handles, element handles, init
// scripts.
func addPlaywrightHandlers() {
	addEventHandlers()
	handlers["js.call"] = onPageTimed(func(ctx context.Context, p *Page, cp *struct {
		pageParams
		timeoutParams
		Source       string          `json:"source"`
		Arg          json.RawMessage `json:"arg"`
		Handles      []string        `json:"handles"`
		Element      string          `json:"element"`
		Context      string          `json:"context"`
		ReturnHandle bool            `json:"return_handle"`
	}, to time.Duration) (any, error) {
		return p.Call(ctx, JSCall{Source: cp.Source, Arg: cp.Arg, Handles: cp.Handles, Element: cp.Element, Context: cp.Context, ReturnHandle: cp.ReturnHandle}, to)
	})
	handlers["js.dispose"] = onPage(func(ctx context.Context, p *Page, dp *struct {
		pageParams
		Handle string `json:"handle"`
	}) (any, error) {
		return nil, p.Dispose(ctx, dp.Handle)
	})
	handlers["locator.element_handles"] = onLocator(func(ctx context.Context, l *Locator, _ *locatorParams, to time.Duration) (any, error) {
		hs, err := l.ElementHandles(ctx, to)
		return map[string]any{"handles": hs}, err
	})
	handlers["locator.evaluate_all"] = onLocator(func(ctx context.Context, l *Locator, ep *struct {
		locatorParams
		Source  string          `json:"source"`
		Arg     json.RawMessage `json:"arg"`
		Handles []string        `json:"handles"`
	}, to time.Duration) (any, error) {
		return l.EvaluateAll(ctx, JSCall{Source: ep.Source, Arg: ep.Arg, Handles: ep.Handles}, to)
	})
	handlers["page.add_init_script"] = onPage(func(ctx context.Context, p *Page, ip *struct {
		pageParams
		Source string `json:"source"`
	}) (any, error) {
		return nil, p.AddInitScript(ctx, ip.Source)
	})
}

// AddInitScript runs source in every document the page loads from now on,
// before the document's own scripts.
func (p *Page) AddInitScript(ctx context.Context, source string) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: source}).Call(o.r()); err != nil {
		return o.fail(p.jsErr(err), "")
	}
	return nil
}

// subscriptions holds each connection's event subscription (one at most),
// ended with the connection.
var subscriptions sync.Map // *conn -> func()

// notify writes a JSON-RPC notification (no id) to the connection.
func (c *conn) notify(ev Event) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "method": ev.Method, "params": ev.Params}); err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(buf.Bytes())
}

func endSubscription(c *conn) {
	if cancel, ok := subscriptions.LoadAndDelete(c); ok {
		cancel.(func())()
	}
}

func addEventHandlers() {
	handlers["events.subscribe"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
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
		subscriptions.Store(c, b.Subscribe(c.notify, sp.Dialogs))
		return nil, nil
	}
	handlers["events.unsubscribe"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		endSubscription(c)
		return nil, nil
	}
	handlers["page.dialog_answer"] = onPage(func(ctx context.Context, p *Page, dp *struct {
		pageParams
		Accept     bool    `json:"accept"`
		PromptText *string `json:"prompt_text"`
	}) (any, error) {
		return nil, p.AnswerDialog(ctx, dp.Accept, dp.PromptText)
	})
	handlers["network.response_body"] = onPage(func(ctx context.Context, p *Page, rp *struct {
		pageParams
		Request string `json:"request"`
	}) (any, error) {
		body, err := p.ResponseBody(ctx, rp.Request)
		if err != nil {
			return nil, err
		}
		return map[string]any{"data": base64.StdEncoding.EncodeToString(body)}, nil
	})
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
	if err := req.Call(o.r()); err != nil {
		return wrapErr(ErrInvalidParams, err, "no dialog to answer: %s", cdpMessage(err))
	}
	return nil
}

// ResponseBody is the body of a response the page received (by the request
// id of its page.request event).
func (p *Page) ResponseBody(ctx context.Context, request string) ([]byte, error) {
	o := p.begin(ctx, 30*time.Second)
	defer o.end()
	res, err := proto.NetworkGetResponseBody{RequestID: proto.NetworkRequestID(request)}.Call(o.r())
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "response body unavailable (%s)", cdpMessage(err))
	}
	if res.Base64Encoded {
		return base64.StdEncoding.DecodeString(res.Body)
	}
	return []byte(res.Body), nil
}
