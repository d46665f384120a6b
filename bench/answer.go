package bench

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// orSep separates alternatives inside one expected value, as WebArena writes
// them ("Sprite |OR| Coca-Cola").
const orSep = " |OR| "

// CheckText applies the text checks of an answer (exact, must_include, regex,
// number) to a final response. Field checks need a parsed result and are
// applied by the caller. Comparisons ignore case and surrounding space.
func (a *AnswerCheck) CheckText(final string) (bool, string) {
	got := normalize(final)
	if a.Exact != nil && got != normalize(*a.Exact) {
		return false, fmt.Sprintf("want exactly %q, got %q", *a.Exact, clip(final))
	}
	var missing []string
	for _, need := range a.MustInclude {
		if !anyAlt(need, func(alt string) bool { return strings.Contains(got, normalize(alt)) }) {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		return false, fmt.Sprintf("missing %q in %q", missing, clip(final))
	}
	if a.Regex != "" {
		re, err := regexp.Compile(a.Regex)
		if err != nil {
			return false, fmt.Sprintf("bad regex %q: %v", a.Regex, err)
		}
		if !re.MatchString(final) {
			return false, fmt.Sprintf("%q does not match /%s/", clip(final), a.Regex)
		}
	}
	if a.Number != nil {
		nums := numbersIn(final)
		for _, n := range nums {
			if math.Abs(n-*a.Number) <= a.Tolerance {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no number within %g of %g in %q", a.Tolerance, *a.Number, clip(final))
	}
	return true, ""
}

func anyAlt(s string, f func(string) bool) bool {
	for _, alt := range strings.Split(s, orSep) {
		if f(alt) {
			return true
		}
	}
	return false
}

func normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

var numberRe = regexp.MustCompile(`-?\d[\d,]*(?:\.\d+)?|-?\.\d+`)

// numbersIn finds the numbers written in a text, thousands separators
// allowed ("$1,299.50" is 1299.5).
func numbersIn(s string) []float64 {
	var out []float64
	for _, m := range numberRe.FindAllString(s, -1) {
		if f, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// MatchURL says whether the final URL satisfies the gold URL the way
// WebArena's url_match does: the gold host and path are contained in the
// final one's, and every gold query value is among the final query's values
// for that key. A gold URL starting with "/" compares paths only.
func MatchURL(gold, final string) (bool, string) {
	for _, alt := range strings.Split(gold, orSep) {
		if urlContains(strings.TrimSpace(alt), final) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("final URL %q does not match %q", final, gold)
}

func urlContains(gold, final string) bool {
	g, err1 := url.Parse(gold)
	f, err2 := url.Parse(final)
	if err1 != nil || err2 != nil {
		return strings.Contains(final, gold)
	}
	gBase := strings.TrimRight(g.Host+g.Path, "/")
	fBase := strings.TrimRight(f.Host+f.Path, "/")
	if g.Host == "" {
		gBase = strings.TrimRight(g.Path, "/")
		fBase = strings.TrimRight(f.Path, "/")
	}
	if !strings.Contains(fBase, gBase) {
		return false
	}
	fq := f.Query()
	for k, vals := range g.Query() {
		for _, v := range vals {
			found := false
			for _, have := range fq[k] {
				if have == v {
					found = true
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}
