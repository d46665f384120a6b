// Package selector parses Playwright's selectors (css, text, role, xpath,
// internal:*, chained with >>) into the parts the in-page engine resolves,
// and says which CSS the browser can take as it is.
package selector
