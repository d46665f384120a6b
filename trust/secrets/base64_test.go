package secrets

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadOne(t *testing.T, value string, writeOnly bool) *Set {
	t.Helper()
	f := filepath.Join(t.TempDir(), "v")
	if err := os.WriteFile(f, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := Load(map[string]Spec{"pw": {File: f, WriteOnly: &writeOnly}})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// A value inside base64 text is found at each of the three offsets it can
// sit at in a 3-byte group (a user name of any length before it in an
// Authorization: Basic header), in the standard and URL-safe alphabets.
func TestRedactBase64Forms(t *testing.T) {
	const value = "Hunter2-Tr0ub4dor&3 x?>"
	set := loadOne(t, value, true)
	for _, user := range []string{"", "a", "al", "alice", "alice1", "bob@example.com"} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			header := "Authorization: Basic " + enc.EncodeToString([]byte(user+":"+value))
			for _, got := range []string{set.Redact(header), set.RedactReads(header)} {
				if decoded := decodeAll(got); strings.Contains(decoded, value[3:len(value)-3]) {
					t.Errorf("user %q: %q still decodes to the value (%q)", user, got, decoded)
				}
				if !strings.Contains(got, "<secret>pw</secret>") {
					t.Errorf("user %q: %q has no placeholder", user, got)
				}
			}
		}
	}
	// Text that does not hold the value is left alone.
	other := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:something else entirely"))
	if got := set.Redact(other); got != other {
		t.Errorf("an unrelated header changed: %q", got)
	}
}

func decodeAll(s string) string {
	s = s[strings.LastIndex(s, " ")+1:]
	b, _ := base64.StdEncoding.DecodeString(s)
	if len(b) == 0 {
		b, _ = base64.URLEncoding.DecodeString(s)
	}
	return string(b)
}
