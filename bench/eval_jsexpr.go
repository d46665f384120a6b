package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"wright/model"
)

// "js": JavaScript expressions evaluated on the final page (an expression,
// an {expr, url} object or a list of either). The file is not eval_js.go:
// Go would build that for GOOS=js only.
func init() {
	RegisterEvaluator(Kind{Name: "js", Order: 30, Decode: func(raw json.RawMessage, opts Options) (Evaluator, error) {
		checks, err := decodeJS(raw, opts)
		if err != nil || len(checks) == 0 {
			return nil, err
		}
		return checks, nil
	}})
}

// JSCheck is a JavaScript expression evaluated on the final page, or on URL
// when one is given (WebArena's program_html checks name the page to read).
// A truthy value passes; an object {pass, score, detail} is taken as it is.
type JSCheck struct {
	Expr string `json:"expr"`
	URL  string `json:"url,omitempty"`
}

// JSChecks are a task's js checks, in the task's order.
type JSChecks []JSCheck

// decodeJS accepts an expression, an {expr, url} object or a list of either.
func decodeJS(raw json.RawMessage, opts Options) (JSChecks, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out JSChecks
	for _, item := range list {
		var c JSCheck
		if json.Unmarshal(item, &c.Expr) != nil {
			if err := json.Unmarshal(item, &c); err != nil {
				return nil, errors.New("want an expression, {\"expr\", \"url\"} or a list of them")
			}
		}
		if strings.TrimSpace(c.Expr) == "" {
			return nil, errors.New("empty expression")
		}
		c.URL = fillSites(c.URL, opts.Sites)
		out = append(out, c)
	}
	return out, nil
}

// ProbeExprs are the checks of the final page; a check with a URL of its
// own (WebArena's program_html) is not probed.
func (cs JSChecks) ProbeExprs() []string {
	var out []string
	for _, c := range cs {
		if c.URL == "" {
			out = append(out, c.Expr)
		}
	}
	return out
}

// Evaluate reads each probed expression's value, in order.
func (cs JSChecks) Evaluate(_ context.Context, f Final) ([]EvalResult, model.Usage) {
	var out []EvalResult
	i := 0
	for _, c := range cs {
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
		case i >= len(f.Page.Values):
			r.Detail = "the probe returned no value"
		default:
			r = scoreJS(f.Page.Values[i])
		}
		i++
		out = append(out, r)
	}
	return out, model.Usage{}
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
