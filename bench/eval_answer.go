package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"wright/model"
	"wright/run/output"
)

// "answer": the final response checked as text (exact, must_include, regex,
// number) or, for a structured result, field by field.
func init() {
	RegisterEvaluator(Kind{Name: "answer", Order: 10, Decode: func(raw json.RawMessage, _ Options) (Evaluator, error) {
		a := &AnswerCheck{}
		if err := decodeStrict(raw, a); err != nil {
			return nil, err
		}
		return a, a.validate()
	}})
}

// AnswerCheck compares the final response: as text (Exact, MustInclude,
// Regex, Number) or, for a structured result, field by field.
type AnswerCheck struct {
	Exact       *string      `json:"exact,omitempty"`
	MustInclude []string     `json:"must_include,omitempty"`
	Regex       string       `json:"regex,omitempty"`
	Number      *float64     `json:"number,omitempty"`
	Tolerance   float64      `json:"tolerance,omitempty"`
	Fields      []FieldCheck `json:"fields,omitempty"`
}

// FieldCheck is one check on a value inside a JSON result, found by a path
// such as "$.items[0].price": the output package's field evaluator.
type FieldCheck = output.Field

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

// Evaluate checks the final response.
func (a *AnswerCheck) Evaluate(_ context.Context, f Final) ([]EvalResult, model.Usage) {
	return []EvalResult{a.score(f.Response)}, model.Usage{}
}

func (a *AnswerCheck) score(response string) EvalResult {
	r := EvalResult{Kind: "answer"}
	hasText := a.Exact != nil || len(a.MustInclude) > 0 || a.Regex != "" || a.Number != nil
	if hasText {
		ok, detail := a.CheckText(response)
		if !ok {
			r.Passed, r.Detail = &ok, detail
			return r
		}
	}
	if len(a.Fields) > 0 {
		value, err := output.ParseJSON(response)
		if err != nil {
			// A response that is not JSON fails field checks: the task
			// asked for data and got prose.
			no := false
			r.Passed, r.Detail = &no, "the final response is not JSON: "+err.Error()
			return r
		}
		results, pass, err := output.Evaluate(value, a.Fields)
		if err != nil {
			r.Detail = err.Error()
			return r
		}
		r.Passed = &pass
		var failed []string
		for _, fr := range results {
			if !fr.Pass {
				failed = append(failed, fr.Path+": "+fr.Reason)
			}
		}
		r.Detail = strings.Join(failed, "; ")
		return r
	}
	ok := true
	r.Passed = &ok
	return r
}

// CheckText applies the text checks of an answer (exact, must_include, regex,
// number) to a final response. Field checks need a parsed result and are
// applied by the caller. Comparisons ignore case and surrounding space.
func (a *AnswerCheck) CheckText(final string) (bool, string) {
	got := normalize(final)
	if a.Exact != nil && got != normalize(*a.Exact) {
		return false, fmt.Sprintf("want exactly %q, got %q", *a.Exact, clip(final))
	}
	var missing []string
	for _, need := range a.MustInclude {
		if !anyAlt(need, func(alt string) bool { return strings.Contains(got, normalize(alt)) }) {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("missing %q in %q", missing, clip(final))
	}
	if a.Regex != "" {
		re, err := regexp.Compile(a.Regex)
		if err != nil {
			return false, fmt.Sprintf("bad regex %q: %v", a.Regex, err)
		}
		if !re.MatchString(final) {
			return false, fmt.Sprintf("%q does not match /%s/", clip(final), a.Regex)
		}
	}
	if a.Number != nil {
		nums := numbersIn(final)
		for _, n := range nums {
			if math.Abs(n-*a.Number) <= a.Tolerance {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no number within %g of %g in %q", a.Tolerance, *a.Number, clip(final))
	}
	return true, ""
}

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?|-?\.\d+`)

// numbersIn finds the numbers written in a text, thousands separators
// allowed ("$1,299.50" is 1299.5).
func numbersIn(s string) []float64 {
	var out []float64
	for _, m := range numberRe.FindAllString(s, -1) {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64); err == nil {
			out = append(out, f)
		}
	}
	return out
}
