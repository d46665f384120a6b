package review

import (
	"bytes"
	"os"
	"sort"
	"strings"
)

// Redactor masks secrets in what a review prints. A run directory holds no
// secret by design; this is the second line: should one have slipped into a
// file, the review does not spread it further.
type Redactor struct{ secrets [][]byte }

// secretNames are the endings of environment variable names that hold secrets.
var secretNames = []string{"API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASS"}

// RedactorFromEnv masks the values of this process's environment variables
// whose names say they are secrets (OPENAI_API_KEY, GITHUB_TOKEN, ...), plus
// extra values.
func RedactorFromEnv(extra ...string) *Redactor {
	vals := append([]string(nil), extra...)
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		for _, end := range secretNames {
			if strings.HasSuffix(strings.ToUpper(name), end) {
				vals = append(vals, val)
				break
			}
		}
	}
	r := &Redactor{}
	for _, v := range vals {
		// Short values would mask ordinary words.
		if len(strings.TrimSpace(v)) >= 8 {
			r.secrets = append(r.secrets, []byte(v))
		}
	}
	// Longest first, so a secret holding another is masked whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

// Redact returns b with every secret replaced.
func (r *Redactor) Redact(b []byte) []byte {
	if r == nil {
		return b
	}
	for _, s := range r.secrets {
		b = bytes.ReplaceAll(b, s, []byte("[redacted]"))
	}
	return b
}
