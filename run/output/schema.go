// Package output is the contract for what a task returns: a JSON Schema
// (draft 2020-12) the final result must satisfy, and field checks that
// compare a result with an expected answer. The loop, the gate, the
// reusable script and the bench all call this one package, so a result is
// judged the same way everywhere.
package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// SchemaEnv names the run's saved output schema file in the environment
// of the code the model runs (and of `wright reflect` inside a run).
const SchemaEnv = "WRIGHT_OUTPUT_SCHEMA"

// ResultFile is the name of the structured result a final script writes
// into its run folder.
const ResultFile = "result.json"

// Schema is a compiled output schema.
type Schema struct {
	compiled *jsonschema.Schema
	text     string
	source   string
}

// Problem is one reason a value does not satisfy the schema: where
// (a JSON path such as $.items[0].price) and why.
type Problem struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

func (p Problem) String() string { return p.Path + ": " + p.Reason }

// Describe lists problems one per line, for a model or a person.
func Describe(problems []Problem) string {
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = "- " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads and compiles the schema in a file. Relative $refs resolve
// against the file's folder.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return Compile(data, path)
}

// FromConfig compiles the config's output_schema value: empty means no
// schema (nil, nil); a string is a file path; a mapping or a boolean is the
// schema itself.
func FromConfig(v any) (*Schema, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		if strings.TrimSpace(t) == "" {
			return nil, nil
		}
		return Load(t)
	default:
		data, err := json.Marshal(normalizeYAML(t))
		if err != nil {
			return nil, fmt.Errorf("output schema: not JSON: %w", err)
		}
		return Compile(data, "")
	}
}

// Compile compiles a schema from its JSON text. source names it in errors
// and is the base of relative $refs (a file path; empty: the working
// directory).
func Compile(data []byte, source string) (*Schema, error) {
	name := source
	if name == "" {
		name = "inline schema"
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("output schema %s: not JSON%s: %w", name, jsonPosition(data), err)
	}
	base := source
	if base == "" {
		base = "output_schema.json"
	}
	abs, err := filepath.Abs(base)
	if err != nil {
		return nil, fmt.Errorf("output schema %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	// Only local files: a schema never makes wright reach the network.
	c.UseLoader(jsonschema.SchemeURLLoader{"file": jsonschema.FileLoader{}})
	if err := c.AddResource(abs, doc); err != nil {
		return nil, fmt.Errorf("output schema %s: %w", name, err)
	}
	compiled, err := c.Compile(abs)
	if err != nil {
		return nil, fmt.Errorf("output schema %s: %s", name, compileReason(err))
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, bytes.TrimSpace(data), "", "  "); err != nil {
		return nil, fmt.Errorf("output schema %s: %w", name, err)
	}
	return &Schema{compiled: compiled, text: pretty.String(), source: source}, nil
}

// compileReason makes the library's compile error say which kind of
// problem it is: not a schema, or a $ref that leads nowhere.
func compileReason(err error) string {
	var (
		sve     *jsonschema.SchemaValidationError
		load    *jsonschema.LoadURLError
		ptr     *jsonschema.JSONPointerNotFoundError
		anchor  *jsonschema.AnchorNotFoundError
		invalid *jsonschema.ValidationError
	)
	switch {
	case errors.As(err, &sve) && errors.As(sve.Err, &invalid):
		var problems []Problem
		collect(invalid, &problems)
		return "not a valid JSON Schema (draft 2020-12):\n" + Describe(dedupe(problems))
	case errors.As(err, &sve):
		return "not a valid JSON Schema: " + oneLine(sve.Err.Error())
	case errors.As(err, &load):
		return fmt.Sprintf("a $ref cannot be resolved (%s): %v", load.URL, load.Err)
	case errors.As(err, &ptr), errors.As(err, &anchor):
		return "a $ref cannot be resolved: " + oneLine(err.Error())
	}
	return oneLine(err.Error())
}

// Text is the schema as indented JSON, for prompts and files.
func (s *Schema) Text() string { return s.text }

// Source is the file the schema came from ("" when inline).
func (s *Schema) Source() string { return s.source }

// Validate parses a final response as JSON and checks it. It returns the
// parsed value when there are no problems. A response wrapped in one
// Markdown code fence is accepted: models add them by habit.
func (s *Schema) Validate(text string) (any, []Problem) {
	v, err := ParseJSON(text)
	if err != nil {
		return nil, []Problem{{Path: "$", Reason: err.Error()}}
	}
	if problems := s.ValidateValue(v); len(problems) > 0 {
		return nil, problems
	}
	return v, nil
}

// ValidateValue checks an already parsed value (numbers as json.Number or
// float64).
func (s *Schema) ValidateValue(v any) []Problem {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Path: "$", Reason: oneLine(err.Error())}}
	}
	var out []Problem
	collect(ve, &out)
	if len(out) == 0 {
		out = []Problem{{Path: "$", Reason: oneLine(ve.Error())}}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return dedupe(out)
}

var printer = message.NewPrinter(language.English)

// collect keeps the leaves of the error tree: they name the exact value
// and keyword that failed; the inner nodes only say "see below".
func collect(e *jsonschema.ValidationError, out *[]Problem) {
	if len(e.Causes) == 0 {
		*out = append(*out, Problem{Path: pathOf(e.InstanceLocation), Reason: oneLine(e.ErrorKind.LocalizedString(printer))})
		return
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

func dedupe(ps []Problem) []Problem {
	seen := map[Problem]bool{}
	out := ps[:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// ParseJSON reads one JSON value, numbers kept exact, with nothing after
// it but whitespace. One surrounding code fence is removed first.
func ParseJSON(text string) (any, error) {
	text = stripFence(strings.TrimSpace(text))
	if text == "" {
		return nil, errors.New("the response is empty, and it must be a JSON value")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("the response is not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the response has text after its JSON value; give the JSON value alone")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("the response has text after its JSON value; give the JSON value alone")
	}
	return v, nil
}

func stripFence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	body := strings.TrimSuffix(s[3:], "```")
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[\"") {
		body = body[nl+1:] // a language tag such as json
	}
	return strings.TrimSpace(body)
}

// ReadResult reads and checks a result file (a final run's result.json).
// A missing file is an error wrapping os.ErrNotExist.
func (s *Schema) ReadResult(path string) (any, []Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	v, problems := s.Validate(string(data))
	return v, problems, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalizeYAML turns the map[any]any a YAML decoder may produce into
// map[string]any so the schema can be written as JSON.
func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalizeYAML(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = normalizeYAML(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normalizeYAML(x)
		}
		return out
	}
	return v
}

// Fields names the result's top-level fields: the properties of an object
// schema, or of the items of an array schema. A crafted tool's --help must
// name them, since they are what its run() returns.
func (s *Schema) Fields() []string {
	var doc map[string]any
	if json.Unmarshal([]byte(s.text), &doc) != nil {
		return nil
	}
	props, _ := doc["properties"].(map[string]any)
	if props == nil {
		if items, ok := doc["items"].(map[string]any); ok {
			props, _ = items["properties"].(map[string]any)
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// jsonPosition says where data stops being JSON (" at line L, column C"),
// or nothing when encoding/json cannot tell: the schema library's own error
// gives an offset at most, and a person fixes a file by line.
func jsonPosition(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	if !errors.As(err, &syn) {
		return ""
	}
	off := int(syn.Offset)
	if off > len(data) {
		off = len(data)
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := off - bytes.LastIndexByte(before, '\n')
	if off > 0 {
		// Offset counts the byte that broke the parse; point at it.
		col--
	}
	return fmt.Sprintf(" at line %d, column %d", line, max(col, 1))
}
