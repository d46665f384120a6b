package secrets

import (
	"fmt"
	"strings"
)

// Piece is one run of text to type: plain text (Name empty) or the value of
// the secret Name, which may only be typed where MayType allows it.
type Piece struct {
	Text string
	Name string
}

// Split cuts text into plain runs and secret values, so that the typist can
// check where each keystroke of a value goes just before it is sent (a page
// may navigate or move the focus while it types). An unknown name is an
// error naming it, never a value. A TOTP secret's piece is its current code.
func (s *Set) Split(text string) ([]Piece, error) {
	if !strings.Contains(text, "<secret>") {
		return []Piece{{Text: text}}, nil
	}
	var out []Piece
	rest := text
	for {
		loc := placeholder.FindStringSubmatchIndex(rest)
		if loc == nil {
			break
		}
		if loc[0] > 0 {
			out = append(out, Piece{Text: rest[:loc[0]]})
		}
		name := rest[loc[2]:loc[3]]
		sec, ok := s.find(name)
		if !ok {
			return nil, fmt.Errorf("no secret named %q (configured: %s)", name, strings.Join(s.Names(), ", "))
		}
		value := sec.value
		if sec.totp {
			code, err := s.code(sec)
			if err != nil {
				return nil, err
			}
			value = code
		}
		out = append(out, Piece{Text: value, Name: name})
		rest = rest[loc[1]:]
	}
	if rest != "" {
		out = append(out, Piece{Text: rest})
	}
	return out, nil
}

// MayType says whether the secret name may be typed into a document of
// origin (or URL) frameURL: nil when its host is one of the secret's
// domains or a subdomain, else an error naming the secret and the host.
func (s *Set) MayType(name, frameURL string) error {
	sec, ok := s.find(name)
	if !ok {
		return fmt.Errorf("no secret named %q", name)
	}
	if !sec.allowedOn(frameURL) {
		return fmt.Errorf("the secret %q may only be typed on %s, and the focused field is in a document of %s", name, strings.Join(sec.domains, ", "), hostOf(frameURL))
	}
	return nil
}

// WriteOnly reports whether reads that would show a value answer its
// placeholder instead (secrets.<name>.write_only, true unless turned off).
// A set is write-only when any of its secrets is.
func (s *Set) WriteOnly() bool {
	if s == nil {
		return false
	}
	for _, sec := range s.list {
		if sec.writeOnly {
			return true
		}
	}
	return false
}

// RedactReads is what a read of the page answers when a secret is
// write-only: every form Redact finds, and the value reversed (a script
// that reads a field back in a transformed form it chose is beyond exact
// matching; docs/security.md says so). Secrets with write_only: false pass.
func (s *Set) RedactReads(text string) string {
	if s == nil {
		return text
	}
	for _, sec := range s.list {
		if !sec.writeOnly {
			continue
		}
		text = replaceForms(text, sec.value, Placeholder(sec.name))
		text = replaceForms(text, reverse(sec.value), Placeholder(sec.name))
	}
	s.mu.Lock()
	for code, name := range s.codes {
		if sec, ok := s.findLocked(name); ok && sec.writeOnly {
			text = strings.ReplaceAll(text, code, Placeholder(name))
		}
	}
	s.mu.Unlock()
	return text
}

func (s *Set) findLocked(name string) (secret, bool) {
	for _, sec := range s.list {
		if sec.name == name {
			return sec, true
		}
	}
	return secret{}, false
}

func reverse(v string) string {
	r := []rune(v)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
