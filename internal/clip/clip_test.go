package clip

import (
	"fmt"
	"strings"
	"testing"
)

func TestMiddle(t *testing.T) {
	note := func(n int) string { return fmt.Sprintf("<%d>", n) }
	cases := []struct {
		s          string
		head, tail int
		want       string
	}{
		{"abcdef", 3, 3, "abcdef"},
		{"abcdefg", 3, 3, "abc<1>efg"},
		{"abcdefg", 0, 2, "<5>fg"},
		{"ééééééé", 2, 2, "éé<3>éé"}, // runes, never half a character
		{"short", -1, 10, "short"},
	}
	for _, c := range cases {
		if got := Middle(c.s, c.head, c.tail, note); got != c.want {
			t.Errorf("Middle(%q, %d, %d) = %q, want %q", c.s, c.head, c.tail, got, c.want)
		}
	}
}

func TestThirds(t *testing.T) {
	s := strings.Repeat("a", 10) + strings.Repeat("b", 100) + strings.Repeat("c", 20)
	got := Thirds(s, 30)
	if !strings.HasPrefix(got, strings.Repeat("a", 10)+"\n... [100 characters omitted] ...\n") || !strings.HasSuffix(got, strings.Repeat("c", 20)) {
		t.Errorf("Thirds: %q", got)
	}
}
