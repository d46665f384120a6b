package bench

import "encoding/json"

// urlEvaluator is "url": the final page's URL against a pattern (MatchURL).
type urlEvaluator struct{}

func (urlEvaluator) Key() string { return "url" }

func (urlEvaluator) Decode(raw json.RawMessage, opts Options, ev *Eval) error {
	var u string
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	ev.URL = fillSites(u, opts.Sites)
	return nil
}

func (urlEvaluator) Page(ev *Eval) ([]string, bool) { return nil, ev.URL != "" }

func (urlEvaluator) Score(ev *Eval, f Final, _ []ProbeValue) []EvalResult {
	if ev.URL == "" {
		return nil
	}
	r := EvalResult{Kind: "url"}
	if f.Page == nil {
		r.Detail = "no final page to read: " + f.PageErr
	} else {
		ok, detail := MatchURL(ev.URL, f.Page.URL)
		r.Passed, r.Detail = &ok, detail
		if ok {
			r.Detail = f.Page.URL
		}
	}
	return []EvalResult{r}
}
