package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"wright/model"
)

// "url": the final page's URL against a gold URL, as WebArena's url_match.
func init() {
	RegisterEvaluator(Kind{Name: "url", Order: 20, Decode: func(raw json.RawMessage, opts Options) (Evaluator, error) {
		var u string
		if err := decodeStrict(raw, &u); err != nil {
			return nil, err
		}
		if u == "" {
			return nil, nil
		}
		return URLCheck{Want: fillSites(u, opts.Sites)}, nil
	}})
}

// URLCheck passes when the final page's URL matches Want (MatchURL).
type URLCheck struct {
	Want string
}

// ProbeExprs is empty: the probe reads the page's URL anyway.
func (URLCheck) ProbeExprs() []string { return nil }

// Evaluate matches the final page's URL.
func (c URLCheck) Evaluate(_ context.Context, f Final) ([]EvalResult, model.Usage) {
	r := EvalResult{Kind: "url"}
	if f.Page == nil {
		r.Detail = "no final page to read: " + f.PageErr
	} else {
		ok, detail := MatchURL(c.Want, f.Page.URL)
		r.Passed, r.Detail = &ok, detail
		if ok {
			r.Detail = f.Page.URL
		}
	}
	return []EvalResult{r}, model.Usage{}
}

// MatchURL says whether the final URL satisfies the gold URL the way
// WebArena's url_match does: the gold host and path are contained in the
// final one's, and every gold query value is among the final query's values
// for that key. A gold URL starting with "/" compares paths only.
func MatchURL(gold, final string) (bool, string) {
	for _, alt := range strings.Split(gold, orSep) {
		if urlContains(strings.TrimSpace(alt), final) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("final URL %q does not match %q", final, gold)
}

func urlContains(gold, final string) bool {
	g, err1 := url.Parse(gold)
	f, err2 := url.Parse(final)
	if err1 != nil || err2 != nil {
		return strings.Contains(final, gold)
	}
	gBase := strings.TrimRight(g.Host+g.Path, "/")
	fBase := strings.TrimRight(f.Host+f.Path, "/")
	if g.Host == "" {
		gBase = strings.TrimRight(g.Path, "/")
		fBase = strings.TrimRight(f.Path, "/")
	}
	if !strings.Contains(fBase, gBase) {
		return false
	}
	fq := f.Query()
	for k, vals := range g.Query() {
		for _, v := range vals {
			found := false
			for _, have := range fq[k] {
				if have == v {
					found = true
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}
