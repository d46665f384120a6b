package driver

import (
	"context"
	"encoding/json"
	"time"

	"wright/browser"
)

// pageRemoveInitScript answers page.remove_init_script.
func pageRemoveInitScript(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	ID string `json:"id"`
}) (any, error) {
	return nil, p.RemoveInitScript(ctx, rp.ID)
}

func locatorEvaluate(ctx context.Context, l *browser.Locator, ep *struct {
	locatorParams
	Expression string          `json:"expression"`
	Arg        json.RawMessage `json:"arg"`
}, to time.Duration) (any, error) {
	return value(l.Evaluate(ctx, ep.Expression, ep.Arg, to))
}

func pageEvaluate(ctx context.Context, p *browser.Page, ep *struct {
	pageParams
	timeoutParams
	Expression string          `json:"expression"`
	Arg        json.RawMessage `json:"arg"`
}, to time.Duration) (any, error) {
	return value(p.Evaluate(ctx, ep.Expression, ep.Arg, to))
}

// Calls with value transfer and handles, element handles, init scripts and
// bindings: what the Python client's evaluate, handles and expose_* build on.

// jsCall answers js.call.
func jsCall(ctx context.Context, p *browser.Page, cp *struct {
	pageParams
	timeoutParams
	Source       string          `json:"source"`
	Arg          json.RawMessage `json:"arg"`
	Handles      []string        `json:"handles"`
	Element      string          `json:"element"`
	Context      string          `json:"context"`
	ReturnHandle bool            `json:"return_handle"`
	Worker       string          `json:"worker"`
	NoAwait      bool            `json:"no_await"`
}, to time.Duration) (any, error) {
	return p.Call(ctx, browser.JSCall{Source: cp.Source, Arg: cp.Arg, Handles: cp.Handles, Element: cp.Element, Context: cp.Context,
		ReturnHandle: cp.ReturnHandle, Worker: cp.Worker, NoAwait: cp.NoAwait}, to)
}

// jsDispose answers js.dispose.
func jsDispose(ctx context.Context, p *browser.Page, dp *struct {
	pageParams
	Handle string `json:"handle"`
}) (any, error) {
	return nil, p.Dispose(ctx, dp.Handle)
}

// locatorElementHandles answers locator.element_handles.
func locatorElementHandles(ctx context.Context, l *browser.Locator, _ *locatorParams, to time.Duration) (any, error) {
	hs, err := l.ElementHandles(ctx, to)
	return map[string]any{"handles": hs}, err
}

// locatorEvaluateAll answers locator.evaluate_all.
func locatorEvaluateAll(ctx context.Context, l *browser.Locator, ep *struct {
	locatorParams
	Source  string          `json:"source"`
	Arg     json.RawMessage `json:"arg"`
	Handles []string        `json:"handles"`
}, to time.Duration) (any, error) {
	return l.EvaluateAll(ctx, browser.JSCall{Source: ep.Source, Arg: ep.Arg, Handles: ep.Handles}, to)
}

// pageAddInitScript answers page.add_init_script.
func pageAddInitScript(ctx context.Context, p *browser.Page, ip *struct {
	pageParams
	Source string `json:"source"`
}) (any, error) {
	id, err := p.AddInitScriptID(ctx, ip.Source)
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": id}, nil
}

// pageExposeBinding answers page.expose_binding.
func pageExposeBinding(ctx context.Context, p *browser.Page, bp *struct {
	pageParams
	Name string `json:"name"`
}) (any, error) {
	return nil, p.ExposeBinding(ctx, bp.Name)
}

// pageBindingResult answers page.binding_result.
func pageBindingResult(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	Name    string          `json:"name"`
	Context int             `json:"context"`
	ID      int             `json:"id"`
	OK      bool            `json:"ok"`
	Value   json.RawMessage `json:"value"`
}) (any, error) {
	return nil, p.SettleBinding(ctx, rp.Name, rp.Context, rp.ID, rp.OK, rp.Value)
}

// pageRequestGC answers page.request_gc.
func pageRequestGC(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	return nil, p.RequestGC(ctx)
}
