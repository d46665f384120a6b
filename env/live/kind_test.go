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
