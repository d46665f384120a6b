package aria

import (
	_ "embed"

	"wright/browser/aria/roles"
)

//go:embed role_engine.js
var rolesJS string

// World names wright's isolated world in every frame: the page script
// (roles, the snapshot builder) and the selector engine live there, so the
// role engine is made once per document and both use that one.
const World = "wright"

// RolesFactory is a JavaScript expression that makes an instance of the
// role and name engine (role_engine.js) with the role table (package roles).
// The page script makes the one of wright's world; a selector engine in
// the page's own world (custom selector engines) makes a private one.
var RolesFactory = "(" + rolesJS + ")(" + roles.JSON() + ")"

// PageScript installs the role engine and the snapshot builder in a
// document's world once (globalThis.__wrightAria, with the engine as its
// roles); evaluating it again does nothing.
var PageScript = "(() => { if (globalThis.__wrightAria) return; (" + snapshotJS + ")(" + RolesFactory + "); })();"
