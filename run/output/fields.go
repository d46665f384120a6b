package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Field is one expected part of an answer, as a bench task writes it:
//
//	{"path": "$.price", "number": 39.99, "tolerance": 0.01}
//	{"path": "$.title", "exact": "The Go Programming Language"}
//	{"path": "$.author", "must_include": ["Donovan", "Kernighan"]}
//	{"path": "$.isbn", "regex": "^978"}
//
// Every check given must hold.
type Field struct {
	Path string `json:"path" yaml:"path"`
	// Exact: equal as JSON values (numbers by value, strings exactly).
	Exact any `json:"exact,omitempty" yaml:"exact,omitempty"`
	// MustInclude: each item occurs in the value, ignoring case and runs
	// of whitespace (in a string; in an array, in one of its elements).
	MustInclude []string `json:"must_include,omitempty" yaml:"must_include,omitempty"`
	// Regex: an RE2 pattern that must match the value's text.
	Regex string `json:"regex,omitempty" yaml:"regex,omitempty"`
	// Number: the value, read as a number ("$1,299.00" reads 1299), is
	// within Tolerance of it.
	Number    *float64 `json:"number,omitempty" yaml:"number,omitempty"`
	Tolerance float64  `json:"tolerance,omitempty" yaml:"tolerance,omitempty"`
}

// FieldResult is the outcome of one Field.
type FieldResult struct {
	Path   string `json:"path"`
	Pass   bool   `json:"pass"`
	Got    any    `json:"got,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Check reports whether a Field is well formed: a readable path, at least
// one check, a regex that compiles, a tolerance that is not negative.
func (f Field) Check() error {
	if _, err := parsePath(f.Path); err != nil {
		return err
	}
	if f.Exact == nil && len(f.MustInclude) == 0 && f.Regex == "" && f.Number == nil {
		return fmt.Errorf("field %s: no check given (exact, must_include, regex or number)", f.Path)
	}
	if f.Regex != "" {
		if _, err := regexp.Compile(f.Regex); err != nil {
			return fmt.Errorf("field %s: regex: %w", f.Path, err)
		}
	}
	if f.Tolerance < 0 || math.IsNaN(f.Tolerance) {
		return fmt.Errorf("field %s: tolerance must be 0 or more", f.Path)
	}
	return nil
}

// Evaluate checks a result against expected fields. pass is true when
// every field passes; a malformed field is an error, not a failure.
func Evaluate(value any, fields []Field) (results []FieldResult, pass bool, err error) {
	var errs []error
	for _, f := range fields {
		if cerr := f.Check(); cerr != nil {
			errs = append(errs, cerr)
		}
	}
	if len(errs) > 0 {
		return nil, false, errors.Join(errs...)
	}
	pass = true
	for _, f := range fields {
		r := evalField(value, f)
		pass = pass && r.Pass
		results = append(results, r)
	}
	return results, pass, nil
}

func evalField(value any, f Field) FieldResult {
	got, found, _ := Lookup(value, f.Path)
	r := FieldResult{Path: f.Path, Got: got}
	if !found {
		r.Reason = "no value at " + f.Path
		return r
	}
	var fails []string
	if f.Exact != nil && !sameJSON(got, f.Exact) {
		fails = append(fails, fmt.Sprintf("expected exactly %s, got %s", render(f.Exact), render(got)))
	}
	for _, want := range f.MustInclude {
		if !includes(got, want) {
			fails = append(fails, fmt.Sprintf("does not include %q", want))
		}
	}
	if f.Regex != "" && !regexp.MustCompile(f.Regex).MatchString(render(got)) {
		fails = append(fails, fmt.Sprintf("does not match /%s/", f.Regex))
	}
	if f.Number != nil {
		n, ok := readNumber(got)
		switch {
		case !ok:
			fails = append(fails, fmt.Sprintf("%s is not a number", render(got)))
		case math.Abs(n-*f.Number) > f.Tolerance+1e-12:
			fails = append(fails, fmt.Sprintf("expected %v ± %v, got %v", *f.Number, f.Tolerance, n))
		}
	}
	r.Pass = len(fails) == 0
	r.Reason = strings.Join(fails, "; ")
	return r
}

// sameJSON compares two values as JSON: whatever Go types they were
// decoded into (json.Number, float64, int), equal JSON is equal.
func sameJSON(a, b any) bool {
	return reflect.DeepEqual(canonical(a), canonical(b))
}

func canonical(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil { // numbers become float64 on both sides
		return v
	}
	return out
}

func includes(got any, want string) bool {
	w := fold(want)
	if arr, ok := got.([]any); ok {
		for _, el := range arr {
			if strings.Contains(fold(render(el)), w) {
				return true
			}
		}
		return false
	}
	return strings.Contains(fold(render(got)), w)
}

func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

var numberText = regexp.MustCompile(`-?\d[\d,]*(\.\d+)?|-?\.\d+`)

// readNumber reads a JSON number, or the first number in a string such as
// "$1,299.00" or "39.99 EUR".
func readNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	case float64:
		return t, true
	case int:
		return float64(t), true
	case string:
		m := numberText.FindString(t)
		if m == "" {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		return f, err == nil
	}
	return 0, false
}

// SameJSON reports whether two decoded values are equal as JSON.
func SameJSON(a, b any) bool { return sameJSON(a, b) }
