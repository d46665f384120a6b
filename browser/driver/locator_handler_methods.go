package driver

import (
	"context"
	"time"

	"wright/browser"
)

// Playwright's locator handlers: the driver checks them before each action
// attempt and asks the client to run the one whose locator is visible
// (page.locator_handler events).

// pageAddLocatorHandler answers page.add_locator_handler.
func pageAddLocatorHandler(ctx context.Context, p *browser.Page, ap *struct {
	pageParams
	Selector    string `json:"selector"`
	Description string `json:"description"`
	NoWaitAfter bool   `json:"no_wait_after"`
}) (any, error) {
	uid, err := p.LocatorHandlers().Add(ap.Selector, ap.Description, ap.NoWaitAfter)
	if err != nil {
		return nil, err
	}
	return map[string]any{"uid": uid}, nil
}

// pageRemoveLocatorHandler answers page.remove_locator_handler.
func pageRemoveLocatorHandler(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	UID int `json:"uid"`
}) (any, error) {
	p.LocatorHandlers().Remove(rp.UID)
	return nil, nil
}

// pageResolveLocatorHandler answers page.resolve_locator_handler.
func pageResolveLocatorHandler(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	UID    int  `json:"uid"`
	Remove bool `json:"remove"`
}) (any, error) {
	p.LocatorHandlers().Resolve(rp.UID, rp.Remove)
	return nil, nil
}

// pageRunLocatorHandlers answers page.run_locator_handlers.
func pageRunLocatorHandlers(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	timeoutParams
}, to time.Duration) (any, error) {
	return nil, p.LocatorHandlers().Run(ctx, to)
}
