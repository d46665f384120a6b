package driver

import (
	"context"

	"wright/browser"
)

func pageKeyboardPress(ctx context.Context, p *browser.Page, kp *struct {
	pageParams
	Key string `json:"key"`
}) (any, error) {
	return nil, p.Keyboard().Press(ctx, kp.Key)
}

func pageKeyboardType(ctx context.Context, p *browser.Page, kp *struct {
	pageParams
	Text  string `json:"text"`
	Delay ms     `json:"delay"`
}) (any, error) {
	d, err := kp.Delay.duration()
	if err != nil {
		return nil, err
	}
	return nil, p.Keyboard().Type(ctx, kp.Text, d)
}

func pageMouseClick(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	X          *float64 `json:"x"`
	Y          *float64 `json:"y"`
	Button     string   `json:"button"`
	ClickCount int      `json:"click_count"`
}) (any, error) {
	if mp.X == nil || mp.Y == nil {
		return nil, invalid("page.mouse.click needs x and y")
	}
	return nil, p.Mouse().Click(ctx, *mp.X, *mp.Y, browser.MouseButton(mp.Button), mp.ClickCount)
}

func pageMouseMove(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}) (any, error) {
	if mp.X == nil || mp.Y == nil {
		return nil, invalid("page.mouse.move needs x and y")
	}
	return nil, p.Mouse().Move(ctx, *mp.X, *mp.Y)
}

func pageMouseWheel(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	DeltaX float64 `json:"delta_x"`
	DeltaY float64 `json:"delta_y"`
}) (any, error) {
	return nil, p.Mouse().Wheel(ctx, mp.DeltaX, mp.DeltaY)
}

type keyParams struct {
	pageParams
	Key string `json:"key"`
}

// pageKeyboardDown answers page.keyboard.down.
func pageKeyboardDown(ctx context.Context, p *browser.Page, kp *keyParams) (any, error) {
	return nil, p.Keyboard().Down(ctx, kp.Key)
}

// pageKeyboardUp answers page.keyboard.up.
func pageKeyboardUp(ctx context.Context, p *browser.Page, kp *keyParams) (any, error) {
	return nil, p.Keyboard().Up(ctx, kp.Key)
}

// pageKeyboardInsertText answers page.keyboard.insert_text.
func pageKeyboardInsertText(ctx context.Context, p *browser.Page, tp *struct {
	pageParams
	Text string `json:"text"`
}) (any, error) {
	return nil, p.Keyboard().InsertText(ctx, tp.Text)
}

type buttonParams struct {
	pageParams
	Button     browser.MouseButton `json:"button"`
	ClickCount int                 `json:"click_count"`
}

// pageMouseDown answers page.mouse.down.
func pageMouseDown(ctx context.Context, p *browser.Page, bp *buttonParams) (any, error) {
	return nil, p.Mouse().Button(ctx, bp.Button, bp.ClickCount, true)
}

// pageMouseUp answers page.mouse.up.
func pageMouseUp(ctx context.Context, p *browser.Page, bp *buttonParams) (any, error) {
	return nil, p.Mouse().Button(ctx, bp.Button, bp.ClickCount, false)
}

// pageMouseMoveSteps answers page.mouse.move_steps.
func pageMouseMoveSteps(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Steps int     `json:"steps"`
}) (any, error) {
	return nil, p.Mouse().MoveSteps(ctx, mp.X, mp.Y, mp.Steps)
}

// pageTouchscreenTap answers page.touchscreen.tap.
func pageTouchscreenTap(ctx context.Context, p *browser.Page, tp *struct {
	pageParams
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}) (any, error) {
	if tp.X == nil || tp.Y == nil {
		return nil, invalid("page.touchscreen.tap needs x and y")
	}
	return nil, p.Touchscreen().Tap(ctx, *tp.X, *tp.Y)
}
