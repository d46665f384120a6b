package driver

import (
	"context"
	"encoding/json"

	"wright/browser"
	"wright/browser/clock"
)

// clockSource answers clock.source: the fake clock's script, which the
// client evaluates in a context's documents and adds to their init scripts
// (browser/clock). It takes no params and touches no browser.
func clockSource(context.Context, *conn, json.RawMessage) (any, error) {
	return map[string]any{"source": clock.Source}, nil
}

// contextSetScript answers context.set_script: the context's init script
// under a name, replaced in all its pages in one call (the client's clock
// state changes with every clock call).
func contextSetScript(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		Name   string `json:"name"`
		Source string `json:"source"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, browser.Errorf(browser.ErrInvalidParams, "context.set_script: name is empty")
	}
	return nil, bc.SetScript(ctx, p.Name, p.Source)
}
