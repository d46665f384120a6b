// Package clock holds wright's fake clock, the in-page half of Playwright's
// page.clock / context.clock: clock.js replaces Date, the timers, animation
// frames, idle callbacks and performance.now in a document once the client
// applies an operation, and replays the context's operations in every new
// document. The client keeps that list and evaluates the operations in the
// context's frames; the driver serves the source (clock.source), so the
// one script lives in one file for every client.
package clock

import _ "embed" // the script below

// Source is clock.js. Evaluating it defines globalThis.__wrightClock
// (apply(op, arg, at), replay(log)) once per document and changes nothing
// else.
//
//go:embed clock.js
var Source string
