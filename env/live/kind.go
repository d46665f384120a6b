package live

import (
	"context"
	"encoding/base64"
	"os/exec"
	"strings"
	"sync"
	"time"

	"wright/env"
)

// Kind is live mode's action: Python for the live page, checked with
// Python's ast.parse.
var Kind = env.Kind{Field: "python_code", Lang: "python", Check: checkPython}

// Kind is the kind of action the live page runs. Its check asks the
// running Python runner (checkInRunner), so a step starts no process of its
// own; the answer is the one Kind's own check gives.
func (e *Env) Kind() env.Kind {
	k := Kind
	k.Check = e.checkSyntax
	return k
}

// runnerCheckLimit bounds how long a check waits for the runner, which is
// idle between steps; past it (a thread of the model's holds the
// interpreter, say) the check is a process of its own, as before.
const runnerCheckLimit = 2 * time.Second

// checkSyntax parses code in the runner when one is up and idle, else in a
// python3 of its own (checkPython).
func (e *Env) checkSyntax(ctx context.Context, code string) error {
	if strings.TrimSpace(code) == "" {
		return nil
	}
	if msg, ok := e.checkInRunner(ctx, code); ok {
		if msg == "" {
			return nil
		}
		return env.Unparsed(Kind.Field, msg)
	}
	return checkPython(ctx, code)
}

// checkInRunner asks the runner to parse code; ok is false when it could
// not answer (none running, a step under way, no answer in time).
func (e *Env) checkInRunner(ctx context.Context, code string) (msg string, ok bool) {
	if !e.mu.TryLock() {
		return "", false
	}
	defer e.mu.Unlock()
	if e.py == nil || !e.py.alive() {
		return "", false
	}
	// The bytes as they came, as the process check reads them: a coding
	// line or a byte that is not UTF-8 parses the same way in both.
	a, err := e.py.call(ctx, map[string]any{"op": "check", "source": base64.StdEncoding.EncodeToString([]byte(code))}, runnerCheckLimit)
	if err != nil {
		return "", false
	}
	m, isString := a["message"].(string)
	if !isString {
		return "", false
	}
	return strings.TrimSpace(m), true
}

// pythonCheck parses stdin as Python and prints one short message with the
// line number when it does not parse.
const pythonCheck = `import ast, sys
src = sys.stdin.buffer.read()
try:
    ast.parse(src, "<python_code>")
except SyntaxError as e:
    msg = ("line %s: %s" % (e.lineno, e.msg)) if e.lineno else str(e.msg)
    if e.text and e.text.strip():
        text = e.text.rstrip("\r\n")
        msg += "\n    " + text
        if e.offset and 0 < e.offset <= len(text) + 1:
            pad = "".join(c if c == "\t" else " " for c in text[:e.offset - 1])
            msg += "\n    " + pad + "^"
    print(msg)
    sys.exit(1)
except (ValueError, UnicodeDecodeError) as e:
    print(e)
    sys.exit(1)
`

func checkPython(ctx context.Context, code string) error {
	return env.CheckWith(ctx, "python_code", code, []string{checker(), "-I", "-S", "-c", pythonCheck}, nil)
}

// checker is the interpreter behind python3 on PATH, asked once: a version
// manager's python3 (pyenv, asdf) is a shell script that picks a version on
// every start, about 100 ms that each step's check would pay again.
var checker = sync.OnceValue(func() string {
	out, err := exec.Command("python3", "-I", "-S", "-c", "import sys; print(sys.executable)").Output()
	if exe := strings.TrimSpace(string(out)); err == nil && exe != "" {
		return exe
	}
	return "python3"
})
