package bench

import "strings"

// Text helpers the answer and url evaluators share.

// orSep separates alternatives inside one expected value, as WebArena writes
// them ("Sprite |OR| Coca-Cola").
const orSep = " |OR| "

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
