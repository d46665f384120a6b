package model

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		name    string
		field   string
		code    string
		wantErr []string // substrings of the reason; nil = parses
	}{
		{"bash ok", FieldBash, "ls -la && echo done", nil},
		{"bash heredoc ok", FieldBash, "cat > f.py <<'EOF'\nprint('x'\nEOF\nwc -l f.py", nil},
		{"bash empty", FieldBash, "  \n", nil},
		{"bash missing fi", FieldBash, "if true; then\n  echo hi\n", []string{"bash_command", "line 3", "unexpected end of file"}},
		{"bash unmatched quote", FieldBash, "echo 'oops", []string{"line 1", "matching"}},
		{"bash stray paren", FieldBash, "echo a\nls )", []string{"line 2", "syntax error near unexpected token"}},
		{"bash is not run", FieldBash, "touch should_not_exist; if", []string{"unexpected end of file"}},
		{"python ok", FieldPython, "import json\nprint(json.dumps({'a': 1}))", nil},
		{"python ok with top-level await-free client", FieldPython, "page.goto('https://example.com')\nprint(page.title())", nil},
		{"python unclosed paren", FieldPython, "x = (\n1", []string{"python_code", "line 1", "never closed", "x = ("}},
		{"python bad def", FieldPython, "def f(:\n    pass", []string{"line 1", "invalid syntax", "^"}},
		{"python bad indent", FieldPython, "print(1)\n    print(2)", []string{"line 2", "indent"}},
		{"python null byte", FieldPython, "a\x00b", []string{"null bytes"}},
		{"python bad encoding", FieldPython, "s = '\xff\xfe'", []string{"python_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSyntax(context.Background(), tt.field, tt.code)
			if tt.wantErr == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *FormatError", err, err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(fe.Reason, w) {
					t.Errorf("reason %q lacks %q", fe.Reason, w)
				}
			}
		})
	}
}

func TestCheckSyntaxDoesNotRunTheCode(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := CheckSyntax(context.Background(), FieldBash, "touch ran_bash"); err != nil {
		t.Fatal(err)
	}
	if err := CheckSyntax(context.Background(), FieldPython, "open('ran_python', 'w').close()"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ran_bash", "ran_python"} {
		if fileExists(name) {
			t.Errorf("%s exists: the code was run, not parsed", name)
		}
	}
}

func TestCheckSyntaxUnknownFieldAndCancelledContext(t *testing.T) {
	var fe *FormatError
	if err := CheckSyntax(context.Background(), "ruby_code", "puts 1"); err == nil || errors.As(err, &fe) {
		t.Errorf("unknown field: err = %v, want a plain error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := CheckSyntax(ctx, FieldBash, "ls"); err == nil || errors.As(err, &fe) {
		t.Errorf("cancelled: err = %v, want a plain error (not the model's fault)", err)
	}
}

func BenchmarkCheckSyntax(b *testing.B) {
	for _, field := range []string{FieldBash, FieldPython} {
		b.Run(field, func(b *testing.B) {
			for b.Loop() {
				if err := CheckSyntax(context.Background(), field, "print_it = 1"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
