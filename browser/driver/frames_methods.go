package driver

import (
	"context"
	"time"

	"wright/browser"
)

// pageFrameOwner answers page.frame_owner: a handle on the element holding a frame the client
// learned of from page.frameattached (Playwright's Frame objects).
func pageFrameOwner(ctx context.Context, p *browser.Page, fp *struct {
	pageParams
	Frame string `json:"frame"`
}) (any, error) {
	h, err := p.Frame(fp.Frame).Owner(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"handle": h}, nil
}

// pageFrameTree answers page.frame_tree: the page's live frames (a frame missing is detached).
func pageFrameTree(ctx context.Context, p *browser.Page, fp *pageParams) (any, error) {
	frames, err := p.FrameTree(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"frames": frames}, nil
}

// pageNodeFrames answers page.node_frames: the frame holding a handle's node and, for a frame
// element, the frame it shows.
func pageNodeFrames(ctx context.Context, p *browser.Page, fp *struct {
	pageParams
	Handle string `json:"handle"`
}) (any, error) {
	owner, content, err := p.NodeFrames(ctx, fp.Handle)
	if err != nil {
		return nil, err
	}
	return map[string]any{"owner": frameID(owner), "content": frameID(content)}, nil
}

// frameID is a frame's id on the wire, "" for none.
func frameID(f *browser.Frame) string {
	if f == nil {
		return ""
	}
	return f.ID()
}

// pageFrameGoto answers page.frame_goto: navigate one (child) frame.
func pageFrameGoto(ctx context.Context, p *browser.Page, fp *struct {
	navParams
	Frame   string `json:"frame"`
	URL     string `json:"url"`
	Referer string `json:"referer"`
}, to time.Duration) (any, error) {
	res, err := p.Frame(fp.Frame).Goto(ctx, fp.URL, fp.Referer, browser.WaitUntil(fp.WaitUntil), to)
	if err != nil {
		return nil, err
	}
	var status any
	if res.Status != 0 {
		status = res.Status
	}
	return map[string]any{"url": res.URL, "status": status}, nil
}
