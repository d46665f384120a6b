package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const bookSchema = `{
  "type": "object",
  "properties": {
    "title":  {"type": "string", "minLength": 1},
    "author": {"type": "string"},
    "price":  {"type": "number", "minimum": 0},
    "tags":   {"type": "array", "items": {"type": "string"}}
  },
  "required": ["title", "author", "price"],
  "additionalProperties": false
}`

func mustCompile(t *testing.T, src string) *Schema {
	t.Helper()
	s, err := Compile([]byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidateAcceptsAndReturnsTheValue(t *testing.T) {
	s := mustCompile(t, bookSchema)
	for _, text := range []string{
		`{"title": "The Go Programming Language", "author": "Donovan", "price": 39.99}`,
		"```json\n{\"title\": \"T\", \"author\": \"A\", \"price\": 1}\n```",
		"  {\"title\": \"T\", \"author\": \"A\", \"price\": 0, \"tags\": []}\n",
	} {
		v, problems := s.Validate(text)
		if len(problems) > 0 {
			t.Fatalf("%q: %v", text, problems)
		}
		if m, ok := v.(map[string]any); !ok || m["title"] == nil {
			t.Fatalf("%q: value %#v", text, v)
		}
	}
	v, _ := s.Validate(`{"title": "T", "author": "A", "price": 39.99}`)
	b, _ := json.Marshal(v)
	if !strings.Contains(string(b), `"price":39.99`) {
		t.Fatalf("number not kept exact: %s", b)
	}
}

func TestValidateNamesPathAndReason(t *testing.T) {
	s := mustCompile(t, bookSchema)
	cases := []struct{ text, path, reason string }{
		{`{"title": "T", "author": "A", "price": "39.99"}`, "$.price", "want number"},
		{`{"title": "T", "author": "A"}`, "$", "price"},
		{`{"title": "T", "author": "A", "price": 1, "tags": ["a", 2]}`, "$.tags[1]", "want string"},
		{`{"title": "", "author": "A", "price": 1}`, "$.title", "length"},
		{`{"title": "T", "author": "A", "price": 1, "isbn": "x"}`, "$", "isbn"},
		{`The price is $39.99`, "$", "not JSON"},
		{`{"title": "T", "author": "A", "price": 1} and more`, "$", "after its JSON value"},
		{``, "$", "empty"},
	}
	for _, c := range cases {
		v, problems := s.Validate(c.text)
		if v != nil || len(problems) == 0 {
			t.Fatalf("%q accepted", c.text)
		}
		ok := false
		for _, p := range problems {
			if p.Path == c.path && strings.Contains(strings.ToLower(p.Reason), strings.ToLower(c.reason)) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%q: want %s with %q, got %v", c.text, c.path, c.reason, problems)
		}
	}
}

func TestBadSchemasAreErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct{ name, text, want string }{
		{"notjson.json", `{"type": "object",`, "not JSON"},
		{"notschema.json", `{"type": 5}`, "not a valid JSON Schema"},
		{"array.json", `[1, 2]`, "not a valid JSON Schema"},
		{"missingref.json", `{"$ref": "nowhere.json"}`, "$ref cannot be resolved"},
		{"remoteref.json", `{"$ref": "https://example.org/s.json"}`, "$ref cannot be resolved"},
		{"badpointer.json", `{"$ref": "#/$defs/none"}`, "$ref cannot be resolved"},
	}
	for _, c := range cases {
		_, err := Load(write(c.name, c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error with %q, got %v", c.name, c.want, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestRelativeRefsResolveBesideTheFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "price.json"), []byte(`{"type": "number"}`), 0o644)
	main := filepath.Join(dir, "main.json")
	os.WriteFile(main, []byte(`{"type": "object", "properties": {"price": {"$ref": "price.json"}}}`), 0o644)
	s, err := Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if _, problems := s.Validate(`{"price": "x"}`); len(problems) != 1 || problems[0].Path != "$.price" {
		t.Fatalf("problems %v", problems)
	}
}

func TestFromConfig(t *testing.T) {
	if s, err := FromConfig(nil); s != nil || err != nil {
		t.Fatal("nil should be no schema")
	}
	if s, err := FromConfig("  "); s != nil || err != nil {
		t.Fatal("blank should be no schema")
	}
	inline := map[string]any{"type": "object", "required": []any{"Price"},
		"properties": map[any]any{"Price": map[string]any{"type": "number"}}}
	s, err := FromConfig(inline)
	if err != nil {
		t.Fatal(err)
	}
	if _, problems := s.Validate(`{"Price": "x"}`); len(problems) == 0 || problems[0].Path != "$.Price" {
		t.Fatalf("problems %v", problems)
	}
	if !strings.Contains(s.Text(), `"Price"`) {
		t.Fatalf("text %s", s.Text())
	}
	if _, err := FromConfig(map[string]any{"type": "nothing"}); err == nil {
		t.Fatal("a bad inline schema compiled")
	}
}

func TestPaths(t *testing.T) {
	if got := pathOf([]string{"items", "0", "unit price", "x_1"}); got != `$.items[0]["unit price"].x_1` {
		t.Fatalf("pathOf: %s", got)
	}
	var v any
	json.Unmarshal([]byte(`{"a": {"b": [10, {"c d": "x"}]}, "0": "zero"}`), &v)
	for path, want := range map[string]string{
		"$.a.b[0]":           "10",
		"$.a.b[1]['c d']":    "x",
		`$["a"].b[1]["c d"]`: "x",
		"$[0]":               "zero",
	} {
		got, found, err := Lookup(v, path)
		if err != nil || !found || render(got) != want {
			t.Errorf("%s: %v %v %v", path, got, found, err)
		}
	}
	for _, path := range []string{"$.a.x", "$.a.b[5]", "$.a.b[0].z"} {
		if _, found, err := Lookup(v, path); found || err != nil {
			t.Errorf("%s: found %v err %v", path, found, err)
		}
	}
	for _, bad := range []string{"a.b", "$.", "$[x]", "$[1", "$!"} {
		if _, _, err := Lookup(v, bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestFields(t *testing.T) {
	if got := strings.Join(mustCompile(t, bookSchema).Fields(), ","); got != "author,price,tags,title" {
		t.Errorf("object fields %q", got)
	}
	list := mustCompile(t, `{"type": "array", "items": {"type": "object", "properties": {"from": {}, "to": {}}}}`)
	if got := strings.Join(list.Fields(), ","); got != "from,to" {
		t.Errorf("array fields %q", got)
	}
	if got := mustCompile(t, `{"type": "number"}`).Fields(); len(got) != 0 {
		t.Errorf("scalar fields %q", got)
	}
}

func BenchmarkValidate(b *testing.B) {
	s, err := Compile([]byte(bookSchema), "")
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, problems := s.Validate(`{"title": "The Go Programming Language", "author": "Donovan", "price": 39.99, "tags": ["go"]}`); problems != nil {
			b.Fatal(problems)
		}
	}
}

// TestNotJSONSaysWhere: a schema file that is not JSON is refused with the
// line and column where it stops being JSON.
func TestNotJSONSaysWhere(t *testing.T) {
	cases := map[string]string{
		"{\n  \"type\": \"object\",\n  \"properties\": }\n": "at line 3, column 17",
		"{\"type\": \"object\",}":                           "at line 1, column 19",
		"type: object\n":                                    "at line 1, column 2",
	}
	for text, want := range cases {
		_, err := Compile([]byte(text), "book.json")
		if err == nil || !strings.Contains(err.Error(), "book.json: not JSON "+want) {
			t.Errorf("Compile(%q) = %v, want an error naming book.json %s", text, err, want)
		}
	}
}
