package driver

import (
	"context"
	"wright/browser"
)

func init() {
	// page.frame_owner: a handle on the element holding a frame the client
	// learned of from page.frameattached (Playwright's Frame objects).
	methods["page.frame_owner"] = onPage(func(ctx context.Context, p *browser.Page, fp *struct {
		pageParams
		Frame string `json:"frame"`
	}) (any, error) {
		h, err := p.FrameOwner(ctx, fp.Frame)
		if err != nil {
			return nil, err
		}
		return map[string]any{"handle": h}, nil
	})
}

func init() {
	methods["page.remove_init_script"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		ID string `json:"id"`
	}) (any, error) {
		return nil, p.RemoveInitScript(ctx, rp.ID)
	})
}
