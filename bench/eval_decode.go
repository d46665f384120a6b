package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// decodeEval reads wright's own eval object (a key per registered
// evaluator: decodeOwn) or a WebArena eval ({eval_types,
// reference_answers, reference_url, program_html}), translated into the
// same checks.
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

// decodeWebArena translates a WebArena task's eval into wright's own keys,
// read by the same evaluators: string_match becomes an answer check,
// url_match a url check, program_html a js check per entry; fuzzy_match
// needs WebArena's own LLM grader and is kept as unsupported. Unlike
// wright's own object, a WebArena eval that asks for nothing is an eval
// all the same, with no check to fail.
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
	own := map[string]any{}
	var unsupported []string
	var js []JSCheck
	for _, kind := range w.Types {
		switch kind {
		case "string_match":
			if w.Answers == nil {
				return nil, errors.New("string_match without reference_answers")
			}
			if f := strings.TrimSpace(string(w.Answers.Fuzzy)); f != "" && f != "null" && f != `"N/A"` {
				unsupported = append(unsupported, "string_match fuzzy_match (needs WebArena's LLM grader)")
			}
			if w.Answers.Exact != nil || len(w.Answers.MustInclude) > 0 {
				own["answer"] = AnswerCheck{Exact: w.Answers.Exact, MustInclude: w.Answers.MustInclude}
			}
		case "url_match":
			if w.RefURL == "" {
				return nil, errors.New("url_match without reference_url")
			}
			own["url"] = w.RefURL
		case "program_html":
			for _, p := range w.Program {
				js = append(js, programCheck(p.URL, p.Locator, p.Required.Exact, p.Required.MustInclude))
			}
		default:
			unsupported = append(unsupported, kind)
		}
	}
	if len(js) > 0 {
		own["js"] = js
	}
	b, err := json.Marshal(own)
	if err != nil {
		return nil, fmt.Errorf("WebArena eval: %v", err)
	}
	ev, err := decodeOwn(b, opts)
	if err != nil {
		return nil, fmt.Errorf("WebArena eval: %v", err)
	}
	if ev == nil {
		ev = &Eval{}
	}
	ev.Unsupported = unsupported
	return ev, nil
}

// programCheck builds the expression for one program_html entry: read the
// locator's value (or the page's text) and compare it as WebArena does,
// case-insensitively for must_include. Its URL's site placeholders are
// filled when the js check is decoded.
func programCheck(url, locator string, exact *string, include []string) JSCheck {
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
	return JSCheck{Expr: expr, URL: page}
}
