package model

import (
	"errors"
	"strings"
	"testing"
)

// parseCase is one reply as models really send them.
type parseCase struct {
	name    string
	content string
	finish  string
	field   string // "" = bash_command
	want    *Action
	wantErr string // a substring of the FormatError's reason
}

func act(thought, field, code string, done bool, final string) *Action {
	return &Action{Thought: thought, Field: field, Code: code, Done: done, FinalResponse: final}
}

var parseCases = []parseCase{
	{
		name:    "plain object",
		content: `{"thought": "list files", "bash_command": "ls -la", "done": false, "final_response": ""}`,
		want:    act("list files", FieldBash, "ls -la", false, ""),
	},
	{
		name:    "python field in browser mode",
		content: `{"thought": "open it", "python_code": "page.goto('https://example.com')", "done": false, "final_response": ""}`,
		field:   FieldPython,
		want:    act("open it", FieldPython, "page.goto('https://example.com')", false, ""),
	},
	{
		name:    "json code fence",
		content: "```json\n{\"thought\": \"check\", \"bash_command\": \"pwd\", \"done\": false, \"final_response\": \"\"}\n```",
		want:    act("check", FieldBash, "pwd", false, ""),
	},
	{
		name:    "prose around the object",
		content: "Sure! Here is my next step:\n{\"thought\": \"t\", \"bash_command\": \"echo hi\", \"done\": false, \"final_response\": \"\"}\nLet me know how it goes.",
		want:    act("t", FieldBash, "echo hi", false, ""),
	},
	{
		name:    "think tags before the object",
		content: "<think>The user wants {files}. I could run {\"thought\": \"draft\"}... ok.</think>\n{\"thought\": \"real\", \"bash_command\": \"ls\", \"done\": false, \"final_response\": \"\"}",
		want:    act("real", FieldBash, "ls", false, ""),
	},
	{
		name:    "orphan closing think tag",
		content: "reasoning without the opening tag {draft}</think>{\"thought\": \"real\", \"bash_command\": \"ls\", \"done\": false, \"final_response\": \"\"}",
		want:    act("real", FieldBash, "ls", false, ""),
	},
	{
		name:    "think tags inside the code are kept",
		content: `{"thought": "search", "bash_command": "grep -n '<think>' out.txt", "done": false, "final_response": ""}`,
		want:    act("search", FieldBash, "grep -n '<think>' out.txt", false, ""),
	},
	{
		name:    "a literal think tag in prose",
		content: `I never use <think> tags. {"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}`,
		want:    act("t", FieldBash, "ls", false, ""),
	},
	{
		name:    "unclosed think",
		content: "<think>I am still reasoning about {this} and",
		wantErr: "never closed it",
	},
	{
		// A second action after the first used to be dropped silently:
		// the model believed both ran.
		name:    "two objects: a format error",
		content: `{"thought": "one", "bash_command": "ls", "done": false, "final_response": ""} {"thought": "two", "bash_command": "pwd", "done": false, "final_response": ""}`,
		wantErr: "more than one JSON object",
	},
	{
		name:    "a trailing object of any shape: a format error",
		content: "```json\n{\"thought\": \"one\", \"bash_command\": \"ls\", \"done\": false, \"final_response\": \"\"}\n```\nthen {\"done\": true}",
		wantErr: "more than one JSON object",
	},
	{
		name:    "trailing prose braces are not an object",
		content: `{"thought": "one", "bash_command": "ls", "done": false, "final_response": ""} and {not json}`,
		want:    act("one", FieldBash, "ls", false, ""),
	},
	{
		name:    "prose braces before the object",
		content: `I will use {curly} braces, then: {"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}`,
		want:    act("t", FieldBash, "ls", false, ""),
	},
	{
		name:    "nested braces and quotes in strings",
		content: `{"thought": "a \"quoted\" } brace", "bash_command": "awk '{print $1}' f | jq '{a: .b}'", "done": false, "final_response": ""}`,
		want:    act(`a "quoted" } brace`, FieldBash, "awk '{print $1}' f | jq '{a: .b}'", false, ""),
	},
	{
		name:    "escaped backslash before a closing quote",
		content: `{"thought": "path", "bash_command": "echo C:\\dir\\", "done": false, "final_response": ""}`,
		want:    act("path", FieldBash, `echo C:\dir\`, false, ""),
	},
	{
		name:    "trailing text after the object",
		content: `{"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}` + "\n\nI hope this helps! {",
		want:    act("t", FieldBash, "ls", false, ""),
	},
	{
		name:    "done with final response",
		content: `{"thought": "finished", "bash_command": "", "done": true, "final_response": "The answer is 42."}`,
		want:    act("finished", FieldBash, "", true, "The answer is 42."),
	},
	{
		name:    "done with an action is demoted",
		content: `{"thought": "last check", "bash_command": "cat result.txt", "done": true, "final_response": "42"}`,
		want:    &Action{Thought: "last check", Field: FieldBash, Code: "cat result.txt", Done: false, FinalResponse: "42", Demoted: true},
	},
	{
		name:    "truncated by the token limit",
		content: `{"thought": "I will now write a very long script", "bash_command": "cat > final_script.py <<'EOF'\nimport os\nfor`,
		finish:  "length",
		wantErr: "cut off by the token limit",
	},
	{
		name:    "empty reply cut off",
		content: "",
		finish:  "length",
		wantErr: "cut off by the token limit",
	},
	{
		name:    "empty reply",
		content: "  \n",
		wantErr: "empty",
	},
	{
		name:    "unterminated without length",
		content: `{"thought": "oops", "bash_command": "ls"`,
		wantErr: "never closed",
	},
	{
		name:    "single quotes",
		content: `{'thought': 'list', 'bash_command': 'ls', 'done': False, 'final_response': ''}`,
		wantErr: "double quotes",
	},
	{
		name:    "single quotes with a nested double-quoted object",
		content: `{'thought': 'x', 'bash_command': 'ls', 'meta': {"a": 1}}`,
		wantErr: "double quotes",
	},
	{
		name:    "raw newline inside a string",
		content: "{\"thought\": \"t\", \"bash_command\": \"echo a\necho b\", \"done\": false, \"final_response\": \"\"}",
		wantErr: `\n`,
	},
	{
		name:    "trailing comma",
		content: `{"thought": "t", "bash_command": "ls", "done": false, "final_response": "",}`,
		wantErr: "trailing comma",
	},
	{
		name:    "no JSON at all",
		content: "I'll list the files with ls -la.",
		wantErr: "no JSON object",
	},
	{
		name:    "missing fields",
		content: `{"thought": "t", "bash_command": "ls"}`,
		wantErr: `Missing fields "done", "final_response"`,
	},
	{
		name:    "missing thought",
		content: `{"bash_command": "ls", "done": false, "final_response": ""}`,
		wantErr: `Missing field "thought"`,
	},
	{
		name:    "extra fields",
		content: `{"thought": "t", "bash_command": "ls", "done": false, "final_response": "", "plan": "x", "confidence": 0.9}`,
		wantErr: `Unknown fields "confidence", "plan"`,
	},
	{
		name:    "wrapped in another object",
		content: `{"action": {"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}}`,
		wantErr: `Unknown field "action"`,
	},
	{
		name:    "other mode's field in workspace mode",
		content: `{"thought": "t", "python_code": "print(1)", "done": false, "final_response": ""}`,
		wantErr: `This run takes "bash_command", not "python_code"`,
	},
	{
		name:    "other mode's field in browser mode",
		content: `{"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}`,
		field:   FieldPython,
		wantErr: `This run takes "python_code", not "bash_command"`,
	},
	{
		name:    "done as a string",
		content: `{"thought": "t", "bash_command": "", "done": "true", "final_response": "x"}`,
		wantErr: `"done" must be true or false (a JSON boolean), not "true" (a string)`,
	},
	{
		name:    "code as a list",
		content: `{"thought": "t", "bash_command": ["ls", "pwd"], "done": false, "final_response": ""}`,
		wantErr: `"bash_command" must be a string, not an array`,
	},
	{
		name:    "null final response",
		content: `{"thought": "t", "bash_command": "ls", "done": false, "final_response": null}`,
		wantErr: `"final_response" must be a string, not null`,
	},
	{
		name:    "empty thought",
		content: `{"thought": "  ", "bash_command": "ls", "done": false, "final_response": ""}`,
		wantErr: `"thought" is empty`,
	},
	{
		name:    "neither action nor done",
		content: `{"thought": "hmm", "bash_command": "", "done": false, "final_response": ""}`,
		wantErr: `"bash_command" is empty and "done" is false`,
	},
	{
		name:    "a JSON array",
		content: `[{"thought": "t"}]`,
		wantErr: "Missing fields",
	},
	{
		name:    "unicode and escapes",
		content: `{"thought": "caf\u00e9 ☕", "bash_command": "printf 'a\\tb\\n'", "done": false, "final_response": ""}`,
		want:    act("café ☕", FieldBash, `printf 'a\tb\n'`, false, ""),
	},
}

func TestParseAction(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			field := tc.field
			if field == "" {
				field = FieldBash
			}
			got, err := ParseAction(tc.content, tc.finish, field)
			if tc.want != nil {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if got != *tc.want {
					t.Errorf("got  %+v\nwant %+v", got, *tc.want)
				}
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *FormatError", err, err)
			}
			if !strings.Contains(fe.Reason, tc.wantErr) {
				t.Errorf("reason = %q\nwant it to contain %q", fe.Reason, tc.wantErr)
			}
		})
	}
}

func TestParseActionDefaultsToBash(t *testing.T) {
	got, err := ParseAction(`{"thought": "t", "bash_command": "ls", "done": false, "final_response": ""}`, "stop", "")
	if err != nil || got.Field != FieldBash || got.Code != "ls" {
		t.Errorf("got %+v, err %v", got, err)
	}
}

func TestActionJSONRoundTrips(t *testing.T) {
	for _, a := range []Action{
		*act("t", FieldBash, "echo '<b>&</b>'", false, ""),
		*act("t", FieldPython, "", true, "done \"quoted\""),
		{Thought: "t", Field: FieldBash, Code: "ls", FinalResponse: "x", Demoted: true},
		// Tags and braces inside strings must not be taken for reasoning.
		*act("<think>", FieldBash, "</think>", false, ""),
		*act("a</think>{", FieldBash, "ls", false, "}"),
		*act("x", FieldPython, "", true, "</think>{}"),
		*act("{\"thought\": \"inner\"}", FieldBash, "echo '{}'", false, ""),
	} {
		got, err := ParseAction(a.JSON(), "stop", a.Field)
		if err != nil || got != a {
			t.Errorf("%s\n parsed to %+v, %v", a.JSON(), got, err)
		}
	}
}

func TestFormatErrorReasonsAreShort(t *testing.T) {
	// The lead renders Reason into the format-error template: it must stay
	// a sentence or two, whatever the reply was.
	huge := `{"thought": "t", "bash_command": ` + strings.Repeat(`"x", `, 5000) + `}`
	for _, content := range []string{huge, strings.Repeat("{", 10000), strings.Repeat("no json ", 10000)} {
		_, err := ParseAction(content, "stop", FieldBash)
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("reason of %d bytes: %.200q", len(err.Error()), err)
		}
	}
}

func BenchmarkParseAction(b *testing.B) {
	content := "<think>" + strings.Repeat("reasoning {about} things. ", 200) + "</think>\n```json\n" +
		`{"thought": "write the script", "bash_command": "cat > final_script.py <<'EOF'\n` +
		strings.Repeat(`print(\"line {}\".format(1))\n`, 200) + `EOF", "done": false, "final_response": ""}` + "\n```"
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, err := ParseAction(content, "stop", FieldBash); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseActionPathological(b *testing.B) {
	content := strings.Repeat(`{"`, 50000)
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		_, _ = ParseAction(content, "stop", FieldBash)
	}
}

// A megabyte of one character is refused by its size before any scan or
// count sees it.
func TestParseActionSizeCap(t *testing.T) {
	_, err := ParseAction(strings.Repeat("a", 1<<20), "stop", FieldBash)
	var fe *FormatError
	if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "over the limit") {
		t.Fatalf("1 MiB reply: err = %v, want a format error about the size", err)
	}
	ok := `{"thought": "t", "bash_command": "echo ` + strings.Repeat("x", 1000) + `", "done": false, "final_response": ""}`
	if _, err := ParseAction(ok, "stop", FieldBash); err != nil {
		t.Fatalf("ordinary reply: %v", err)
	}
}
