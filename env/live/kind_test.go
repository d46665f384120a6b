package live

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"wright/env"
)

// TestPythonCheck: live mode's syntax check runs on the interpreter behind
// python3, asked once, and answers as before: nothing for good code (a
// top-level await included: the runner accepts it), the line and a caret
// for bad code.
func TestPythonCheck(t *testing.T) {
	ctx := context.Background()
	if err := checkPython(ctx, "x = 1\nawait page.get_by_role('button').click()\n"); err != nil {
		t.Fatalf("good code refused: %v", err)
	}
	err := checkPython(ctx, "x = (1,\nprint(x)\n")
	var se *env.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Message, "line 1") || !strings.Contains(se.Message, "does not parse") {
		t.Fatalf("bad code: %v", err)
	}
	if exe := checker(); exe == "" || strings.Contains(exe, "shims") {
		t.Errorf("checker %q is not an interpreter", exe)
	}
	began := time.Now()
	for i := 0; i < 5; i++ {
		if err := checkPython(ctx, "print(1)"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("a check: %v (mean of 5) on %s", time.Since(began)/5, checker())
}

// TestSyntaxCheckAnsweredByTheRunner: with a runner up, a step's check is
// answered by it (no python3 of its own) and says exactly what the process
// check says, for good code and bad, bytes that are not UTF-8 and a coding
// line included; code of the model's that replaced ast.parse in the shared
// interpreter does not change what the check says.
func TestSyntaxCheckAnsweredByTheRunner(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	ctx := context.Background()
	codes := []string{
		"print(1)",
		"x = 1\nawait page.get_by_role('button').click()\n",
		"x = (\n1",
		"def f(:\n    pass",
		"print(1)\n    print(2)",
		"a\x00b",
		"s = '\xff\xfe'",
		"# -*- coding: latin-1 -*-\ns = '\xe9'\n",
		"if True:\n\tx = (1,\n",
	}
	same := func(when string) {
		t.Helper()
		for _, code := range codes {
			if _, ok := e.checkInRunner(ctx, code); !ok {
				t.Fatalf("%s: the runner did not answer the check of %q", when, code)
			}
			got, want := e.Kind().Check(ctx, code), checkPython(ctx, code)
			if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
				t.Errorf("%s: %q: the runner's check says %v, the process check %v", when, code, got, want)
			}
		}
	}
	same("at the start")
	wantSuccess(t, step(t, e, 1, "import ast\nast.parse = lambda *a, **k: None\nprint('replaced')"))
	same("after the model replaced ast.parse")
}
