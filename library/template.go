package library

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A task template is the task's text with each parameter's default value,
// where it occurs as a whole word or phrase, replaced by {name}; literal
// braces are doubled. Filling it with other inputs gives the task the
// rerun's judge holds the rerun to.

// MakeTemplate turns task into a template over params.
func MakeTemplate(task string, params []Param) string {
	escaped := strings.NewReplacer("{", "{{", "}", "}}").Replace(task)
	type sub struct{ text, name string }
	var subs []sub
	for _, p := range params {
		if t := defaultText(p); t != "" {
			subs = append(subs, sub{t, p.Name})
		}
	}
	// Longer values first, so "Office chair deluxe" wins over "chair".
	slices.SortStableFunc(subs, func(a, b sub) int { return len(b.text) - len(a.text) })
	for _, s := range subs {
		re := regexp.MustCompile(`(^|[^\pL\pN_])` + regexp.QuoteMeta(strings.NewReplacer("{", "{{", "}", "}}").Replace(s.text)) + `($|[^\pL\pN_])`)
		escaped = replaceOutsidePlaceholders(re, escaped, "{"+s.name+"}")
	}
	return escaped
}

// replaceOutsidePlaceholders replaces re's matches (keeping its boundary
// groups) except inside a {name} already placed.
func replaceOutsidePlaceholders(re *regexp.Regexp, s, repl string) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[3], m[4] // after the leading boundary, before the trailing
		if insidePlaceholder(s, start) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(repl)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

func insidePlaceholder(s string, i int) bool {
	open := strings.LastIndex(s[:i], "{")
	if open < 0 || (open > 0 && s[open-1] == '{') {
		return false
	}
	closeAt := strings.LastIndex(s[:i], "}")
	return closeAt < open
}

// defaultText is how a default reads in a task: strings and numbers only
// (a boolean's true/false is no phrase of the task). Short numbers and
// one-letter strings are left alone: they would match too much.
func defaultText(p Param) string {
	var t string
	switch v := p.Default.(type) {
	case string:
		t = v
	case float64:
		t = strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		t = strconv.FormatInt(v, 10)
	}
	if len(strings.TrimSpace(t)) < 2 {
		return ""
	}
	return t
}

// Placeholders lists the {name}s of a template, in order.
func Placeholders(tpl string) []string {
	var out []string
	for i := 0; i < len(tpl); i++ {
		switch {
		case strings.HasPrefix(tpl[i:], "{{") || strings.HasPrefix(tpl[i:], "}}"):
			i++
		case tpl[i] == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return out
			}
			out = append(out, tpl[i+1:i+end])
			i += end
		}
	}
	return out
}

// Fill puts values into a template. A placeholder with no value is an
// error.
func Fill(tpl string, values map[string]any) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tpl); i++ {
		switch {
		case strings.HasPrefix(tpl[i:], "{{"):
			b.WriteByte('{')
			i++
		case strings.HasPrefix(tpl[i:], "}}"):
			b.WriteByte('}')
			i++
		case tpl[i] == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("task template: an unclosed {")
			}
			name := tpl[i+1 : i+end]
			v, ok := values[name]
			if !ok {
				return "", fmt.Errorf("task template: no value for {%s}", name)
			}
			b.WriteString(formatValue(v))
			i += end
		default:
			b.WriteByte(tpl[i])
		}
	}
	return b.String(), nil
}

// formatValue writes an input as it reads in a task.
func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// FormatInputs writes inputs as history shows them: item=Office chair,
// count=3, in the interface's order.
func FormatInputs(params []Param, values map[string]any) string {
	var parts []string
	for _, p := range params {
		if v, ok := values[p.Name]; ok {
			parts = append(parts, p.Name+"="+formatValue(v))
		}
	}
	return strings.Join(parts, ", ")
}
