package browser

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser/aria"
)

// Custom selector engines: a script registers an engine (an object with
// queryAll(root, body), as Playwright's selectors.register takes), and
// NAME=BODY then works in every selector of every page of the browser. The
// engine runs in the page's main world unless it was registered as a
// content script, which runs in wright's isolated world; a chain that uses
// any main-world engine runs whole in the main world, and so does one whose
// matches go to a main-world function at once (evaluate_all).

// customEngine is one registered engine.
type customEngine struct {
	name   string
	source string // a JavaScript expression for the engine object
	main   bool   // runs in the page's main world
}

// customEngines is a browser's registry.
type customEngines struct {
	mu   sync.Mutex
	list []customEngine
}

var customName = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)

// RegisterSelectorEngine adds an engine named name, made by source (a
// JavaScript expression that evaluates to an object with
// queryAll(root, selector)); contentScript runs it in wright's isolated
// world instead of the page's.
func (b *Browser) RegisterSelectorEngine(name, source string, contentScript bool) error {
	if !customName.MatchString(name) {
		return newErr(ErrInvalidParams, "Selector engine name may only contain [a-zA-Z0-9_] characters")
	}
	lower := strings.ToLower(name)
	if slices.Contains(engines, lower) || slices.Contains(filterEngines, lower) || layoutPseudos[lower] {
		return newErr(ErrInvalidParams, "%q is a predefined selector engine", name)
	}
	if strings.TrimSpace(source) == "" {
		return newErr(ErrInvalidParams, "selector engine %q needs a script: an object with query(root, selector) and queryAll(root, selector)", name)
	}
	r := &b.custom
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.list {
		if e.name == name {
			return newErr(ErrInvalidParams, "%q selector engine has been already registered", name)
		}
	}
	r.list = append(r.list, customEngine{name: name, source: source, main: !contentScript})
	return nil
}

func (b *Browser) customEngine(name string) (customEngine, bool) {
	b.custom.mu.Lock()
	defer b.custom.mu.Unlock()
	for _, e := range b.custom.list {
		if e.name == name {
			return e, true
		}
	}
	return customEngine{}, false
}

func (b *Browser) hasCustomEngine(name string) bool {
	_, ok := b.customEngine(name)
	return ok
}

// checkCustom fails for a NAME= part whose NAME no engine was registered
// under (names are case-sensitive).
func checkCustom(sel string, parts []part, known []func(string) bool) error {
	var bad string
	walkCustom(parts, func(p part) {
		if bad != "" {
			return
		}
		for _, k := range known {
			if k(p.Custom) {
				return
			}
		}
		bad = p.Custom
	})
	if bad == "" {
		return nil
	}
	return newErr(ErrInvalidSelector, "Unknown engine %q while parsing selector %s (known engines: %s)", bad, sel, strings.Join(engines, ", "))
}

// walkCustom calls f for every custom part, nested chains included.
func walkCustom(parts []part, f func(part)) {
	for _, p := range parts {
		if p.Engine == "custom" {
			f(p)
		}
		walkCustom(p.Inner, f)
	}
}

func hasCustom(parts []part) bool {
	found := false
	walkCustom(parts, func(part) { found = true })
	return found
}

// customState is what a context knows of custom engines: which it has
// defined, and its twin engine in the page's main world.
type customState struct {
	mainWorld bool // this context is a frame's main world
	defined   map[string]bool
	twin      *execCtx // the main-world engine of an isolated context
}

// prepareCustom readies ec for parts that use custom engines. It returns
// the main-world context the chain must run in instead of ec, or nil.
func (p *Page) prepareCustom(o *op, ec *execCtx, parts []part) (*execCtx, error) {
	if ec.cs != nil && ec.cs.mainWorld {
		return nil, p.defineCustom(o, ec, parts)
	}
	main := o.customMain
	walkCustom(parts, func(pt part) {
		if e, ok := p.b.customEngine(pt.Custom); ok && e.main {
			main = true
		}
	})
	if !main {
		return nil, p.defineCustom(o, ec, parts)
	}
	twin, err := p.mainTwin(o, ec)
	if err != nil {
		return nil, err
	}
	return twin, p.defineCustom(o, twin, parts)
}

// defineCustom defines in ec the engines parts use that it lacks.
func (p *Page) defineCustom(o *op, ec *execCtx, parts []part) error {
	var err error
	walkCustom(parts, func(pt part) {
		if err != nil {
			return
		}
		p.mu.Lock()
		if ec.cs == nil {
			ec.cs = &customState{}
		}
		done := ec.cs.defined[pt.Custom]
		p.mu.Unlock()
		if done {
			return
		}
		e, ok := p.b.customEngine(pt.Custom)
		if !ok {
			err = newErr(ErrInvalidSelector, "Unknown engine %q", pt.Custom)
			return
		}
		name, _ := json.Marshal(e.name)
		res, cerr := proto.RuntimeCallFunctionOn{
			ObjectID:            ec.engine,
			FunctionDeclaration: "function () { return this.defineEngine(" + string(name) + ", (\n" + e.source + "\n)); }",
			ObjectGroup:         engineGroup,
		}.Call(o.rodPage())
		if cerr != nil {
			err = p.jsErr(cerr)
			return
		}
		if res.ExceptionDetails != nil {
			err = newErr(ErrInvalidSelector, "selector engine %q failed to load: %s", e.name, exceptionText(res.ExceptionDetails))
			return
		}
		p.mu.Lock()
		if ec.cs.defined == nil {
			ec.cs.defined = map[string]bool{}
		}
		ec.cs.defined[pt.Custom] = true
		p.mu.Unlock()
	})
	return err
}

// mainTwin returns (installing it once) the engine in the main world of
// the frame whose isolated context is ec.
func (p *Page) mainTwin(o *op, ec *execCtx) (*execCtx, error) {
	p.mu.Lock()
	if ec.cs == nil {
		ec.cs = &customState{}
	}
	twin := ec.cs.twin
	p.mu.Unlock()
	if twin != nil {
		return twin, nil
	}
	doc, err := proto.RuntimeEvaluate{Expression: "document", ContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	mainDoc, err := p.pageObject(o, handle{ec: ec, obj: doc.Result.ObjectID})
	if err != nil {
		return nil, err
	}
	// The page's world gets a role engine of its own, never a global.
	inst, err := proto.RuntimeCallFunctionOn{
		ObjectID:            mainDoc,
		FunctionDeclaration: "function () { return (" + engineJS + ")(" + aria.RolesFactory + "); }",
		ObjectGroup:         engineGroup,
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	if inst.ExceptionDetails != nil {
		return nil, newErr(ErrBrowser, "install the selector engine in the page's world: %s", exceptionText(inst.ExceptionDetails))
	}
	twin = &execCtx{engine: inst.Result.ObjectID, cs: &customState{mainWorld: true}}
	p.mu.Lock()
	ec.cs.twin = twin
	p.mu.Unlock()
	return twin, nil
}

// runInMain runs parts in twin (the main world of ec's frame) from roots
// (handles in ec) and returns the matches as handles in ec again.
func (p *Page) runInMain(o *op, ec, twin *execCtx, parts []part, roots []handle) ([]handle, int, []int, error) {
	mainRoots := make([]handle, 0, len(roots))
	for _, r := range roots {
		if r.obj == "" {
			continue
		}
		obj, err := p.pageObject(o, r)
		if err != nil {
			return nil, 0, nil, err
		}
		mainRoots = append(mainRoots, handle{ec: twin, obj: obj})
	}
	res, stop, opaque, err := p.run(o, twin, parts, mainRoots)
	if err != nil {
		return nil, 0, nil, err
	}
	for i, h := range res {
		n, err := proto.DOMDescribeNode{ObjectID: h.obj}.Call(o.rodPage())
		if err != nil {
			return nil, 0, nil, p.jsErr(err)
		}
		back, err := proto.DOMResolveNode{BackendNodeID: n.Node.BackendNodeID, ExecutionContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
		if err != nil {
			return nil, 0, nil, p.jsErr(err)
		}
		res[i] = handle{ec: ec, obj: back.Object.ObjectID}
	}
	return res, stop, opaque, nil
}
