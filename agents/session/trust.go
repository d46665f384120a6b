package session

import (
	"encoding/json"
	"strings"

	"wright/browser"
	"wright/trust/secrets"
)

// browserSecrets hands the session's secrets to the browser, which types a
// placeholder's value only where the secret may go; nil without secrets.
func browserSecrets(set *secrets.Set) browser.SecretSource {
	if set == nil || len(set.Names()) == 0 {
		return nil
	}
	return secretSource{set}
}

// secretSource adapts a secrets.Set to what the browser asks of it (the
// browser does not import trust/secrets).
type secretSource struct{ set *secrets.Set }

func (s secretSource) Split(text string) ([]browser.SecretPiece, error) {
	pieces, err := s.set.Split(text)
	if err != nil {
		return nil, err
	}
	out := make([]browser.SecretPiece, len(pieces))
	for i, pc := range pieces {
		out[i] = browser.SecretPiece{Text: pc.Text, Name: pc.Name}
	}
	return out, nil
}

func (s secretSource) MayType(name, origin string) error { return s.set.MayType(name, origin) }

func (s secretSource) RedactReads(text string) string { return s.set.RedactReads(text) }

// pyStr is s as a Python string literal. A JSON string is one, once HTML
// escaping is off (Python reads \uXXXX, \n, \" and \\ the same way).
func pyStr(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
