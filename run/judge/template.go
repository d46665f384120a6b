package judge

import (
	"fmt"
	"sort"
	"strings"
)

// FillPrompt substitutes {name} placeholders in a judge prompt. The syntax is
// the one self_reflect_config.json authors know from Python's str.format:
// literal braces are written doubled ({{ and }}) and come out single. A
// placeholder missing from vars, or a lone brace, is an error that names it,
// so a typo in a config never reaches the judge as a silent literal.
func FillPrompt(text string, vars map[string]string) (string, error) {
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '{':
			if i+1 < len(text) && text[i+1] == '{' {
				b.WriteByte('{')
				i++
				continue
			}
			end := strings.IndexByte(text[i+1:], '}')
			if end < 0 {
				return "", fmt.Errorf("unmatched '{' at byte %d (%q): write a literal brace as {{", i, excerpt(text, i))
			}
			name := text[i+1 : i+1+end]
			if !isPlaceholderName(name) {
				return "", fmt.Errorf("'{' at byte %d does not start a placeholder (%q): write a literal brace as {{ and }}", i, excerpt(text, i))
			}
			val, ok := vars[name]
			if !ok {
				return "", fmt.Errorf("unknown placeholder {%s}; known: %s (write a literal brace as {{ and }})", name, knownList(vars))
			}
			b.WriteString(val)
			i += end + 1
		case '}':
			if i+1 < len(text) && text[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", fmt.Errorf("unmatched '}' at byte %d (%q): write a literal brace as }}", i, excerpt(text, i))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isPlaceholderName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

func knownList(vars map[string]string) string {
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, "{"+k+"}")
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// excerpt shows a little text around byte i so the author can find it.
func excerpt(s string, i int) string {
	lo, hi := max(0, i-15), min(len(s), i+25)
	return s[lo:hi]
}
