package env

import (
	"wright/browser"
	"wright/trust/secrets"
)

// BrowserSecrets hands a set of secrets to the browser it will drive, which
// types a placeholder's value only where the secret may go; nil when there
// are none (the browser then types placeholders as written). Runs and
// browser sessions share it.
func BrowserSecrets(set *secrets.Set) browser.SecretSource {
	if set == nil || len(set.Names()) == 0 {
		return nil
	}
	return secretSource{set}
}

// secretSource adapts a secrets.Set to what the browser asks of it, so that
// neither of those packages imports the other.
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

// Redact is for the recordings the driver writes (HAR, trace): every
// secret's value, write-only or not (browser.SecretRedactor).
func (s secretSource) Redact(text string) string { return s.set.Redact(text) }
