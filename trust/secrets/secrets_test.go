package secrets

import (
	"encoding/base32"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RFC 6238 appendix B, SHA-1 rows.
func TestTOTPVectors(t *testing.T) {
	seed := []byte("12345678901234567890")
	for _, tc := range []struct {
		unix int64
		want string
	}{
		{59, "94287082"}, {1111111109, "07081804"}, {1111111111, "14050471"},
		{1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
	} {
		if got := TOTP(seed, time.Unix(tc.unix, 0), 30*time.Second, 8); got != tc.want {
			t.Errorf("T=%d: %s, want %s", tc.unix, got, tc.want)
		}
	}
}

func TestLoadRefusesShortEmptyAndMissing(t *testing.T) {
	t.Setenv("SECRETS_TEST_SHORT", "abc")
	t.Setenv("SECRETS_TEST_EMPTY", "")
	for name, spec := range map[string]Spec{
		"short":   {Env: "SECRETS_TEST_SHORT"},
		"empty":   {Env: "SECRETS_TEST_EMPTY"},
		"unset":   {Env: "SECRETS_TEST_NOT_SET_AT_ALL"},
		"nothing": {},
		"both":    {Env: "A", File: "b"},
		"nofile":  {File: filepath.Join(t.TempDir(), "missing")},
		"bad<n>":  {Env: "SECRETS_TEST_SHORT"},
		"badseed": {Env: "SECRETS_TEST_SHORT", TOTP: true},
	} {
		if _, err := Load(map[string]Spec{name: spec}); err == nil {
			t.Errorf("%s: loaded, want an error", name)
		} else if strings.Contains(err.Error(), "abc") {
			t.Errorf("%s: the error shows the value: %v", name, err)
		}
	}
}

func testSet(t *testing.T) *Set {
	t.Helper()
	t.Setenv("SECRETS_TEST_PW", `pa"ss\wörd-1234`)
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("tok-abcdef-987654\n"), 0o600)
	seed := base32.StdEncoding.EncodeToString([]byte("12345678901234567890"))
	t.Setenv("SECRETS_TEST_SEED", seed)
	s, err := Load(map[string]Spec{
		"shop_pw":  {Env: "SECRETS_TEST_PW", Domains: []string{"shop.example"}},
		"token":    {File: file},
		"shop_otp": {Env: "SECRETS_TEST_SEED", TOTP: true, Domains: []string{"shop.example"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.now = func() time.Time { return time.Unix(59, 0) }
	return s
}

func TestRevealOnlyOnAllowedDomains(t *testing.T) {
	s := testSet(t)
	got, err := s.Reveal("<secret>shop_pw</secret>", "https://login.shop.example/signin")
	if err != nil || got != `pa"ss\wörd-1234` {
		t.Errorf("subdomain: %q %v", got, err)
	}
	if got, err := s.Reveal("code <secret>shop_otp</secret>", "https://shop.example/2fa"); err != nil || got != "code 287082" {
		t.Errorf("totp: %q %v", got, err)
	}
	for _, u := range []string{"https://evil.example/", "https://shop.example.evil.test/", "https://notshop.example/", "data:text/html,x"} {
		if got, err := s.Reveal("<secret>shop_pw</secret>", u); err == nil || strings.Contains(err.Error(), "wörd") || got != "" {
			t.Errorf("%s: %q %v, want refused without the value", u, got, err)
		}
	}
	if _, err := s.Reveal("<secret>nope</secret>", "https://shop.example/"); err == nil || !strings.Contains(err.Error(), "no secret named") {
		t.Errorf("unknown: %v", err)
	}
	if got, _ := s.Reveal("<secret>token</secret>", "http://127.0.0.1:1/"); got != "tok-abcdef-987654" {
		t.Errorf("unscoped: %q", got)
	}
}

func TestRedactEveryForm(t *testing.T) {
	s := testSet(t)
	s.Reveal("<secret>shop_otp</secret>", "https://shop.example/")
	raw := `pa"ss\wörd-1234`
	enc, _ := json.Marshal(map[string]string{"typed": raw + " and tok-abcdef-987654 and 287082"})
	for _, text := range []string{raw + " tok-abcdef-987654 287082", string(enc)} {
		out := s.Redact(text)
		for _, v := range []string{raw, "tok-abcdef-987654", `pa\"ss\\w`, "287082"} {
			if strings.Contains(out, v) {
				t.Errorf("%q survives in %s", v, out)
			}
		}
		if !strings.Contains(out, "<secret>shop_pw</secret>") || !strings.Contains(out, "<secret>token</secret>") {
			t.Errorf("no placeholders in %s", out)
		}
	}
}
