package selector

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"wright/browser/aria/roles"
)

// Part is one parsed step of a selector chain, sent as JSON to engine.js.
type Part struct {
	Engine        string     `json:"engine"`
	CSS           string     `json:"css,omitempty"`
	Sel           *cssSel    `json:"sel,omitempty"`   // CSS with Playwright's pseudo-classes
	Light         bool       `json:"light,omitempty"` // the :light engines do not pierce shadow roots
	XPath         string     `json:"xpath,omitempty"`
	Attr          string     `json:"attr,omitempty"` // attribute name of the attr engine
	Match         *TextMatch `json:"match,omitempty"`
	Role          string     `json:"role,omitempty"`
	Name          *TextMatch `json:"name,omitempty"`
	Description   *TextMatch `json:"description,omitempty"`
	Attrs         []RoleAttr `json:"attrs,omitempty"`
	IncludeHidden bool       `json:"includeHidden,omitempty"`
	Value         string     `json:"value,omitempty"`
	N             int        `json:"n"`
	Visible       bool       `json:"visible"`
	Ref           string     `json:"ref,omitempty"`
	Inner         []Part     `json:"inner,omitempty"` // has, has-not, and, or, chain: a nested chain
	// Custom is a registered selector engine's name (Value is its body).
	Custom string `json:"custom,omitempty"`
}

// textMatch is a parsed BODY (see browser/driver/PROTOCOL.md). Kinds: exact (whole
// normalised text, case-sensitive), eqi (whole text, any case), ci and cs
// (substring, any case / case-sensitive), re (JavaScript regex), node (one of
// the element's own text nodes equals the text: Playwright's quoted text=),
// raw and rawci (attribute values as they are: equal / substring in any case).
type TextMatch struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Flags string `json:"flags,omitempty"`
}

// roleAttr is one [attr] or [attr=value] of a role selector. A nil Value
// means "true".
type RoleAttr struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

// Engines are the names a part may start with (NAME=BODY). wright's own
// come first, then Playwright's public and internal ones.
var Engines = []string{"css", "xpath", "text", "role", "label", "placeholder", "alt", "title", "testid", "aria-ref", "handle", "nth", "has-text", "visible",
	"css:light", "xpath:light", "text:light", "id", "id:light", "data-testid", "data-testid:light", "data-test-id", "data-test-id:light",
	"data-test", "data-test:light", "internal:text", "internal:has-text", "internal:has-not-text", "internal:has", "internal:has-not",
	"internal:and", "internal:or", "internal:chain", "internal:role", "internal:label", "internal:attr", "internal:testid",
	"internal:describe", "internal:control"}

var enginePrefix = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_:-]*)\s*=`)

// FilterEngines keep or drop the matches of the parts before them instead
// of searching inside them.
var FilterEngines = []string{"nth", "has-text", "visible", "has-not-text", "has", "has-not", "and", "or"}

// Parse splits a selector into its parts and validates each one, so
// a malformed selector fails at once with InvalidSelector instead of timing
// out later.
func Parse(sel string, known ...func(string) bool) ([]Part, error) {
	if strings.TrimSpace(sel) == "" {
		return nil, invalid("empty selector: pass CSS, or an engine such as role=button[name=\"Save\"] or text=\"Save\"")
	}
	parts, err := parseChain(sel, 0)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, err
		}
		var u unknownEngine
		if errors.As(err, &u) {
			// Playwright's wording, which scripts match on, then ours.
			return nil, invalidWrap(err, "Unknown engine %q while parsing selector %s (known engines: %s)", string(u), sel, strings.Join(Engines, ", "))
		}
		return nil, invalidWrap(err, "invalid selector %q: %s", sel, err.Error())
	}
	if err := checkCustom(sel, parts, known); err != nil {
		return nil, err
	}
	for i, p := range parts {
		if (p.Engine == "aria-ref" || p.Engine == "handle") && i != 0 {
			return nil, invalid("invalid selector %q: %s= must be the first part of a chain", sel, p.Engine)
		}
		if i == 0 && (p.Engine == "nth" || p.Engine == "has-text" || p.Engine == "visible") {
			return nil, invalid("invalid selector %q: %s= filters the matches of the parts before it, so it cannot come first", sel, p.Engine)
		}
	}
	return parts, nil
}

// unknownEngine is the error for NAME= with a NAME no engine has.
type unknownEngine string

func (u unknownEngine) Error() string { return fmt.Sprintf("unknown selector engine %q", string(u)) }

// parseChain parses a chain; depth bounds the nesting of internal:has=
// and friends.
func parseChain(sel string, depth int) ([]Part, error) {
	if depth > 16 {
		return nil, fmt.Errorf("selectors nested more than 16 deep")
	}
	raw, err := splitChain(sel)
	if err != nil {
		return nil, err
	}
	parts := make([]Part, 0, len(raw))
	for i, r := range raw {
		if strings.HasPrefix(r, "*") && len(r) > 1 {
			return parseCapture(raw[:i], r[1:], raw[i+1:], depth)
		}
		if isEnterFrame(r) {
			// Into the one <iframe> the parts before it found (strict, as in
			// Playwright); Value names those parts for the error.
			parts = append(parts, Part{Engine: "enter-frame", Value: apiChain(raw[:i])})
			continue
		}
		ps, err := parsePart(r, depth)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ps...)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("the selector has no part that matches anything")
	}
	return parts, nil
}

// parseCapture reads Playwright's older capture form before >> *css=div >>
// rest: the chain matches the captured part's elements that have rest
// inside them.
func parseCapture(before []string, captured string, rest []string, depth int) ([]Part, error) {
	var parts []Part
	for _, r := range append(append([]string{}, before...), strings.TrimSpace(captured)) {
		ps, err := parsePart(r, depth)
		if err != nil {
			return nil, err
		}
		parts = append(parts, ps...)
	}
	if len(rest) == 0 {
		return parts, nil
	}
	inner, err := parseChain(strings.Join(rest, " >> "), depth+1)
	if err != nil {
		return nil, err
	}
	for _, p := range inner {
		if p.Engine == "nth" {
			return nil, fmt.Errorf("Can't query n-th element in a request with the capture (a part marked with *)")
		}
	}
	return append(parts, Part{Engine: "has", Inner: inner}), nil
}

// splitChain splits at >> outside quotes, brackets and parentheses. As in
// Playwright, a quote inside the body of text= (not at its start) is text,
// so text=/let's/ and text=a"b stay one part.
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
		case '"', '\'', '`':
			if !quoteIsText(sel[start:i]) {
				quote = c
			}
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '>':
			if depth <= 0 && i+1 < len(sel) && sel[i+1] == '>' {
				out = append(out, sel[start:i])
				i++
				start = i + 1
				depth = 0
			}
		}
	}
	// An unterminated quote runs to the end, as in Playwright: text=" is
	// the text ", and a lone " fails as a part below.
	out = append(out, sel[start:])
	for i, p := range out {
		out[i] = strings.TrimSpace(p)
		if out[i] == "" {
			return nil, invalid("invalid selector %q: empty part around >>", sel)
		}
	}
	return out, nil
}

var textPrefix = regexp.MustCompile(`^\s*text(:light)?\s*=\s*(\S.*)$`)

// quoteIsText says whether a quote that follows prefix (the part so far)
// is inside a text= body rather than opening a string.
func quoteIsText(prefix string) bool {
	m := textPrefix.FindStringSubmatch(prefix)
	return m != nil && m[2] != ""
}

// parsePart parses one part of a chain. It returns several parts for
// internal:chain (flattened) and none for parts that only annotate.
func parsePart(s string, depth int) ([]Part, error) {
	if m := enginePrefix.FindStringSubmatch(s); m != nil {
		name := strings.ToLower(m[1])
		body := strings.TrimSpace(s[len(m[0]):])
		if LayoutPseudos[name] {
			// Playwright's wording; wright has the pseudo-class form only.
			return nil, fmt.Errorf("%q selector cannot be first; wright takes layout selectors as CSS pseudo-classes, as in button:%s(#name)", name, name)
		}
		if !slices.Contains(Engines, name) {
			if customName.MatchString(m[1]) {
				// Perhaps a registered engine: parseSelector checks the name.
				return []Part{{Engine: "custom", Custom: m[1], Value: body}}, nil
			}
			return nil, unknownEngine(m[1])
		}
		if body == "" {
			return nil, fmt.Errorf("%s= needs a value", name)
		}
		return parseEngine(name, body, depth)
	}
	if strings.HasPrefix(s, "//") || strings.HasPrefix(s, "..") {
		return []Part{{Engine: "xpath", XPath: s}}, nil
	}
	if strings.HasPrefix(s, `"`) || strings.HasPrefix(s, `'`) {
		if len(s) < 2 || closingQuote(s) < 0 {
			return nil, fmt.Errorf("unterminated string %s", s)
		}
		return []Part{{Engine: "text", Match: parsePublicText(s)}}, nil
	}
	return one(parseCSSPart(s, false))
}

func one(p Part, err error) ([]Part, error) {
	if err != nil {
		return nil, err
	}
	return []Part{p}, nil
}

func parseCSSPart(css string, light bool) (Part, error) {
	sel, err := parseCSS(css)
	if err != nil {
		return Part{}, err
	}
	if sel.Native != "" {
		return Part{Engine: "css", CSS: sel.Native, Light: light}, nil
	}
	return Part{Engine: "css", Sel: sel, Light: light}, nil
}

func parseEngine(name, body string, depth int) ([]Part, error) {
	base, light := strings.CutSuffix(name, ":light")
	switch base {
	case "css":
		return one(parseCSSPart(body, light))
	case "xpath":
		return []Part{{Engine: "xpath", XPath: body}}, nil
	case "text":
		return []Part{{Engine: "text", Match: parsePublicText(body), Light: light}}, nil
	case "id", "data-testid", "data-test-id", "data-test":
		v := body
		if len(body) > 1 && (body[0] == '"' || body[0] == '\'') && closingQuote(body) == len(body)-1 {
			v = unescapeQuoted(body)
		}
		return []Part{{Engine: "attr", Attr: base, Match: &TextMatch{Kind: "raw", Value: v}, Light: light}}, nil
	case "internal:text", "internal:label", "internal:has-text", "internal:has-not-text":
		m, err := parseInternalText(body)
		if err != nil {
			return nil, err
		}
		return []Part{{Engine: strings.TrimPrefix(base, "internal:"), Match: m}}, nil
	case "internal:has", "internal:has-not", "internal:and", "internal:or", "internal:chain":
		inner, err := parseNested(base, body, depth)
		if err != nil {
			return nil, err
		}
		if base == "internal:chain" {
			if !scoped(inner) {
				return inner, nil
			}
			// An or, and or nth inside a nested locator (div.locator(a.or_(b)))
			// applies within each element the chain has reached, not to the
			// whole chain before it: flattened, "div >> button >> or=span"
			// would add every span of the page.
			return []Part{{Engine: "chain", Inner: inner}}, nil
		}
		return []Part{{Engine: strings.TrimPrefix(base, "internal:"), Inner: inner}}, nil
	case "internal:attr", "internal:testid":
		return one(parseAttrPart(base, body))
	case "internal:role":
		return one(parseRole(body, true))
	case "internal:describe":
		return nil, nil // a description for messages and traces; matches like the chain before it
	case "internal:control":
		if body == "enter-frame" {
			// The driver searches an <iframe>'s document with the part after it.
			return nil, nil
		}
		return nil, fmt.Errorf("internal:control=%s is not supported", body)
	}
	return one(parseWrightEngine(name, body))
}

// scoped says whether a nested chain has a part whose meaning depends on
// where the chain starts (or, and, nth), so that it cannot be flattened.
func scoped(parts []Part) bool {
	for _, p := range parts {
		if p.Engine == "or" || p.Engine == "and" || p.Engine == "nth" {
			return true
		}
	}
	return false
}

// parseNested decodes the JSON string body of internal:has= and friends
// and parses the selector inside it.
func parseNested(name, body string, depth int) ([]Part, error) {
	var inner string
	if err := json.Unmarshal([]byte(body), &inner); err != nil {
		return nil, fmt.Errorf("%s= takes a selector as a JSON string, got %s", name, body)
	}
	parts, err := parseChain(inner, depth+1)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: %v", name, body, err)
	}
	return parts, nil
}

var attrBody = regexp.MustCompile(`^\[\s*([A-Za-z_][\w:.-]*)\s*=\s*(.+?)\s*\]$`)

// parseAttrPart parses internal:attr=[name="value"i] (and internal:testid):
// "v"s is equality, "v"i (or no flag) a substring in any case, /re/ a regex;
// attribute values are not normalised.
func parseAttrPart(name, body string) (Part, error) {
	m := attrBody.FindStringSubmatch(body)
	if m == nil {
		return Part{}, fmt.Errorf(`%s= takes [attribute="value"], got %s`, name, body)
	}
	val := m[2]
	if val[0] == '/' {
		tm, err := parseRegex(val)
		if err != nil {
			return Part{}, err
		}
		return Part{Engine: "attr", Attr: m[1], Match: tm}, nil
	}
	end := -1
	if val[0] == '"' || val[0] == '\'' {
		end = closingQuote(val)
	}
	if end < 0 {
		return Part{Engine: "attr", Attr: m[1], Match: &TextMatch{Kind: "raw", Value: val}}, nil
	}
	v := unescapeQuoted(val[:end+1])
	switch strings.ToLower(strings.TrimSpace(val[end+1:])) {
	case "s":
		return Part{Engine: "attr", Attr: m[1], Match: &TextMatch{Kind: "raw", Value: v}}, nil
	case "i", "":
		return Part{Engine: "attr", Attr: m[1], Match: &TextMatch{Kind: "rawci", Value: v}}, nil
	}
	return Part{}, fmt.Errorf("unexpected %q after the quoted value in %s", val[end+1:], body)
}

// parseWrightEngine parses wright's own engines (see browser/driver/PROTOCOL.md).
func parseWrightEngine(name, body string) (Part, error) {
	switch name {
	case "label", "placeholder", "alt", "title":
		m, err := parseBody(body)
		if err != nil {
			return Part{}, err
		}
		return Part{Engine: name, Match: m}, nil
	case "has-text":
		m, err := parseBody(body)
		if err != nil {
			return Part{}, err
		}
		if m.Kind == "exact" {
			m.Kind = "cs" // has-text keeps matches that contain the text
		}
		return Part{Engine: name, Match: m}, nil
	case "testid":
		v := body
		if strings.HasPrefix(body, `"`) || strings.HasPrefix(body, `'`) {
			m, err := parseBody(body)
			if err != nil {
				return Part{}, err
			}
			v = m.Value
		}
		return Part{Engine: name, Value: v}, nil
	case "nth":
		n, err := strconv.Atoi(body)
		if err != nil {
			return Part{}, fmt.Errorf("nth= needs an integer (0-based; -1 is the last), got %q", body)
		}
		return Part{Engine: name, N: n}, nil
	case "visible":
		switch body {
		case "true":
			return Part{Engine: name, Visible: true}, nil
		case "false":
			return Part{Engine: name, Visible: false}, nil
		}
		return Part{}, fmt.Errorf("visible= takes true or false, got %q", body)
	case "handle":
		// An element handle's id (a client's ElementHandle): the chain starts at that element.
		if body == "" {
			return Part{}, fmt.Errorf("handle= takes an element handle id")
		}
		return Part{Engine: name, Ref: body}, nil
	case "aria-ref":
		if !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(body) {
			return Part{}, fmt.Errorf("aria-ref= takes a ref such as e12 from an aria snapshot, got %q", body)
		}
		return Part{Engine: name, Ref: body}, nil
	case "role":
		return parseRole(body, false)
	}
	return Part{}, fmt.Errorf("unknown selector engine %q", name)
}

// parsePublicText parses the body of Playwright's text= engine: /re/flags;
// a quoted string ("..." or '...', backslash escapes any character) matches
// an element with a text node of exactly that text; wright also reads
// "..."i as a substring in any case and "..."s as the whole text; anything
// else is a substring in any case.
func parsePublicText(s string) *TextMatch {
	if m, err := parseRegex(s); err == nil {
		return m
	}
	if len(s) > 1 && (s[0] == '"' || s[0] == '\'') {
		if end := closingQuote(s); end > 0 {
			v := unescapeQuoted(s[:end+1])
			switch s[end+1:] {
			case "":
				return &TextMatch{Kind: "node", Value: v}
			case "i", "I":
				return &TextMatch{Kind: "ci", Value: v}
			case "s", "S":
				return &TextMatch{Kind: "exact", Value: v}
			}
		}
	}
	return &TextMatch{Kind: "ci", Value: s}
}

// parseInternalText parses the text the Python client's get_by_* and
// filter() send: "json"s (whole text), "json"i (substring, any case), "json"
// (whole text), /re/flags, or anything else as a substring in any case.
func parseInternalText(s string) (*TextMatch, error) {
	if s[0] == '/' {
		return parseRegex(s)
	}
	if s[0] == '"' {
		end := closingQuote(s)
		if end < 0 {
			return nil, fmt.Errorf("unterminated string %s", s)
		}
		var v string
		if err := json.Unmarshal([]byte(s[:end+1]), &v); err != nil {
			return nil, fmt.Errorf("bad string %s: %v", s[:end+1], err)
		}
		switch s[end+1:] {
		case "", "s", "S":
			return &TextMatch{Kind: "exact", Value: v}, nil
		case "i", "I":
			return &TextMatch{Kind: "ci", Value: v}, nil
		}
		return nil, fmt.Errorf("unexpected %q after the quoted text %s (only i or s may follow it)", s[end+1:], s[:end+1])
	}
	return &TextMatch{Kind: "ci", Value: s}, nil
}

// parseRegex parses /source/flags.
func parseRegex(s string) (*TextMatch, error) {
	end := strings.LastIndexByte(s, '/')
	if len(s) == 0 || s[0] != '/' || end <= 0 {
		return nil, fmt.Errorf("unterminated regular expression %s", s)
	}
	flags := s[end+1:]
	if strings.Trim(flags, "dgimsuvy") != "" {
		return nil, fmt.Errorf("bad regular expression flags %q in %s", flags, s)
	}
	if end == 1 {
		return nil, fmt.Errorf("empty regular expression %s", s)
	}
	return &TextMatch{Kind: "re", Value: s[1:end], Flags: flags}, nil
}

// unescapeQuoted strips the quotes of "..." or '...' and the backslash of
// every escaped character, as Playwright does for text= and id= bodies. A
// double-quoted body that is a valid JSON string is read as JSON, so the
// \u003e escapes wright's clients write for ">>" decode.
func unescapeQuoted(s string) string {
	if s[0] == '"' {
		var v string
		if json.Unmarshal([]byte(s), &v) == nil {
			return v
		}
	}
	var b strings.Builder
	inner := s[1 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\\' && i+1 < len(inner) {
			i++
		}
		b.WriteByte(inner[i])
	}
	return b.String()
}

// parseBody parses a BODY: "json string" (exact), "json string"i (case
// insensitive substring), "json string"s (exact), /regex/flags, or unquoted
// text (case-insensitive substring).
func parseBody(s string) (*TextMatch, error) {
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
			return &TextMatch{Kind: "exact", Value: val}, nil
		case "s", "S":
			return &TextMatch{Kind: "exact", Value: val}, nil
		case "i", "I":
			return &TextMatch{Kind: "ci", Value: val}, nil
		default:
			return nil, fmt.Errorf("unexpected %q after the quoted text %s (only i or s may follow it)", suffix, s[:end+1])
		}
	case '/':
		return parseRegex(s)
	}
	return &TextMatch{Kind: "ci", Value: s}, nil
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

var roleName = regexp.MustCompile(`^[A-Za-z][A-Za-z-]*`)

// parseRole parses ROLE[attr]...; internal (internal:role=, from the Python
// client's get_by_role) reads a name "v" with no flag as a substring in any
// case and unescapes quoted values the way that client escapes them.
func parseRole(body string, internal bool) (Part, error) {
	name := roleName.FindString(body)
	role := strings.ToLower(name)
	if role == "" {
		return Part{}, fmt.Errorf("role= needs an ARIA role such as button, link or textbox, got %q", body)
	}
	if !roles.Is(role) {
		return Part{}, fmt.Errorf("unknown ARIA role %q", role)
	}
	p := Part{Engine: "role", Role: role}
	rest := body[len(name):]
	for rest != "" {
		rest = strings.TrimSpace(rest)
		if rest == "" {
			break
		}
		if rest[0] != '[' {
			return Part{}, fmt.Errorf("expected [attr] after role=%s, got %q", role, rest)
		}
		end := attrEnd(rest)
		if end < 0 {
			return Part{}, fmt.Errorf("unterminated [ in %q", rest)
		}
		if err := p.addRoleAttr(strings.TrimSpace(rest[1:end]), internal); err != nil {
			return Part{}, err
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

func (p *Part) addRoleAttr(a string, internal bool) error {
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
		m, err := roleNameBody(val, internal)
		if err != nil {
			return fmt.Errorf("[name=...]: %v", err)
		}
		p.Name = m
		return nil
	case "description":
		if !hasVal {
			return fmt.Errorf(`[description] needs a value, as in [description="Opens a dialog"]`)
		}
		m, err := roleNameBody(val, internal)
		if err != nil {
			return fmt.Errorf("[description=...]: %v", err)
		}
		p.Description = m
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
			p.Attrs = append(p.Attrs, RoleAttr{Name: name, Value: "mixed"})
			return nil
		}
		v, err := boolVal()
		if err != nil {
			return fmt.Errorf(`[%s=...] takes true, false or "mixed", got %q`, name, val)
		}
		p.Attrs = append(p.Attrs, RoleAttr{Name: name, Value: v})
		return nil
	case "disabled", "expanded", "selected":
		v, err := boolVal()
		if err != nil {
			return err
		}
		p.Attrs = append(p.Attrs, RoleAttr{Name: name, Value: v})
		return nil
	case "level":
		n, err := strconv.Atoi(strings.Trim(val, `"'`))
		if !hasVal || err != nil {
			return fmt.Errorf("[level=N] needs an integer, got %q", val)
		}
		p.Attrs = append(p.Attrs, RoleAttr{Name: name, Value: n})
		return nil
	}
	return fmt.Errorf("unknown role attribute [%s] (known: name, description, checked, disabled, expanded, level, pressed, selected, include-hidden)", name)
}

// roleNameBody parses the value of [name=...]. Playwright's client escapes
// names with backslashes only ("a\"b"), so internal names are unescaped
// that way; "v" (no flag) is then a substring in any case.
func roleNameBody(val string, internal bool) (*TextMatch, error) {
	if !internal || val == "" || val[0] != '"' && val[0] != '\'' {
		return parseBody(val)
	}
	end := closingQuote(val)
	if end < 0 {
		return nil, fmt.Errorf("unterminated string %s", val)
	}
	v := unescapeQuoted(val[:end+1])
	switch strings.TrimSpace(val[end+1:]) {
	case "s", "S":
		return &TextMatch{Kind: "exact", Value: v}, nil
	case "i", "I", "":
		return &TextMatch{Kind: "ci", Value: v}, nil
	}
	return nil, fmt.Errorf("unexpected %q after the quoted name %s (only i or s may follow it)", val[end+1:], val[:end+1])
}

// checkCustom fails for a NAME= part whose NAME no engine was registered
// under (names are case-sensitive).
func checkCustom(sel string, parts []Part, known []func(string) bool) error {
	var bad string
	WalkCustom(parts, func(p Part) {
		if bad != "" {
			return
		}
		for _, k := range known {
			if k(p.Custom) {
				return
			}
		}
		bad = p.Custom
	})
	if bad == "" {
		return nil
	}
	return invalid("Unknown engine %q while parsing selector %s (known engines: %s)", bad, sel, strings.Join(Engines, ", "))
}

// WalkCustom calls f for every custom part, nested chains included.
func WalkCustom(parts []Part, f func(Part)) {
	for _, p := range parts {
		if p.Engine == "custom" {
			f(p)
		}
		WalkCustom(p.Inner, f)
	}
}

func HasCustom(parts []Part) bool {
	found := false
	WalkCustom(parts, func(Part) { found = true })
	return found
}

// Error is a selector that does not parse; its message says what to write
// instead.
type Error struct {
	Message string
	Err     error // the underlying cause, if any
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

func invalid(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

func invalidWrap(cause error, format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...), Err: cause}
}

// enterFrame is the chain part that a frame locator puts between the
// selector of its <iframe> and what it searches inside: Playwright's
// internal:control=enter-frame. It is strict: the parts before it must find
// one frame element, since which frame to search would otherwise be a guess.
const enterFrame = "internal:control=enter-frame"

func isEnterFrame(raw string) bool {
	return strings.TrimSpace(raw) == enterFrame
}

// apiChain renders raw chain parts the way a Python script builds them,
// locator("body").locator("iframe"), with .content_frame for each earlier
// frame entered, so a strict-mode error names the frame locator as written.
func apiChain(raw []string) string {
	var b strings.Builder
	for _, r := range raw {
		r = strings.TrimSpace(r)
		if isEnterFrame(r) {
			b.WriteString(".content_frame")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		fmt.Fprintf(&b, "locator(%q)", r)
	}
	return b.String()
}

var customName = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) // Playwright's rule: its message names [a-zA-Z0-9_], its check lets "-" in

// ValidCustomName tells whether a registered engine may take name.
func ValidCustomName(name string) bool { return customName.MatchString(name) }
