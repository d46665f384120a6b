package bench

import (
	"encoding/json"
	"fmt"
)

// jsEvaluator is "js": expressions evaluated on the final page; a truthy
// value passes, an object {pass, score, detail} is taken as it is.
type jsEvaluator struct{}

func (jsEvaluator) Key() string { return "js" }

func (jsEvaluator) Decode(raw json.RawMessage, opts Options, ev *Eval) error {
	js, err := decodeJS(raw, opts)
	if err != nil {
		return err
	}
	ev.JS = js
	return nil
}

// Page lists the checks of the final page; a check with a URL of its own
// (WebArena's program_html) is not probed.
func (jsEvaluator) Page(ev *Eval) ([]string, bool) {
	var out []string
	for _, c := range ev.JS {
		if c.URL == "" {
			out = append(out, c.Expr)
		}
	}
	return out, len(ev.JS) > 0
}

func (jsEvaluator) Score(ev *Eval, f Final, values []ProbeValue) []EvalResult {
	var out []EvalResult
	i := 0
	for _, c := range ev.JS {
		if c.URL != "" {
			// Reading another URL than the final page's is WebArena's; the
			// harness has no second page to open after the run.
			out = append(out, EvalResult{Kind: "js", Detail: "checks on another page (" + c.URL + ") are not supported"})
			continue
		}
		r := EvalResult{Kind: "js"}
		switch {
		case f.Page == nil:
			r.Detail = "no final page to read: " + f.PageErr
		case i >= len(values):
			r.Detail = "the probe returned no value"
		default:
			r = scoreJS(values[i])
		}
		i++
		out = append(out, r)
	}
	return out
}

// scoreJS reads a js check's value: an object with "pass" is taken as it
// is, anything else passes when truthy.
func scoreJS(v ProbeValue) EvalResult {
	r := EvalResult{Kind: "js"}
	if v.Err != "" {
		r.Detail = "the expression failed: " + v.Err
		return r
	}
	var obj struct {
		Pass   *bool    `json:"pass"`
		Score  *float64 `json:"score"`
		Detail any      `json:"detail"`
	}
	if json.Unmarshal(v.Value, &obj) == nil && obj.Pass != nil {
		r.Passed, r.Score = obj.Pass, obj.Score
		if obj.Detail != nil {
			r.Detail = fmt.Sprint(obj.Detail)
		}
		return r
	}
	var x any
	_ = json.Unmarshal(v.Value, &x)
	ok := truthy(x)
	r.Passed = &ok
	r.Detail = "value " + clip(string(v.Value))
	return r
}

// truthy is JavaScript's truthiness for a JSON value.
func truthy(x any) bool {
	switch v := x.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	}
	return true
}
