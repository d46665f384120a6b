package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// CloseRunningBeforeUnload asks the page to close the way a user closing
// its tab does: its beforeunload handlers run first, and one that asks to
// stay opens a "beforeunload" dialog. The page closes when that dialog is
// accepted (or when there is none); the client learns of it from
// page.close. It returns without waiting for either.
func (p *Page) CloseRunningBeforeUnload(ctx context.Context) error {
	if err := p.closedErr(); err != nil {
		if p.b.Err() != nil {
			return err
		}
		return nil // closing twice is fine
	}
	ctx, cancel := p.b.opContext(ctx, 0)
	defer cancel()
	if err := callCDP(p.rod.Context(ctx), proto.PageClose{}); err != nil {
		return p.targetErr(err)
	}
	return nil
}
