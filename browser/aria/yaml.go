package aria

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// The snapshot is YAML that Playwright's parser accepts: a line is
// `- key` or `- key: value`, where the key holds role, quoted name and
// [attributes]. Keys and values stay bare when YAML would read them back
// unchanged and are quoted otherwise; these helpers decide which.

// yamlKey returns key as a YAML mapping key, single-quoted when needed.
func yamlKey(key string) string {
	if !yamlNeedsQuotes(key) {
		return key
	}
	return "'" + strings.ReplaceAll(key, "'", "''") + "'"
}

// yamlValue returns s as a YAML scalar value, double-quoted when needed.
func yamlValue(s string) string {
	if !yamlNeedsQuotes(s) {
		return s
	}
	// YAML's double-quoted style has \x escapes, and C1 controls need one.
	return quote(s, func(r rune) string {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return fmt.Sprintf(`\x%02x`, r)
		}
		return ""
	})
}

// yamlWords are scalars YAML 1.1 reads as booleans or null.
var yamlWords = map[string]bool{
	"y": true, "n": true, "yes": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true,
}

// jsNumber matches what JavaScript's Number() accepts, so that a name like
// "42" or "1e3" is quoted and stays a string when read back.
var jsNumber = regexp.MustCompile(`^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Infinity)$|^0[xX][0-9a-fA-F]+$|^0[oO][0-7]+$|^0[bB][01]+$`)

func yamlNeedsQuotes(s string) bool {
	if s == "" {
		return true
	}
	first, _ := firstRune(s)
	last := lastRune(s)
	if unicode.IsSpace(first) || unicode.IsSpace(last) {
		return true
	}
	if strings.ContainsAny(s, "\n\r{}`") {
		return true
	}
	if strings.ContainsRune("-&*],?!>|@\"'#%[", first) {
		return true
	}
	prevSpace := false
	for i, r := range s {
		if (r <= 0x08) || r == 0x0b || r == 0x0c || (r >= 0x0e && r <= 0x1f) || (r >= 0x7f && r <= 0x9f) {
			return true
		}
		if r == '#' && prevSpace {
			return true
		}
		if r == ':' {
			next, ok := firstRune(s[i+1:])
			if !ok || unicode.IsSpace(next) {
				return true
			}
		}
		prevSpace = unicode.IsSpace(r)
	}
	if yamlWords[strings.ToLower(s)] || jsNumber.MatchString(s) {
		return true
	}
	return false
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

func lastRune(s string) rune {
	var last rune
	for _, r := range s {
		last = r
	}
	return last
}

// jsonString quotes s the way JavaScript's JSON.stringify does (no HTML
// escaping, unlike encoding/json), which is how names appear in keys.
func jsonString(s string) string {
	return quote(s, func(r rune) string {
		if r < 0x20 {
			return fmt.Sprintf(`\u%04x`, r)
		}
		return ""
	})
}

// quote writes s in double quotes with the escapes JSON and YAML share;
// other returns the escape for any other rune, or "" to keep it as it is.
func quote(s string, other func(rune) string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if e := other(r); e != "" {
				b.WriteString(e)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// normalizeSpace collapses runs of white space to one space and trims, and
// drops the zero-width and soft-hyphen characters a reader never sees.
func normalizeSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if r == '\u200b' || r == '\u00ad' {
			continue
		}
		if unicode.IsSpace(r) || r == '\ufeff' {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
