package browser

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// part is one parsed step of a selector chain, sent as JSON to engine.js.
type part struct {
	Engine        string     `json:"engine"`
	CSS           string     `json:"css,omitempty"`
	XPath         string     `json:"xpath,omitempty"`
	Match         *textMatch `json:"match,omitempty"`
	Role          string     `json:"role,omitempty"`
	Name          *textMatch `json:"name,omitempty"`
	Attrs         []roleAttr `json:"attrs,omitempty"`
	IncludeHidden bool       `json:"includeHidden,omitempty"`
	Value         string     `json:"value,omitempty"`
	N             int        `json:"n"`
	Visible       bool       `json:"visible"`
	Ref           string     `json:"ref,omitempty"`
}

// textMatch is a parsed BODY (see PROTOCOL.md): kind exact, ci, cs or re.
type textMatch struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Flags string `json:"flags,omitempty"`
}

// roleAttr is one [attr] or [attr=value] of a role selector. A nil Value
// means "true".
type roleAttr struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

var engines = []string{"css", "xpath", "text", "role", "label", "placeholder", "alt", "title", "testid", "aria-ref", "handle", "nth", "has-text", "visible"}

var ariaRoles = strings.Fields(`alert alertdialog application article banner blockquote button caption cell checkbox code
	columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed
	figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee
	math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph
	presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator
	slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer
	toolbar tooltip tree treegrid treeitem`)

var enginePrefix = regexp.MustCompile(`^([a-z][a-z-]*)\s*=`)

// parseSelector splits a selector into its parts and validates each one, so
// a malformed selector fails at once with InvalidSelector instead of timing
// out later.
func parseSelector(sel string) ([]part, error) {
	if strings.TrimSpace(sel) == "" {
		return nil, newErr(ErrInvalidSelector, "empty selector: pass CSS, or an engine such as role=button[name=\"Save\"] or text=\"Save\"")
	}
	raw, err := splitChain(sel)
	if err != nil {
		return nil, err
	}
	parts := make([]part, 0, len(raw))
	for i, r := range raw {
		p, err := parsePart(r)
		if err != nil {
			return nil, wrapErr(ErrInvalidSelector, err, "invalid selector %q: %s", sel, err.Error())
		}
		if (p.Engine == "aria-ref" || p.Engine == "handle") && i != 0 {
			return nil, newErr(ErrInvalidSelector, "invalid selector %q: %s= must be the first part of a chain", sel, p.Engine)
		}
		if i == 0 && (p.Engine == "nth" || p.Engine == "has-text" || p.Engine == "visible") {
			return nil, newErr(ErrInvalidSelector, "invalid selector %q: %s= filters the matches of the parts before it, so it cannot come first", sel, p.Engine)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// splitChain splits at " >> " outside quotes, brackets and parentheses.
func splitChain(sel string) ([]string, error) {
	var out []string
	var quote byte
	depth := 0
	start := 0
	for i := 0; i < len(sel); i++ {
		c := sel[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '>':
			if depth == 0 && i+1 < len(sel) && sel[i+1] == '>' {
				out = append(out, sel[start:i])
				i++
				start = i + 1
			}
		}
	}
	if quote != 0 {
		return nil, newErr(ErrInvalidSelector, "invalid selector %q: unterminated %c quote", sel, quote)
	}
	out = append(out, sel[start:])
	for i, p := range out {
		out[i] = strings.TrimSpace(p)
		if out[i] == "" {
			return nil, newErr(ErrInvalidSelector, "invalid selector %q: empty part around >>", sel)
		}
	}
	return out, nil
}

func parsePart(s string) (part, error) {
	if m := enginePrefix.FindStringSubmatch(s); m != nil {
		name := m[1]
		body := strings.TrimSpace(s[len(m[0]):])
		if !slices.Contains(engines, name) {
			return part{}, fmt.Errorf("unknown selector engine %q (known: %s)", name, strings.Join(engines, ", "))
		}
		if body == "" {
			return part{}, fmt.Errorf("%s= needs a value", name)
		}
		return parseEngine(name, body)
	}
	if strings.HasPrefix(s, "//") || strings.HasPrefix(s, "..") {
		return part{Engine: "xpath", XPath: s}, nil
	}
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, `'`) {
		m, err := parseBody(s)
		if err != nil {
			return part{}, err
		}
		return part{Engine: "text", Match: m}, nil
	}
	return part{Engine: "css", CSS: s}, nil
}

func parseEngine(name, body string) (part, error) {
	switch name {
	case "css":
		return part{Engine: "css", CSS: body}, nil
	case "xpath":
		return part{Engine: "xpath", XPath: body}, nil
	case "text", "label", "placeholder", "alt", "title":
		m, err := parseBody(body)
		if err != nil {
			return part{}, err
		}
		return part{Engine: name, Match: m}, nil
	case "has-text":
		m, err := parseBody(body)
		if err != nil {
			return part{}, err
		}
		if m.Kind == "exact" {
			m.Kind = "cs" // has-text keeps matches that contain the text
		}
		return part{Engine: name, Match: m}, nil
	case "testid":
		v := body
		if strings.HasPrefix(body, `"`) || strings.HasPrefix(body, `'`) {
			m, err := parseBody(body)
			if err != nil {
				return part{}, err
			}
			v = m.Value
		}
		return part{Engine: name, Value: v}, nil
	case "nth":
		n, err := strconv.Atoi(body)
		if err != nil {
			return part{}, fmt.Errorf("nth= needs an integer (0-based; -1 is the last), got %q", body)
		}
		return part{Engine: name, N: n}, nil
	case "visible":
		switch body {
		case "true":
			return part{Engine: name, Visible: true}, nil
		case "false":
			return part{Engine: name, Visible: false}, nil
		}
		return part{}, fmt.Errorf("visible= takes true or false, got %q", body)
	case "handle":
		// An element handle's id (a client's ElementHandle): the chain starts at that element.
		if body == "" {
			return part{}, fmt.Errorf("handle= takes an element handle id")
		}
		return part{Engine: name, Ref: body}, nil
	case "aria-ref":
		if !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(body) {
			return part{}, fmt.Errorf("aria-ref= takes a ref such as e12 from an aria snapshot, got %q", body)
		}
		return part{Engine: name, Ref: body}, nil
	case "role":
		return parseRole(body)
	}
	return part{}, fmt.Errorf("unknown selector engine %q", name)
}

// parseBody parses a BODY: "json string" (exact), "json string"i (case
// insensitive substring), "json string"s (exact), /regex/flags, or unquoted
// text (case-insensitive substring).
func parseBody(s string) (*textMatch, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty text")
	}
	switch s[0] {
	case '"', '\'':
		end := closingQuote(s)
		if end < 0 {
			return nil, fmt.Errorf("unterminated string %s", s)
		}
		val, err := unquote(s[:end+1])
		if err != nil {
			return nil, err
		}
		switch suffix := s[end+1:]; suffix {
		case "":
			return &textMatch{Kind: "exact", Value: val}, nil
		case "s", "S":
			return &textMatch{Kind: "exact", Value: val}, nil
		case "i", "I":
			return &textMatch{Kind: "ci", Value: val}, nil
		default:
			return nil, fmt.Errorf("unexpected %q after the quoted text %s (only i or s may follow it)", suffix, s[:end+1])
		}
	case '/':
		end := strings.LastIndexByte(s, '/')
		if end == 0 {
			return nil, fmt.Errorf("unterminated regular expression %s", s)
		}
		flags := s[end+1:]
		if strings.Trim(flags, "dgimsuvy") != "" {
			return nil, fmt.Errorf("bad regular expression flags %q in %s", flags, s)
		}
		if end == 1 {
			return nil, fmt.Errorf("empty regular expression %s", s)
		}
		return &textMatch{Kind: "re", Value: s[1:end], Flags: flags}, nil
	}
	return &textMatch{Kind: "ci", Value: s}, nil
}

func closingQuote(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == q {
			return i
		}
	}
	return -1
}

func unquote(s string) (string, error) {
	if s[0] == '\'' {
		inner := s[1 : len(s)-1]
		inner = strings.ReplaceAll(inner, `\'`, `'`)
		inner = strings.ReplaceAll(inner, `"`, `\"`)
		s = `"` + inner + `"`
	}
	var v string
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "", fmt.Errorf("bad string %s: %v", s, err)
	}
	return v, nil
}

var roleName = regexp.MustCompile(`^[A-Za-z]+`)

func parseRole(body string) (part, error) {
	name := roleName.FindString(body)
	role := strings.ToLower(name)
	if role == "" {
		return part{}, fmt.Errorf("role= needs an ARIA role such as button, link or textbox, got %q", body)
	}
	if !slices.Contains(ariaRoles, role) {
		return part{}, fmt.Errorf("unknown ARIA role %q", role)
	}
	p := part{Engine: "role", Role: role}
	rest := body[len(name):]
	for rest != "" {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			break
		}
		if rest[0] != '[' {
			return part{}, fmt.Errorf("expected [attr] after role=%s, got %q", role, rest)
		}
		end := attrEnd(rest)
		if end < 0 {
			return part{}, fmt.Errorf("unterminated [ in %q", rest)
		}
		if err := p.addRoleAttr(strings.TrimSpace(rest[1:end])); err != nil {
			return part{}, err
		}
		rest = rest[end+1:]
	}
	return p, nil
}

// attrEnd finds the ] closing the [ at s[0], skipping quoted strings and
// regular expressions.
func attrEnd(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'':
			quote = c
		case '/':
			if i > 0 && strings.TrimSpace(s[1:i]) != "" && strings.HasSuffix(strings.TrimSpace(s[1:i]), "=") {
				quote = '/'
			}
		case ']':
			return i
		}
	}
	return -1
}

func (p *part) addRoleAttr(a string) error {
	name, val, hasVal := strings.Cut(a, "=")
	name = strings.TrimSpace(name)
	val = strings.TrimSpace(val)
	boolVal := func() (any, error) {
		if !hasVal {
			return nil, nil
		}
		switch strings.Trim(val, `"'`) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("[%s=...] takes true or false, got %q", name, val)
	}
	switch name {
	case "name":
		if !hasVal {
			return fmt.Errorf(`[name] needs a value, as in [name="Save"]`)
		}
		m, err := parseBody(val)
		if err != nil {
			return fmt.Errorf("[name=...]: %v", err)
		}
		p.Name = m
		return nil
	case "include-hidden":
		v, err := boolVal()
		if err != nil {
			return err
		}
		p.IncludeHidden = v == nil || v == true
		return nil
	case "checked", "pressed":
		if hasVal && strings.Trim(val, `"'`) == "mixed" {
			p.Attrs = append(p.Attrs, roleAttr{Name: name, Value: "mixed"})
			return nil
		}
		v, err := boolVal()
		if err != nil {
			return fmt.Errorf(`[%s=...] takes true, false or "mixed", got %q`, name, val)
		}
		p.Attrs = append(p.Attrs, roleAttr{Name: name, Value: v})
		return nil
	case "disabled", "expanded", "selected":
		v, err := boolVal()
		if err != nil {
			return err
		}
		p.Attrs = append(p.Attrs, roleAttr{Name: name, Value: v})
		return nil
	case "level":
		n, err := strconv.Atoi(strings.Trim(val, `"'`))
		if !hasVal || err != nil {
			return fmt.Errorf("[level=N] needs an integer, got %q", val)
		}
		p.Attrs = append(p.Attrs, roleAttr{Name: name, Value: n})
		return nil
	}
	return fmt.Errorf("unknown role attribute [%s] (known: name, checked, disabled, expanded, level, pressed, selected, include-hidden)", name)
}
