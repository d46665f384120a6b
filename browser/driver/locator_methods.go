package driver

import (
	"context"
	"encoding/json"
	"time"

	"wright/browser"
)

// locator.* methods.

func locatorClick(ctx context.Context, l *browser.Locator, cp *clickParams, to time.Duration) (any, error) {
	opts, err := cp.options(to)
	if err != nil {
		return nil, err
	}
	return nil, l.Click(ctx, opts)
}

func locatorDblClick(ctx context.Context, l *browser.Locator, cp *clickParams, to time.Duration) (any, error) {
	opts, err := cp.options(to)
	if err != nil {
		return nil, err
	}
	return nil, l.DblClick(ctx, opts)
}

func (cp *clickParams) options(to time.Duration) (browser.ClickOptions, error) {
	d, err := cp.Delay.duration()
	if err != nil {
		return browser.ClickOptions{}, err
	}
	if cp.Scroll != "" && cp.Scroll != "none" && cp.Scroll != "auto" {
		return browser.ClickOptions{}, invalid("scroll must be \"auto\" (the default: scroll the element into view) or \"none\", not %q", cp.Scroll)
	}
	return browser.ClickOptions{Button: browser.MouseButton(cp.Button), ClickCount: cp.ClickCount, Delay: d,
		Force: cp.Force, Modifiers: cp.Modifiers, Position: cp.Position, Steps: cp.Steps, Timeout: to,
		NoScroll: cp.Scroll == "none", NoWaitAfter: cp.NoWaitAfter}, nil
}

func locatorFill(ctx context.Context, l *browser.Locator, fp *struct {
	locatorParams
	Value *string `json:"value"`
	Force bool    `json:"force"`
}, to time.Duration) (any, error) {
	if fp.Value == nil {
		return nil, invalid("locator.fill needs \"value\" (a string; \"\" clears the field)")
	}
	return nil, l.Fill(ctx, *fp.Value, fp.Force, to)
}

func locatorPress(ctx context.Context, l *browser.Locator, kp *struct {
	locatorParams
	Key         string `json:"key"`
	NoWaitAfter bool   `json:"no_wait_after"`
}, to time.Duration) (any, error) {
	return nil, l.PressWith(ctx, kp.Key, to, kp.NoWaitAfter)
}

func locatorPressSequentially(ctx context.Context, l *browser.Locator, kp *struct {
	locatorParams
	Text  string `json:"text"`
	Delay ms     `json:"delay"`
}, to time.Duration) (any, error) {
	d, err := kp.Delay.duration()
	if err != nil {
		return nil, err
	}
	return nil, l.PressSequentially(ctx, kp.Text, d, to)
}

// checkParams is anonymous, as it always was: decode's messages name it.
type checkParams = struct {
	locatorParams
	Force   bool  `json:"force"`
	Checked *bool `json:"checked"`
}

func locatorCheck(ctx context.Context, l *browser.Locator, cp *checkParams, to time.Duration) (any, error) {
	return setChecked(ctx, l, cp, to, true)
}

func locatorUncheck(ctx context.Context, l *browser.Locator, cp *checkParams, to time.Duration) (any, error) {
	return setChecked(ctx, l, cp, to, false)
}

func locatorSetChecked(ctx context.Context, l *browser.Locator, cp *checkParams, to time.Duration) (any, error) {
	if cp.Checked == nil {
		return nil, invalid("locator.set_checked needs \"checked\" (true or false)")
	}
	return nil, l.SetChecked(ctx, *cp.Checked, cp.Force, to)
}

func setChecked(ctx context.Context, l *browser.Locator, cp *checkParams, to time.Duration, want bool) (any, error) {
	if cp.Checked != nil {
		return nil, invalid("\"checked\" is a parameter of locator.set_checked only")
	}
	return nil, l.SetChecked(ctx, want, cp.Force, to)
}

func locatorSelectOption(ctx context.Context, l *browser.Locator, sp *struct {
	locatorParams
	Value json.RawMessage `json:"value"`
	Label json.RawMessage `json:"label"`
	Index json.RawMessage `json:"index"`
	Force bool            `json:"force"`
}, to time.Duration) (any, error) {
	var want browser.SelectOptions
	var err error
	if want.Values, err = oneOrMany[string](sp.Value, "value"); err != nil {
		return nil, err
	}
	if want.Labels, err = oneOrMany[string](sp.Label, "label"); err != nil {
		return nil, err
	}
	if want.Indexes, err = oneOrMany[int](sp.Index, "index"); err != nil {
		return nil, err
	}
	if len(want.Values)+len(want.Labels)+len(want.Indexes) == 0 && sp.Value == nil && sp.Label == nil && sp.Index == nil {
		return nil, invalid("locator.select_option needs value, label or index (each one item or a list)")
	}
	vals, err := l.SelectOption(ctx, want, sp.Force, to)
	return map[string]any{"values": vals}, err
}

func locatorHover(ctx context.Context, l *browser.Locator, hp *struct {
	locatorParams
	Force bool `json:"force"`
}, to time.Duration) (any, error) {
	return nil, l.Hover(ctx, hp.Force, to)
}

func locatorFocus(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return nil, l.Focus(ctx, to)
}

func locatorScrollIntoView(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return nil, l.ScrollIntoViewIfNeeded(ctx, to)
}

func locatorInnerText(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return value(l.InnerText(ctx, to))
}

func locatorTextContent(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return value(l.TextContent(ctx, to))
}

func locatorInnerHTML(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return value(l.InnerHTML(ctx, to))
}

func locatorInputValue(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	return value(l.InputValue(ctx, to))
}

func locatorGetAttribute(ctx context.Context, l *browser.Locator, ap *struct {
	locatorParams
	Name string `json:"name"`
}, to time.Duration) (any, error) {
	if ap.Name == "" {
		return nil, invalid("locator.get_attribute needs \"name\"")
	}
	return value(l.GetAttribute(ctx, ap.Name, to))
}

// locatorIs answers locator.is_<state>.
func locatorIs(state string) func(ctx context.Context, l *browser.Locator, _ time.Duration) (any, error) {
	return func(ctx context.Context, l *browser.Locator, _ time.Duration) (any, error) {
		return value(l.Is(ctx, state))
	}
}

func locatorCount(ctx context.Context, l *browser.Locator, _ time.Duration) (any, error) {
	return value(l.Count(ctx))
}

func locatorAllInnerTexts(ctx context.Context, l *browser.Locator, _ time.Duration) (any, error) {
	return value(l.AllTexts(ctx, "inner_text"))
}

func locatorAllTextContents(ctx context.Context, l *browser.Locator, _ time.Duration) (any, error) {
	return value(l.AllTexts(ctx, "text_content"))
}

func locatorWaitFor(ctx context.Context, l *browser.Locator, wp *struct {
	locatorParams
	State string `json:"state"`
}, to time.Duration) (any, error) {
	return nil, l.WaitFor(ctx, browser.ElementState(wp.State), to)
}

func locatorBoundingBox(ctx context.Context, l *browser.Locator, to time.Duration) (any, error) {
	b, err := l.BoundingBox(ctx, to)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return map[string]any{"value": nil}, nil
	}
	return map[string]any{"value": b}, nil
}

func locatorTap(ctx context.Context, l *browser.Locator, tp *struct {
	locatorParams
	Force       bool           `json:"force"`
	Modifiers   []string       `json:"modifiers"`
	Position    *browser.Point `json:"position"`
	NoWaitAfter bool           `json:"no_wait_after"`
}, to time.Duration) (any, error) {
	return nil, l.Tap(ctx, browser.TapOptions{Force: tp.Force, Modifiers: tp.Modifiers, Position: tp.Position,
		Timeout: to, NoWaitAfter: tp.NoWaitAfter})
}
