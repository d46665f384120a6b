package selector

import (
	"fmt"
	"strconv"
	"strings"
)

// Playwright extends CSS with pseudo-classes the browser does not know
// (:has-text(), :text(), :visible, :nth-match(), layout ones, and :has(),
// :is(), :not() holding any of those). A selector without them goes to the
// browser as it is; one with them is split here into compound selectors, so
// engine.js matches the native pieces with Element.matches and the rest
// itself.

// cssSel is a parsed CSS selector list: Native when the browser can take it
// whole, otherwise List, one entry per comma-separated complex selector.
type cssSel struct {
	Native string          `json:"native,omitempty"`
	List   [][]cssCompound `json:"list,omitempty"`
}

// cssCompound is one compound selector and the combinator before it.
type cssCompound struct {
	Comb   string      `json:"comb,omitempty"`   // " ", ">", "+" or "~"; "" for the first
	Native string      `json:"native,omitempty"` // the part Element.matches can check; "" is any element
	Pseudo []cssPseudo `json:"pseudo,omitempty"`
}

// cssPseudo is one of Playwright's pseudo-classes with its arguments.
type cssPseudo struct {
	Name  string   `json:"name"`
	Text  string   `json:"text,omitempty"`
	Flags string   `json:"flags,omitempty"`
	Sel   *cssSel  `json:"sel,omitempty"`
	N     int      `json:"n,omitempty"`
	Dist  *float64 `json:"dist,omitempty"`
}

// Pseudo-classes wright evaluates itself, and the logical ones it takes
// over when their arguments hold one of those.
var (
	textPseudos    = map[string]bool{"has-text": true, "text": true, "text-is": true, "text-matches": true}
	LayoutPseudos  = map[string]bool{"left-of": true, "right-of": true, "above": true, "below": true, "near": true}
	logicalPseudos = map[string]bool{"has": true, "is": true, "not": true, "where": true}
)

// parseCSS parses a selector list, keeping it native where it can.
func parseCSS(s string) (*cssSel, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty CSS selector")
	}
	custom := false
	var list [][]cssCompound
	for _, complex := range splitTop(s, ',') {
		cx, c, err := parseComplex(strings.TrimSpace(complex))
		if err != nil {
			return nil, err
		}
		custom = custom || c
		list = append(list, cx)
	}
	if !custom {
		return &cssSel{Native: s}, nil
	}
	return &cssSel{List: list}, nil
}

// parseComplex splits a complex selector at its combinators; custom says
// whether any compound holds a pseudo-class the browser does not know.
func parseComplex(s string) ([]cssCompound, bool, error) {
	if s == "" {
		return nil, false, fmt.Errorf("empty selector in a list")
	}
	cx := complexParser{s: s, start: -1}
	if err := cx.scan(); err != nil {
		return nil, false, err
	}
	return cx.out, cx.custom, nil
}

// complexParser splits one complex selector into its compounds and the
// combinators between them.
type complexParser struct {
	s      string
	out    []cssCompound
	comb   string // the combinator before the next compound
	custom bool   // some compound uses a custom engine
	start  int    // where the compound being read starts; -1 between compounds
}

// flush ends the compound being read at end.
func (cx *complexParser) flush(end int) error {
	if cx.start < 0 {
		return nil
	}
	c, isCustom, err := parseCompound(cx.s[cx.start:end])
	if err != nil {
		return err
	}
	c.Comb = cx.comb
	cx.out = append(cx.out, c)
	cx.custom = cx.custom || isCustom
	cx.comb, cx.start = "", -1
	return nil
}

func (cx *complexParser) scan() error {
	s := cx.s
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			if cx.start < 0 {
				cx.start = i
			}
			i++
		case c == '"' || c == '\'':
			quote = c
			if cx.start < 0 {
				cx.start = i
			}
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'):
			if err := cx.flush(i); err != nil {
				return err
			}
			if cx.comb == "" && len(cx.out) > 0 {
				cx.comb = " "
			}
			continue
		case depth == 0 && (c == '>' || c == '+' || c == '~'):
			if err := cx.flush(i); err != nil {
				return err
			}
			if cx.comb != "" && cx.comb != " " {
				return fmt.Errorf("two combinators in a row in %q", s)
			}
			cx.comb = string(c)
			continue
		}
		if cx.start < 0 {
			cx.start = i
		}
	}
	if quote != 0 {
		return fmt.Errorf("unterminated string in %q", s)
	}
	if depth != 0 {
		return fmt.Errorf("unbalanced brackets in %q", s)
	}
	if err := cx.flush(len(s)); err != nil {
		return err
	}
	if cx.comb != "" && cx.comb != " " {
		return fmt.Errorf("%q ends with a combinator", s)
	}
	return nil
}

// parseCompound takes Playwright's pseudo-classes out of a compound
// selector and leaves the rest native.
func parseCompound(s string) (cssCompound, bool, error) {
	var c cssCompound
	var native strings.Builder
	custom := false
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote != 0 {
			native.WriteByte(ch)
			if ch == '\\' && i+1 < len(s) {
				i++
				native.WriteByte(s[i])
			} else if ch == quote {
				quote = 0
			}
			continue
		}
		switch ch {
		case '"', '\'':
			quote = ch
		case '\\':
			native.WriteByte(ch)
			if i+1 < len(s) {
				i++
				native.WriteByte(s[i])
			}
			continue
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ':':
			if depth == 0 && (i+1 >= len(s) || s[i+1] != ':') && (i == 0 || s[i-1] != ':') {
				p, n, ok, err := parsePseudo(s[i+1:])
				if err != nil {
					return c, false, err
				}
				if ok {
					c.Pseudo = append(c.Pseudo, p)
					custom = true
					i += n
					continue
				}
			}
		}
		native.WriteByte(ch)
	}
	c.Native = native.String()
	return c, custom, nil
}

// parsePseudo reads the pseudo-class at the start of s (after its colon).
// ok is false for a native one; n is how many bytes of s it used.
func parsePseudo(s string) (p cssPseudo, n int, ok bool, err error) {
	name := s
	for i, r := range s {
		if !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			name = s[:i]
			break
		}
	}
	lname := strings.ToLower(name)
	if !textPseudos[lname] && !LayoutPseudos[lname] && !logicalPseudos[lname] && lname != "visible" && lname != "nth-match" {
		return p, 0, false, nil
	}
	n = len(name)
	if lname == "visible" {
		if n < len(s) && s[n] == '(' {
			return p, 0, false, fmt.Errorf(":visible takes no arguments")
		}
		return cssPseudo{Name: "visible"}, n, true, nil
	}
	if n >= len(s) || s[n] != '(' {
		if logicalPseudos[lname] {
			return p, 0, false, nil // let the browser report it
		}
		return p, 0, false, fmt.Errorf(":%s needs arguments, as in :%s(...)", lname, lname)
	}
	end := closingParen(s, n)
	if end < 0 {
		return p, 0, false, fmt.Errorf("unterminated :%s(", lname)
	}
	args := s[n+1 : end]
	p, ok, err = pseudoArgs(lname, args)
	return p, end + 1, ok, err
}

// pseudoArgs parses the arguments of a pseudo-class; ok is false for a
// logical pseudo-class whose selector the browser can take as it is.
func pseudoArgs(name, args string) (cssPseudo, bool, error) {
	p := cssPseudo{Name: name}
	parts := splitTop(args, ',')
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	switch {
	case logicalPseudos[name]:
		sel, err := parseCSS(args)
		if err != nil {
			return p, false, fmt.Errorf(":%s(%s): %v", name, args, err)
		}
		if sel.Native != "" {
			return p, false, nil
		}
		p.Sel = sel
	case name == "text-matches":
		if len(parts) < 1 || len(parts) > 2 || parts[0] == "" {
			return p, false, fmt.Errorf(`:text-matches takes a regular expression and optional flags, as in :text-matches("^sa+ve$", "i")`)
		}
		p.Text = cssString(parts[0])
		if len(parts) == 2 {
			p.Flags = cssString(parts[1])
		}
	case textPseudos[name]:
		if len(parts) != 1 || parts[0] == "" {
			return p, false, fmt.Errorf(`:%s takes one string, as in :%s("Save")`, name, name)
		}
		p.Text = cssString(strings.TrimSpace(args))
	case name == "nth-match":
		if len(parts) < 2 {
			return p, false, fmt.Errorf(":nth-match takes a selector and a 1-based index, as in :nth-match(li, 2)")
		}
		n, err := strconv.Atoi(parts[len(parts)-1])
		if err != nil || n < 1 {
			return p, false, fmt.Errorf(":nth-match needs a 1-based index last, got %q", parts[len(parts)-1])
		}
		sel, err := parseCSS(strings.Join(parts[:len(parts)-1], ","))
		if err != nil {
			return p, false, err
		}
		p.Sel, p.N = sel, n
	case LayoutPseudos[name]:
		sel := parts
		if len(parts) > 1 {
			d, err := strconv.ParseFloat(parts[len(parts)-1], 64)
			if err == nil {
				p.Dist = &d
				sel = parts[:len(parts)-1]
			}
		}
		if _, err := strconv.ParseFloat(sel[0], 64); len(sel) == 0 || sel[0] == "" || err == nil && len(sel) == 1 {
			// Playwright's wording.
			return p, false, fmt.Errorf("%q engine expects a selector list and optional maximum distance in pixels", name)
		}
		inner, err := parseCSS(strings.Join(sel, ","))
		if err != nil {
			return p, false, err
		}
		p.Sel = inner
	}
	return p, true, nil
}

// cssString reads a pseudo-class argument: a quoted CSS string (backslash
// escapes the next character) or bare text.
func cssString(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 1 && (s[0] == '"' || s[0] == '\'') && closingQuote(s) == len(s)-1 {
		return unescapeQuoted(s)
	}
	return s
}

// closingParen finds the ) matching the ( at s[open], skipping strings.
func closingParen(s string, open int) int {
	depth := 0
	var quote byte
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTop splits s at sep outside strings, brackets and parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth := 0
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			i++
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
