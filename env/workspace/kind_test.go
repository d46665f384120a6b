package workspace

import (
	"context"
	"errors"
	"strings"
	"testing"

	"wright/env"
)

// bashCases are commands checked both in process and by bash -n. via says
// which one answers: "parser" when the command parses in process (no
// process is started), "bash" when bash -n is asked (the parser refuses, or
// the command holds a form bash may refuse).
var bashCases = []struct {
	name, code string
	ok         bool
	via        string
}{
	{"heredoc", "cat > f.py <<'EOF'\nprint('x'\nEOF\nwc -l f.py", true, "parser"},
	{"heredoc with tabs", "cat <<-EOF\n\tx $y\n\tEOF", true, "parser"},
	{"two heredocs on a line", "cat <<A > a; cat <<B > b\na\nA\nb\nB", true, "parser"},
	{"heredoc in a command substitution", "x=$(cat <<EOF\nhi\nEOF\n)", true, "parser"},
	{"unterminated heredoc", "cat <<EOF\nx", true, "bash"}, // bash warns and accepts
	{"arithmetic", "echo $(( (1 + 2) * 3 ** 2 )) $((a[1]++)) $(( a ? b : c ))", true, "parser"},
	{"arithmetic command and for", "for ((i = 0; i < 3; i++)); do ((n += i)); done", true, "parser"},
	{"empty arithmetic", "echo $(( ))", true, "bash"}, // an error only when run
	{"subshell at $(( ", "echo $((echo a); echo b)", true, "bash"},
	{"test clause", "[[ -f $a && $a == *.txt || $a =~ ^(x|y)[0-9]+$ ]] && echo y", true, "parser"},
	{"arrays", "a=(1 \"x y\"); a+=(3); declare -A m=([k]=v); echo \"${a[@]}\" ${#a[@]} ${!m[@]} ${a[-1]}", true, "parser"},
	{"case", "case $x in\n  a|b) echo ab ;;\n  (c) echo c ;&\n  *) echo other ;;&\nesac", true, "parser"},
	{"functions", "f() { local x=1; return 0; }\nfunction g { f; }\nh() ( cd /tmp )\ng", true, "parser"},
	{"process substitution", "diff <(ls a) <(ls b) > >(tee log)", true, "parser"},
	{"expansions", "echo ${x:-d} ${x//a/b} ${x^^} ${x@Q} $'t\\tb' \"$(echo \"$(date)\")\" `pwd`", true, "parser"},
	{"loops and pipes", "while read -r l; do echo \"$l\"; done < <(ls) |& sort -u; until false; do break; done", true, "parser"},
	{"if elif else", "if [ -f a ]; then :; elif ! true; then :; else exit 1; fi", true, "parser"},
	{"not UTF-8", "echo '\xff'", true, "bash"},

	{"unterminated single quote", "echo 'oops", false, "bash"},
	{"unterminated double quote", "echo \"oops\nls", false, "bash"},
	{"unterminated backquote", "echo `ls", false, "bash"},
	{"unterminated if", "if true; then\n  echo hi\n", false, "bash"},
	{"unterminated case", "case x in a) echo;;", false, "bash"},
	{"unterminated command substitution", "echo $(ls", false, "bash"},
	{"unterminated arithmetic", "echo $(( 1 + 2", false, "bash"},
	{"unterminated brace", "{ ls", false, "bash"},
	{"stray fi", "echo a\nfi", false, "bash"},
	{"stray done", "ls\ndone\necho b", false, "bash"},
	{"stray paren", "echo a\nls )", false, "bash"},
	{"empty then", "if true; then fi", false, "bash"},
	{"do without a loop", "do ls", false, "bash"},
	{"double semicolon", "ls ;;", false, "bash"},
	{"leading and", "&& ls", false, "bash"},
	{"the code is not run", "touch should_not_exist; if", false, "bash"},
	// mvdan.cc/sh takes these; bash -n does not, so bash is asked.
	{"function body not compound", "f() ls", false, "bash"},
	{"reserved word as a command", "in", false, "bash"},
	{"extended glob", "ls @(a|b)", false, "bash"},
}

func TestCheckBashAgreesWithBash(t *testing.T) {
	ctx := context.Background()
	for _, tc := range bashCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := parses(tc.code); got != (tc.via == "parser") {
				t.Errorf("parses = %v, want the answer from %s", got, tc.via)
			}
			want := bashN(ctx, tc.code)
			if (want == nil) != tc.ok {
				t.Fatalf("bash -n: %v, want ok=%v (the table is wrong)", want, tc.ok)
			}
			got := checkBash(ctx, tc.code)
			if (got == nil) != tc.ok {
				t.Fatalf("checkBash: %v, want ok=%v", got, tc.ok)
			}
			if tc.ok {
				return
			}
			var se *env.SyntaxError
			if !errors.As(got, &se) {
				t.Fatalf("checkBash: %v (%T), want a *env.SyntaxError", got, got)
			}
			if got.Error() != want.Error() {
				t.Errorf("message is not bash's:\n got %q\nwant %q", got, want)
			}
			if !strings.Contains(se.Message, "line ") || strings.Contains(se.Message, "bash: ") {
				t.Errorf("message %q lacks bash's line or keeps its program name", se.Message)
			}
		})
	}
}

// TestCheckBashPrefixes checks every prefix of a script that uses most of
// bash's grammar, cut anywhere (mid-word, mid-quote, mid-heredoc): the
// answer is bash -n's, and a prefix the parser accepts is one bash accepts.
func TestCheckBashPrefixes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bash -n for each prefix")
	}
	script := "set -euo pipefail\n" +
		"f() { local a=(1 2 \"x y\"); echo \"${a[@]}\" $(( ${#a[@]} * 2 )); }\n" +
		"for ((i = 0; i < 3; i++)); do\n  case $i in\n    0|1) echo \"small $i\" ;;\n" +
		"    *) [[ $i -gt 1 && -n \"$i\" ]] && echo big ;;\n  esac\ndone\n" +
		"while read -r line; do printf '%s\\n' \"$line\"; done < <(ls -1)\n" +
		"cat > out.py <<'EOF'\nprint(\"hi $x\")\nEOF\n" +
		"if [ -f out.py ]; then python3 out.py | tee log >&2; elif true; then :; else exit 1; fi\n" +
		"declare -A m=([k]=v); echo \"${m[k]:-none}\" ${x//a/b} $'t\\t' \"$(echo \"$(date)\")\" `pwd`\n" +
		"{ echo a; } 2>/dev/null | sort -u; (cd /tmp && ls) || true\n" +
		"function g { until false; do break; done; select x in a b; do break; done; }\n"
	t.Logf("%d prefixes", len(script)+1)
	ctx := context.Background()
	for i := range len(script) + 1 {
		code := script[:i]
		want := bashN(ctx, code)
		if parses(code) && want != nil {
			t.Errorf("prefix %q parses in process, bash -n says %v", code, want)
			continue
		}
		got := checkBash(ctx, code)
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("prefix %q: checkBash %v, bash -n %v", code, got, want)
		}
	}
}
