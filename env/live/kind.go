package live

import (
	"context"
	"os/exec"
	"strings"
	"sync"

	"wright/env"
)

// Kind is live mode's action: Python for the live page, checked with
// Python's ast.parse.
var Kind = env.Kind{Field: "python_code", Lang: "python", Check: checkPython}

// Kind is the kind of action the live page runs.
func (e *Env) Kind() env.Kind { return Kind }

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
