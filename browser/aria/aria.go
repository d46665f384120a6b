// Package aria renders a page's accessibility tree as an ARIA snapshot in
// Playwright's YAML format and keeps the refs ([ref=eN]) it hands out.
package aria

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Options shape a snapshot.
type Options struct {
	InteractiveOnly bool                   // only elements that can be acted on, with their named ancestors
	MaxDepth        int                    // 0: no limit
	MaxChars        int                    // 0: no limit; else cut with "[... N more nodes]"
	Scope           proto.DOMBackendNodeID // 0: the whole page
}

// Registry hands out refs for one page. Ref numbers are never reused within
// the page, and a ref resolves only to the element it was given to.
type Registry struct {
	// filled in by the aria implementation
}

// NewRegistry returns an empty registry for one page.
func NewRegistry() *Registry { return &Registry{} }

// StaleRefError says a ref can no longer be used.
type StaleRefError struct {
	Ref    string
	Reason string // "unknown ref", "element removed", "page navigated"
}

func (e *StaleRefError) Error() string {
	return fmt.Sprintf("ref %s is stale (%s): take a new aria_snapshot() and use a ref from it", e.Ref, e.Reason)
}

var errTODO = errors.New("aria: not built yet")

// Snapshot renders page as YAML and registers a ref for every element that
// can be acted on.
func Snapshot(ctx context.Context, page *rod.Page, reg *Registry, opts Options) (string, error) {
	return "", errTODO
}

// Resolve returns the element ref was given to, or a *StaleRefError.
func (r *Registry) Resolve(ctx context.Context, page *rod.Page, ref string) (*rod.Element, error) {
	return nil, errTODO
}
