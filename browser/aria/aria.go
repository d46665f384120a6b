// Package aria renders a page's accessibility tree as an ARIA snapshot in
// Playwright's YAML format and keeps the refs ([ref=eN]) it hands out.
//
// The tree is Chromium's own (Accessibility.getFullAXTree over CDP, one
// call per frame), completed with a DOMSnapshot for what the accessibility
// tree does not carry: raw href and placeholder attributes, click
// listeners, tabindex, cursor and display. Same-origin iframes and
// out-of-process (cross-site, site-isolated) iframes are both inlined; the
// latter are read through the frame's own target session.
package aria

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Options shape a snapshot.
type Options struct {
	InteractiveOnly bool                   // only elements that can be acted on, with the containers that place them
	MaxDepth        int                    // 0: no limit; N: N levels of nesting (1: top-level lines only)
	MaxChars        int                    // 0: no limit; else cut with "[... N more nodes]"
	Scope           proto.DOMBackendNodeID // 0: the whole page; else that element's subtree (main page's renderer)
}

// Snapshot renders page as YAML and registers a ref for every element that
// can be acted on. With a nil reg the snapshot carries no refs.
//
// Scope is a backend node id as the page's own CDP session knows it (an
// element of the main document, its shadow trees or a same-process iframe).
func Snapshot(ctx context.Context, page *rod.Page, reg *Registry, opts Options) (string, error) {
	if page == nil {
		return "", errors.New("aria snapshot: no page")
	}
	if opts.MaxDepth < 0 || opts.MaxChars < 0 {
		return "", fmt.Errorf("aria snapshot: max_depth (%d) and max_chars (%d) must be 0 (no limit) or positive", opts.MaxDepth, opts.MaxChars)
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("aria snapshot: %w", err)
	}
	built, err := buildInPage(ctx, page, reg, opts)
	if errors.Is(err, errNeedProtocol) {
		built, err = buildFromAXTree(ctx, page, opts)
	}
	if err != nil {
		return "", fmt.Errorf("aria snapshot: %w", err)
	}
	return render(built, reg, opts), nil
}

// built is a snapshot's tree before it is rendered: more counts the lines
// the in-page builder left out for the budget without sending them.
type built struct {
	root       *node
	mainLoader proto.NetworkLoaderID
	more       int
}

// buildFromAXTree builds the tree from Chromium's accessibility tree over
// the DevTools protocol: the fallback for what the in-page builder cannot
// reach (documents in another renderer, scopes in another frame).
func buildFromAXTree(ctx context.Context, page *rod.Page, opts Options) (*built, error) {
	p := page.Context(ctx)
	main, doc, err := openSession(p, "")
	if err != nil {
		return nil, err
	}
	b := &builder{ctx: ctx, page: page, main: main}
	if opts.Scope != 0 {
		if b.scope, err = scopeNodes(p, main, opts.Scope); err != nil {
			return nil, err
		}
	}
	root := b.build(doc)
	if b.err != nil {
		return nil, b.err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &built{root: root, mainLoader: main.loaders[main.root]}, nil
}

// render prints a built tree, issuing refs for the lines kept.
func render(bt *built, reg *Registry, opts Options) string {
	root := bt.root
	if opts.InteractiveOnly {
		root = interactiveOnly(root)
	}
	r := &renderer{maxDepth: opts.MaxDepth}
	var pending *issue
	if reg != nil {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		pending = reg.begin(bt.mainLoader)
		r.refFor = pending.refFor
	}
	r.render(root)
	kept, marker := cutMore(r.lines, opts.MaxChars, bt.more)
	if pending != nil {
		var shown []*node
		for _, l := range r.lines[:kept] {
			if l.ref != nil {
				shown = append(shown, l.ref)
			}
		}
		pending.commit(shown)
	}
	var out strings.Builder
	for i, l := range r.lines[:kept] {
		if i > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(l.text)
	}
	if marker != "" {
		if kept > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(marker)
	}
	return out.String()
}

// Registry hands out refs for one page. Ref numbers are never reused within
// the page, and a ref resolves only to the element it was given to. It is
// safe for concurrent use.
type Registry struct {
	mu     sync.Mutex
	last   int // highest ref number issued
	oldest int // lowest ref number still kept
	refs   map[int]*refEntry
	byKey  map[refKey]int // the newest ref of each element, to give it again
	limit  int            // most refs kept; 0: defaultMaxRefs

	page pageState // the in-page builder's world and cached snapshot
}

// NewRegistry returns an empty registry for one page.
func NewRegistry() *Registry { return &Registry{} }

// StaleRefError says a ref can no longer be used.
type StaleRefError struct {
	Ref    string
	Reason string // "unknown ref", "element removed", "page navigated", "frame navigated", "expired"
}

func (e *StaleRefError) Error() string {
	return fmt.Sprintf("ref %s is stale (%s): take a new aria_snapshot() and use a ref from it", e.Ref, e.Reason)
}

// Resolve returns the element ref was given to, or a *StaleRefError. The
// element is bound to its page's own context, not to ctx.
func (r *Registry) Resolve(ctx context.Context, page *rod.Page, ref string) (*rod.Element, error) {
	if r == nil || page == nil {
		return nil, errors.New("aria resolve: no registry or page")
	}
	return r.resolve(ctx, page, ref)
}
