package browser

import (
	"context"
)

// ContextDefaults is what a client's browser context gives each page that
// opens in it by itself (a popup, a tab opened from a link): the client
// applies the same to the pages it creates, but a popup must have them
// before its first script runs, which only the driver can do while the
// new target is held (autoattach.go).
type ContextDefaults struct {
	Emulation         *Emulation `json:"emulation"`
	InitScripts       []string   `json:"init_scripts"`
	Bindings          []string   `json:"bindings"`
	Routing           bool       `json:"routing"`
	IgnoreHTTPSErrors bool       `json:"ignore_https_errors"`
}

// SetContextDefaults records the defaults of the client's context id ("" is
// the default context); each call replaces the previous ones. They apply to
// the pages opened from then on.
func (b *Browser) SetContextDefaults(id string, d ContextDefaults) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctxDefaults == nil {
		b.ctxDefaults = map[string]ContextDefaults{}
	}
	b.ctxDefaults[id] = d
}

// ContextID is the client's context the page belongs to ("" the default
// one, or a tab that was never ours).
func (p *Page) ContextID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.context
}

func (p *Page) setContextID(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.context = id
}

// inheritContext puts a popup in its opener's context and gives it that
// context's defaults. It runs while the popup is still held, so they are in
// place before its first script.
func (b *Browser) inheritContext(ctx context.Context, p *Page) error {
	op := b.pageByID(p.opener)
	if op == nil {
		return nil
	}
	id := op.ContextID()
	p.setContextID(id)
	b.mu.Lock()
	d, ok := b.ctxDefaults[id]
	b.mu.Unlock()
	if !ok {
		return nil
	}
	if d.Emulation != nil {
		if err := p.Emulate(ctx, *d.Emulation); err != nil {
			return err
		}
	}
	if d.IgnoreHTTPSErrors {
		if err := p.IgnoreHTTPSErrors(ctx); err != nil {
			return err
		}
	}
	for _, s := range d.InitScripts {
		if _, err := p.AddInitScriptID(ctx, s); err != nil {
			return err
		}
	}
	for _, name := range d.Bindings {
		if err := p.ExposeBinding(ctx, name); err != nil {
			return err
		}
	}
	if d.Routing {
		return p.SetRouting(ctx, true)
	}
	return nil
}
