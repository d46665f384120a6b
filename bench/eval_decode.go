package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// decodeEval reads wright's own eval object ({js, answer, url, judge}) or a
// WebArena eval ({eval_types, reference_answers, reference_url,
// program_html}), translated into the same checks.
func decodeEval(raw json.RawMessage, opts Options) (*Eval, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, errors.New("want an object")
	}
	if _, ok := probe["eval_types"]; ok {
		return decodeWebArena(probe, opts)
	}
	return decodeOwn(raw, opts)
}

// decodeJS accepts an expression, an {expr, url} object or a list of either.
func decodeJS(raw json.RawMessage, opts Options) ([]JSCheck, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		list = []json.RawMessage{raw}
	}
	var out []JSCheck
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

func (a *AnswerCheck) validate() error {
	if a.Exact == nil && len(a.MustInclude) == 0 && a.Regex == "" && a.Number == nil && len(a.Fields) == 0 {
		return errors.New("give exact, must_include, regex, number or fields")
	}
	for _, f := range a.Fields {
		if err := f.Check(); err != nil {
			return err
		}
	}
	return nil
}

// decodeWebArena translates a WebArena task's eval. string_match becomes an
// answer check, url_match a url check, program_html a js check per entry;
// fuzzy_match needs WebArena's own LLM grader and is kept as unsupported.
func decodeWebArena(m map[string]json.RawMessage, opts Options) (*Eval, error) {
	var w struct {
		Types   []string `json:"eval_types"`
		Answers *struct {
			Exact       *string         `json:"exact_match"`
			MustInclude []string        `json:"must_include"`
			Fuzzy       json.RawMessage `json:"fuzzy_match"`
		} `json:"reference_answers"`
		RefURL  string `json:"reference_url"`
		Program []struct {
			URL      string `json:"url"`
			Locator  string `json:"locator"`
			Required struct {
				Exact       *string  `json:"exact_match"`
				MustInclude []string `json:"must_include"`
			} `json:"required_contents"`
		} `json:"program_html"`
	}
	raw, _ := json.Marshal(m)
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("WebArena eval: %v", err)
	}
	ev := &Eval{}
	for _, kind := range w.Types {
		switch kind {
		case "string_match":
			if w.Answers == nil {
				return nil, errors.New("string_match without reference_answers")
			}
			a := &AnswerCheck{Exact: w.Answers.Exact, MustInclude: w.Answers.MustInclude}
			if f := strings.TrimSpace(string(w.Answers.Fuzzy)); f != "" && f != "null" && f != `"N/A"` {
				ev.Unsupported = append(ev.Unsupported, "string_match fuzzy_match (needs WebArena's LLM grader)")
			}
			if a.Exact != nil || len(a.MustInclude) > 0 {
				ev.Answer = a
			}
		case "url_match":
			if w.RefURL == "" {
				return nil, errors.New("url_match without reference_url")
			}
			ev.URL = fillSites(w.RefURL, opts.Sites)
		case "program_html":
			for _, p := range w.Program {
				ev.JS = append(ev.JS, programCheck(p.URL, p.Locator, p.Required.Exact, p.Required.MustInclude, opts))
			}
		default:
			ev.Unsupported = append(ev.Unsupported, kind)
		}
	}
	return ev, nil
}

// programCheck builds the expression for one program_html entry: read the
// locator's value (or the page's text) and compare it as WebArena does,
// case-insensitively for must_include.
func programCheck(url, locator string, exact *string, include []string, opts Options) JSCheck {
	if strings.TrimSpace(locator) == "" {
		locator = "document.body.innerText"
	}
	want, _ := json.Marshal(include)
	exactJS := "null"
	if exact != nil {
		b, _ := json.Marshal(*exact)
		exactJS = string(b)
	}
	expr := fmt.Sprintf(`(() => {
  let v;
  try { v = %s; } catch (e) { return {pass: false, detail: "locator failed: " + e.message}; }
  v = String(v ?? "");
  const exact = %s, need = %s;
  if (exact !== null && v.trim() !== exact.trim()) return {pass: false, detail: "want exactly " + JSON.stringify(exact) + ", got " + JSON.stringify(v.slice(0, 200))};
  const missing = need.filter(n => !n.split(" |OR| ").some(alt => v.toLowerCase().includes(alt.toLowerCase())));
  return missing.length ? {pass: false, detail: "missing " + JSON.stringify(missing)} : {pass: true};
})()`, locator, exactJS, want)
	page := url
	if page == "last" {
		page = ""
	}
	return JSCheck{Expr: expr, URL: fillSites(page, opts.Sites)}
}
