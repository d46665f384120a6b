package output

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A path names a value inside a result the way people write it:
// $ is the whole value, .name or ['name'] a member, [0] an element.

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pathOf writes a validator's instance location (JSON Pointer tokens) as a
// path. A token of digits is an array index: the validator only produces
// those for arrays, and a member named "0" is rare enough to print as [0].
func pathOf(tokens []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, t := range tokens {
		switch {
		case isIndex(t):
			b.WriteString("[" + t + "]")
		case plainName.MatchString(t):
			b.WriteString("." + t)
		default:
			b.WriteString("[" + strconv.Quote(t) + "]")
		}
	}
	return b.String()
}

func isIndex(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// step is one part of a parsed path: a member name or an index.
type step struct {
	name  string
	index int
	isIdx bool
}

// parsePath reads $.a.b[0]['c d'] into steps.
func parsePath(p string) ([]step, error) {
	s := strings.TrimSpace(p)
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("path %q must start with $", p)
	}
	s = s[1:]
	var steps []step
	for s != "" {
		switch s[0] {
		case '.':
			end := 1
			for end < len(s) && s[end] != '.' && s[end] != '[' {
				end++
			}
			if end == 1 {
				return nil, fmt.Errorf("path %q: empty name after '.'", p)
			}
			steps = append(steps, step{name: s[1:end]})
			s = s[end:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: '[' without ']'", p)
			}
			inner := strings.TrimSpace(s[1:end])
			if q := inner; len(q) >= 2 && (q[0] == '\'' || q[0] == '"') {
				// A quoted name may hold ']' itself: find the closing quote.
				close := strings.IndexByte(s[2:], q[0])
				if close < 0 {
					return nil, fmt.Errorf("path %q: unterminated quoted name", p)
				}
				name := s[2 : 2+close]
				rest := strings.TrimLeft(s[2+close+1:], " ")
				if !strings.HasPrefix(rest, "]") {
					return nil, fmt.Errorf("path %q: expected ']' after quoted name", p)
				}
				steps = append(steps, step{name: name})
				s = rest[1:]
				continue
			}
			i, err := strconv.Atoi(inner)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("path %q: %q is not an index (use a whole number, or quote a name)", p, inner)
			}
			steps = append(steps, step{index: i, isIdx: true})
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("path %q: unexpected %q (use .name, ['name'] or [index])", p, s[:1])
		}
	}
	return steps, nil
}

// Lookup returns the value at path inside v; found is false when some part
// of the path does not exist.
func Lookup(v any, path string) (value any, found bool, err error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, false, err
	}
	cur := v
	for _, st := range steps {
		switch t := cur.(type) {
		case map[string]any:
			if st.isIdx {
				x, ok := t[strconv.Itoa(st.index)]
				if !ok {
					return nil, false, nil
				}
				cur = x
				continue
			}
			x, ok := t[st.name]
			if !ok {
				return nil, false, nil
			}
			cur = x
		case []any:
			if !st.isIdx || st.index >= len(t) {
				return nil, false, nil
			}
			cur = t[st.index]
		default:
			return nil, false, nil
		}
	}
	return cur, true, nil
}

// render writes a value for a message: strings as they are, the rest as
// JSON.
func render(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
