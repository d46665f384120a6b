package live

import (
	"errors"
	"strings"
	"testing"
)

func TestPolicy(t *testing.T) {
	type verdict struct {
		url  string
		want string // "" = allowed; else a piece of the refusal
	}
	cases := []struct {
		name             string
		allowed, blocked []string
		checks           []verdict
	}{
		{"defaults", nil, nil, []verdict{
			{"https://example.com/a?b=c", ""},
			{"http://localhost:8080/", ""},
			{"http://127.0.0.1:5000/x", ""},
			{"http://[::1]:9000/", ""},
			{"http://10.0.0.5/", ""}, // private networks are the user's call
			{"about:blank", ""},
			{"data:text/html,<p>hi</p>", ""},
			{"javascript:void(0)", ""},
			{"blob:https://example.com/0b5e-11", ""},
			{"wss://example.com/socket", ""},
			{"file:///etc/passwd", "file: URLs are not allowed"},
			{"FILE:///etc/passwd", "file: URLs are not allowed"},
			{"chrome://settings", "chrome: URLs are not allowed"},
			{"chrome-extension://abc/page.html", "chrome-extension: URLs"},
			{"devtools://devtools/bundled/inspector.html", "devtools: URLs"},
			{"view-source:https://example.com/", "view-source: URLs"},
			{"ftp://example.com/file", "ftp: URLs"},
			{"example.com/page", "has no scheme"},
			{"http://169.254.169.254/latest/meta-data/", "link-local or cloud metadata"},
			{"http://169.254.0.1/", "link-local"},
			{"http://[fd00:ec2::254]/latest/", "cloud metadata"},
			{"http://[fe80::1]/", "link-local"},
			{"http://metadata.google.internal/computeMetadata/v1/", "cloud metadata"},
			{"http://METADATA.google.internal./", "cloud metadata"},
			// The same address written the ways a browser still reads it.
			{"http://2852039166/", "link-local"},
			{"http://0xa9fea9fe/", "link-local"},
			{"http://0251.0376.0251.0376/", "link-local"},
			{"http://169.254.43518/", "link-local"},
			{"http://[::ffff:169.254.169.254]/", "link-local"},
			{"blob:http://169.254.169.254/x", "link-local"},
			{"http:///nohost", "has no host"},
		}},
		{"allowed list", []string{"*.example.com", "shop.test"}, nil, []verdict{
			{"https://example.com/", ""}, // *.example.com names the site, apex included
			{"https://www.example.com/", ""},
			{"https://a.b.example.com/", ""},
			{"https://Shop.Test:8443/cart", ""},
			{"http://localhost:3000/", ""}, // loopback stays allowed
			{"http://127.0.0.2/", ""},
			{"http://app.localhost/", ""},
			{"https://notexample.com/", "not in browser.allowed_domains (*.example.com, shop.test)"},
			{"https://example.com.evil.test/", "not in browser.allowed_domains"},
			{"https://sub.shop.test/", "not in browser.allowed_domains"},
			{"https://other.org/", "stay on the allowed sites"},
			{"file:///etc/hosts", "file: URLs"},
			{"http://169.254.169.254/", "link-local"},
		}},
		{"blocked list", nil, []string{"ads.*", "*.tracker.test", "localhost", "10.0.0.0/8", "192.168.1.7"}, []verdict{
			{"https://ads.example.com/", `matches "ads.*" in browser.blocked_domains`},
			{"https://x.tracker.test/", `"*.tracker.test"`},
			{"https://tracker.test/", `"*.tracker.test"`},
			{"http://localhost:8080/", `"localhost"`}, // loopback can be blocked explicitly
			{"http://10.1.2.3/", `"10.0.0.0/8"`},
			{"http://192.168.1.7:81/", `"192.168.1.7"`},
			{"http://192.168.1.8/", ""},
			{"https://example.com/", ""},
			{"http://127.0.0.1/", ""},
		}},
		{"blocked beats allowed", []string{"*.example.com"}, []string{"admin.example.com"}, []verdict{
			{"https://shop.example.com/", ""},
			{"https://admin.example.com/", "browser.blocked_domains"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPolicy(c.allowed, c.blocked)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range c.checks {
				err := p.Check(v.url)
				switch {
				case v.want == "" && err != nil:
					t.Errorf("%s: refused: %v", v.url, err)
				case v.want != "" && err == nil:
					t.Errorf("%s: allowed, want refused (%s)", v.url, v.want)
				case v.want != "" && !strings.Contains(err.Error(), v.want):
					t.Errorf("%s: %q, want it to mention %q", v.url, err, v.want)
				case err != nil && !errors.Is(err, ErrBlocked):
					t.Errorf("%s: error does not wrap ErrBlocked", v.url)
				}
			}
		})
	}
}

func TestPolicyBadPatterns(t *testing.T) {
	cases := map[string]string{
		"https://example.com": "is a URL",
		"example.com/path":    "not a host pattern",
		"  ":                  "empty pattern",
		"user@example.com":    "not a host pattern",
		"[a-":                 "syntax error",
	}
	for pat, want := range cases {
		_, err := NewPolicy([]string{pat}, nil)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "browser.allowed_domains") {
			t.Errorf("allowed %q: %v, want it to mention %q", pat, err, want)
		}
		if _, err := NewPolicy(nil, []string{pat}); err == nil || !strings.Contains(err.Error(), "browser.blocked_domains") {
			t.Errorf("blocked %q: %v", pat, err)
		}
	}
	// Every bad pattern is named at once, so one fix round is enough.
	_, err := NewPolicy([]string{"http://a/", "ok.com"}, []string{"b/c"})
	if err == nil || !strings.Contains(err.Error(), "http://a/") || !strings.Contains(err.Error(), "b/c") {
		t.Errorf("joined error %v", err)
	}
}

func TestHostAddr(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1":       "127.0.0.1",
		"2130706433":      "127.0.0.1",
		"0x7f.1":          "127.0.0.1",
		"0177.0.0.01":     "127.0.0.1",
		"127.1":           "127.0.0.1",
		"1.2.3.4.":        "1.2.3.4",
		"::ffff:10.0.0.1": "10.0.0.1",
		"example.com":     "invalid IP",
		"1.2.3.4.5":       "invalid IP",
		"256.1.1.1":       "invalid IP",
		"1.2.3.256":       "invalid IP",
		"4294967296":      "invalid IP",
		"0x":              "0.0.0.0",
		"08.1.1.1":        "invalid IP", // 8 is not an octal digit
	}
	for in, want := range cases {
		if got := hostAddr(in).String(); got != want {
			t.Errorf("hostAddr(%q) = %s, want %s", in, got, want)
		}
	}
}
