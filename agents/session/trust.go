package session

import (
	"encoding/json"
	"strings"
)

// pyStr is s as a Python string literal. A JSON string is one, once HTML
// escaping is off (Python reads \uXXXX, \n, \" and \\ the same way).
func pyStr(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
