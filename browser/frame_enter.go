package browser

import (
	"fmt"
	"strings"
)

// enterFrame is the chain part that a frame locator puts between the
// selector of its <iframe> and what it searches inside: Playwright's
// internal:control=enter-frame. It is strict: the parts before it must find
// one frame element, since which frame to search would otherwise be a guess.
const enterFrame = "internal:control=enter-frame"

func isEnterFrame(raw string) bool {
	return strings.TrimSpace(raw) == enterFrame
}

// apiChain renders raw chain parts the way a Python script builds them,
// locator("body").locator("iframe"), with .content_frame for each earlier
// frame entered, so a strict-mode error names the frame locator as written.
func apiChain(raw []string) string {
	var b strings.Builder
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if isEnterFrame(r) {
			b.WriteString(".content_frame")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		fmt.Fprintf(&b, "locator(%q)", r)
	}
	return b.String()
}
