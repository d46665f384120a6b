package env_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"wright/env"
	"wright/env/live"
	"wright/env/workspace"
)

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		name    string
		kind    env.Kind
		code    string
		wantErr []string // substrings of the reason; nil = parses
	}{
		{"bash ok", workspace.Kind, "ls -la && echo done", nil},
		{"bash heredoc ok", workspace.Kind, "cat > f.py <<'EOF'\nprint('x'\nEOF\nwc -l f.py", nil},
		{"bash empty", workspace.Kind, "  \n", nil},
		{"bash missing fi", workspace.Kind, "if true; then\n  echo hi\n", []string{"bash_command", "line 3", "unexpected end of file"}},
		{"bash unmatched quote", workspace.Kind, "echo 'oops", []string{"line 1", "matching"}},
		{"bash stray paren", workspace.Kind, "echo a\nls )", []string{"line 2", "syntax error near unexpected token"}},
		{"bash is not run", workspace.Kind, "touch should_not_exist; if", []string{"unexpected end of file"}},
		{"python ok", live.Kind, "import json\nprint(json.dumps({'a': 1}))", nil},
		{"python ok with top-level await-free client", live.Kind, "page.goto('https://example.com')\nprint(page.title())", nil},
		{"python unclosed paren", live.Kind, "x = (\n1", []string{"python_code", "line 1", "never closed", "x = ("}},
		{"python bad def", live.Kind, "def f(:\n    pass", []string{"line 1", "invalid syntax", "^"}},
		{"python bad indent", live.Kind, "print(1)\n    print(2)", []string{"line 2", "indent"}},
		{"python null byte", live.Kind, "a\x00b", []string{"null bytes"}},
		{"python bad encoding", live.Kind, "s = '\xff\xfe'", []string{"python_code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.kind.Check(context.Background(), tt.code)
			if tt.wantErr == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			var fe *env.SyntaxError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v (%T), want a *env.SyntaxError", err, err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(fe.Message, w) {
					t.Errorf("reason %q lacks %q", fe.Message, w)
				}
			}
		})
	}
}

func TestCheckSyntaxDoesNotRunTheCode(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := workspace.Kind.Check(context.Background(), "touch ran_bash"); err != nil {
		t.Fatal(err)
	}
	if err := live.Kind.Check(context.Background(), "open('ran_python', 'w').close()"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ran_bash", "ran_python"} {
		if fileExists(name) {
			t.Errorf("%s exists: the code was run, not parsed", name)
		}
	}
}

func TestCheckSyntaxCancelledContext(t *testing.T) {
	var fe *env.SyntaxError
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := workspace.Kind.Check(ctx, "ls"); err == nil || errors.As(err, &fe) {
		t.Errorf("cancelled: err = %v, want a plain error (not the model's fault)", err)
	}
}

func BenchmarkCheckSyntax(b *testing.B) {
	for _, kind := range []env.Kind{workspace.Kind, live.Kind} {
		b.Run(kind.Field, func(b *testing.B) {
			for b.Loop() {
				if err := kind.Check(context.Background(), "print_it = 1"); err != nil {
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
