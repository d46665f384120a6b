package browser

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A popup that shows a dialog before the driver could attach to it blocks
// its renderer, and rod's attach waited for it without end while holding
// the browser's adoption lock: no later tab or page could be opened. The
// stuck tab is now closed after attachLimit, the opener's call returns, and
// the browser goes on.
func TestPopupBlockedByDialogDoesNotStallTheBrowser(t *testing.T) {
	p := open(t, "/form.html")
	saved := attachLimit
	attachLimit = 2 * time.Second
	defer func() { attachLimit = saved }()

	ctx := context.Background()
	out, err := p.Evaluate(ctx, `() => window.open('').prompt('hey?')`, nil, 30*time.Second)
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	if strings.TrimSpace(string(out)) != "null" {
		t.Errorf("prompt of a closed popup = %s, want null", out)
	}
	q, err := shared.NewPage(ctx)
	if err != nil {
		t.Fatalf("a new page after the stuck popup: %v", err)
	}
	defer func() { _ = q.Close(ctx) }()
	found := false
	for _, m := range p.ConsoleMessages(false) {
		if strings.Contains(m.Text, "could not take over the new tab") {
			found = true
		}
	}
	if !found {
		t.Errorf("no console message on the opener about the closed tab: %+v", p.ConsoleMessages(false))
	}
}
