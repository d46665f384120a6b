// Package driver is `wright driver`: the browser engine (package browser)
// served to a language client as JSON-RPC, one request or event a line, over
// stdio or a Unix socket. The method table (methods.go) names every method
// and the adapter that decodes its params; each concept's handlers live in
// <concept>_methods.go; PROTOCOL.md documents the wire.
package driver
