package browser

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A popup that shows a dialog at once (the opener calls prompt() on the
// window it just opened) used to block rod's attach, and its dialog, opened
// before we listened, was never seen: the tab was closed after attachLimit.
// New tabs are now held until adopted (autoattach.go), so the dialog is
// reported on the popup and answered, the opener gets the answer, and the
// browser goes on.
func TestPopupDialogBeforeAttachIsAnswered(t *testing.T) {
	p := open(t, "/form.html")
	ctx := context.Background()
	out, err := p.Evaluate(ctx, `() => window.open('').prompt('hey?', 'fine')`, nil, 30*time.Second)
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	if strings.TrimSpace(string(out)) != `"fine"` {
		t.Errorf("prompt in the popup = %s, want \"fine\" (accepted with its default)", out)
	}
	var popup *Page
	for _, q := range shared.Pages() {
		if q.opener == p.ID() {
			popup = q
		}
	}
	if popup == nil {
		t.Fatalf("the popup was not adopted")
	}
	defer func() { _ = popup.Close(ctx) }()
	if d := popup.Dialogs(false); len(d) != 1 || d[0].Message != "hey?" {
		t.Errorf("popup dialogs = %+v, want the prompt", d)
	}
	q, err := shared.NewPage(ctx)
	if err != nil {
		t.Fatalf("a new page after the popup: %v", err)
	}
	_ = q.Close(ctx)
}
