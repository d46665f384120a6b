package driver

import (
	"context"
	"time"

	"wright/browser"
)

func init() { addLocatorHandlerMethods() }

// addLocatorHandlerMethods adds Playwright's locator handlers: the driver
// checks them before each action attempt and asks the client to run the
// one whose locator is visible (page.locator_handler events).
func addLocatorHandlerMethods() {
	methods["page.add_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, ap *struct {
		pageParams
		Selector    string `json:"selector"`
		Description string `json:"description"`
		NoWaitAfter bool   `json:"no_wait_after"`
	}) (any, error) {
		uid, err := p.AddLocatorHandler(ap.Selector, ap.Description, ap.NoWaitAfter)
		if err != nil {
			return nil, err
		}
		return map[string]any{"uid": uid}, nil
	})
	methods["page.remove_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		UID int `json:"uid"`
	}) (any, error) {
		p.RemoveLocatorHandler(rp.UID)
		return nil, nil
	})
	methods["page.resolve_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		UID    int  `json:"uid"`
		Remove bool `json:"remove"`
	}) (any, error) {
		p.ResolveLocatorHandler(rp.UID, rp.Remove)
		return nil, nil
	})
	methods["page.run_locator_handlers"] = onPageTimed(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		timeoutParams
	}, to time.Duration) (any, error) {
		return nil, p.RunLocatorHandlers(ctx, to)
	})
}
