// Package secrets keeps values the task needs (passwords, one-time codes)
// away from the model. The model only ever writes and sees
// <secret>name</secret>; the browser driver, outside the model's process,
// puts the value in at fill/type time and only on the secret's domains;
// every exact occurrence of a value in text the model sees or wright writes
// is replaced by its placeholder.
package secrets

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"wright/trust/keyring"
)

// MinLength is the shortest value accepted: a two-letter value would be
// replaced inside ordinary words and corrupt every text it is redacted
// from.
const MinLength = 6

// Spec is one entry of the `secrets:` config section.
type Spec struct {
	// Env names the environment variable holding the value; File a file
	// whose content (trailing newline trimmed) is the value. Exactly one.
	Env  string `mapstructure:"env"`
	File string `mapstructure:"file"`
	// Domains limit where the value may be typed: a host matches a domain
	// when equal to it or one of its subdomains. Empty means anywhere.
	Domains []string `mapstructure:"domains"`
	// TOTP makes the value an RFC 6238 seed (base32): the placeholder
	// types the current six-digit code.
	TOTP bool `mapstructure:"totp"`
	// WriteOnly (default true) makes reads of the page that would show the
	// value (input_value, inner_text, evaluate, ...) answer the placeholder.
	WriteOnly *bool `mapstructure:"write_only"`
}

type secret struct {
	name      string
	value     string
	domains   []string
	totp      bool
	writeOnly bool
}

// Set is a run's loaded secrets. The zero Set (and nil) holds none.
type Set struct {
	list []secret
	// codes remembers one-time codes handed out, so they are redacted
	// too for the rest of the run.
	mu    sync.Mutex
	codes map[string]string
	now   func() time.Time
}

var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Load reads every value now. An empty or very short value, a missing
// variable or file, or a bad name is an error: a secret that is not there
// would otherwise be typed as its placeholder.
func Load(specs map[string]Spec) (*Set, error) {
	s := &Set{codes: map[string]string{}, now: time.Now}
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	sort.Strings(names)
	var problems []string
	for _, n := range names {
		sec, err := load(n, specs[n])
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		s.list = append(s.list, sec)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("secrets: %s", strings.Join(problems, "; "))
	}
	// Longest first, so that a value containing another is replaced whole.
	sort.SliceStable(s.list, func(i, j int) bool { return len(s.list[i].value) > len(s.list[j].value) })
	return s, nil
}

func load(name string, sp Spec) (secret, error) {
	if !validName.MatchString(name) {
		return secret{}, fmt.Errorf("%q is not a usable name (letters, digits, _ . -)", name)
	}
	var value string
	switch {
	case sp.Env != "" && sp.File != "":
		return secret{}, fmt.Errorf("%s: give env or file, not both", name)
	case sp.Env != "":
		value = keyring.Getenv(sp.Env)
		if value == "" {
			return secret{}, fmt.Errorf("%s: the variable %s is empty or unset", name, sp.Env)
		}
	case sp.File != "":
		b, err := os.ReadFile(sp.File)
		if err != nil {
			return secret{}, fmt.Errorf("%s: %w", name, err)
		}
		value = strings.TrimRight(string(b), "\r\n")
	default:
		return secret{}, fmt.Errorf("%s: give env (a variable name) or file (a path)", name)
	}
	if len(value) < MinLength {
		return secret{}, fmt.Errorf("%s: the value is %d characters, under the %d a secret needs (shorter values would be found inside ordinary text)", name, len(value), MinLength)
	}
	if sp.TOTP {
		if _, err := decodeSeed(value); err != nil {
			return secret{}, fmt.Errorf("%s: totp seed: %w", name, err)
		}
	}
	var domains []string
	for _, d := range sp.Domains {
		d = strings.ToLower(strings.Trim(strings.TrimSpace(d), "."))
		if d != "" {
			domains = append(domains, d)
		}
	}
	writeOnly := sp.WriteOnly == nil || *sp.WriteOnly
	return secret{name: name, value: value, domains: domains, totp: sp.TOTP, writeOnly: writeOnly}, nil
}

// Placeholder is what the model writes and sees for a secret.
func Placeholder(name string) string { return "<secret>" + name + "</secret>" }

var placeholder = regexp.MustCompile(`<secret>([A-Za-z_][A-Za-z0-9_.-]*)</secret>`)

// Names lists the secrets, for the model's prompt (never the values).
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sec := range s.list {
		out = append(out, sec.name)
	}
	sort.Strings(out)
	return out
}

// Values lists every value (for redaction by other means, such as the
// config writer).
func (s *Set) Values() []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sec := range s.list {
		out = append(out, sec.value)
	}
	return out
}

// Reveal replaces each placeholder in text with its value (the current
// code for a TOTP secret), for typing into the page at pageURL. A
// placeholder whose secret is unknown, or scoped to other domains, is an
// error that names the secret but never a value.
func (s *Set) Reveal(text, pageURL string) (string, error) {
	if !strings.Contains(text, "<secret>") {
		return text, nil
	}
	var firstErr error
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		sec, ok := s.find(name)
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("no secret named %q (configured: %s)", name, strings.Join(s.Names(), ", "))
			}
			return m
		}
		if !sec.allowedOn(pageURL) {
			if firstErr == nil {
				firstErr = fmt.Errorf("the secret %q may only be typed on %s, and this page is %s", name, strings.Join(sec.domains, ", "), hostOf(pageURL))
			}
			return m
		}
		if sec.totp {
			code, err := s.code(sec)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			return code
		}
		return sec.value
	})
	if firstErr != nil {
		return "", firstErr
	}
	return out, nil
}

func (s *Set) find(name string) (secret, bool) {
	if s == nil {
		return secret{}, false
	}
	for _, sec := range s.list {
		if sec.name == name {
			return sec, true
		}
	}
	return secret{}, false
}

func (s *Set) code(sec secret) (string, error) {
	seed, err := decodeSeed(sec.value)
	if err != nil {
		return "", err
	}
	code := TOTP(seed, s.now(), 30*time.Second, 6)
	s.mu.Lock()
	s.codes[code] = sec.name
	s.mu.Unlock()
	return code, nil
}

func (sec secret) allowedOn(pageURL string) bool {
	if len(sec.domains) == 0 {
		return true
	}
	host := hostOf(pageURL)
	for _, d := range sec.domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "(no host: " + raw + ")"
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}

// Redact replaces every exact occurrence of a value, as written and as it
// appears inside a JSON string, with its placeholder. One-time codes that
// were typed are replaced too.
func (s *Set) Redact(text string) string {
	if s == nil || len(s.list) == 0 {
		return text
	}
	for _, sec := range s.list {
		text = replaceForms(text, sec.value, Placeholder(sec.name))
	}
	s.mu.Lock()
	for code, name := range s.codes {
		text = strings.ReplaceAll(text, code, Placeholder(name))
	}
	s.mu.Unlock()
	return text
}

// RedactBytes is Redact for file content.
func (s *Set) RedactBytes(b []byte) []byte {
	if s == nil || len(s.list) == 0 {
		return b
	}
	return []byte(s.Redact(string(b)))
}

// replaceForms replaces value and its JSON-escaped forms, with and without
// HTML escaping (a value with a quote, backslash, < > or & is written
// differently inside trajectory.json), its percent-encoded forms, and the
// base64 of each of those (an Authorization: Basic header, a request body
// CDP reports as base64).
func replaceForms(text, value, with string) string {
	forms := []string{value}
	add := func(f string) {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	// A value in a URL (a GET form's query, a path, a script's
	// encodeURIComponent) is percent-encoded; query encoding writes a space
	// as +, path encoding and encodeURIComponent as %20, and any may use
	// lower-case hex digits.
	q := url.QueryEscape(value)
	for _, esc := range []string{q, strings.ReplaceAll(q, "+", "%20"), url.PathEscape(value)} {
		add(esc)
		add(lowerHex(esc))
	}
	enc, _ := json.Marshal(value)
	add(string(enc[1 : len(enc)-1]))
	var plain strings.Builder
	e := json.NewEncoder(&plain)
	e.SetEscapeHTML(false) // the form encoders that keep < > & write
	if err := e.Encode(value); err == nil {
		if esc := strings.TrimSuffix(plain.String(), "\n"); len(esc) > 2 {
			add(esc[1 : len(esc)-1])
		}
	}
	for _, f := range slices.Clone(forms) {
		for _, b64 := range base64Forms(f) {
			add(b64)
		}
	}
	// Longest first: a shorter form inside a longer one would otherwise
	// leave the rest of the longer one behind.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	for _, f := range forms {
		text = strings.ReplaceAll(text, f, with)
	}
	return text
}

// lowerHex writes the hex digits of percent escapes in lower case.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for k := i + 1; k <= i+2; k++ {
				if b[k] >= 'A' && b[k] <= 'F' {
					b[k] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}

// minBase64 is the shortest run of a value's bytes whose base64 form is
// redacted: shorter runs encode to so few characters that they would be
// found by chance in other base64 text (an image, a hash).
const minBase64 = 6

// base64Forms are the parts of value's base64 encoding (standard and URL
// alphabets) that stand wherever the value sits in the encoded text. A
// value inside base64 (an Authorization: Basic header's user:password, a
// data: URL) starts at one of three offsets within a 3-byte group, so for
// each offset the whole groups that hold value bytes only are encoded; the
// characters a neighbouring byte shares are left out.
func base64Forms(value string) []string {
	var out []string
	for skip := 0; skip < 3; skip++ {
		if skip >= len(value) {
			break
		}
		core := value[skip:]
		core = core[:len(core)/3*3]
		if len(core) < minBase64 {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			f := enc.EncodeToString([]byte(core))
			if f != core && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
