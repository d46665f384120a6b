package browser

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// FilePayload is a file given by its content (set_input_files with
// {"name", "mimeType", "buffer"}); Buffer is base64.
type FilePayload struct {
	Name     string `json:"name"`
	MimeType string `json:"mimeType"`
	Buffer   string `json:"buffer"`
}

// InputFiles are the files for an <input type=file>: paths on this
// machine, or payloads, not both. None clears the input.
type InputFiles struct {
	Paths    []string
	Payloads []FilePayload
}

// fileInputTarget returns the <input type=file> an element stands for (a
// <label> stands for its control), or a string saying why there is none.
const fileInputTarget = `function (count) {
	let el = this;
	if (el && el.nodeType === 1 && el.localName === 'label' && el.control) el = el.control;
	if (!el || el.nodeType !== 1 || el.localName !== 'input') return 'Error: Node is not an HTMLInputElement';
	if ((el.type || '').toLowerCase() !== 'file') return 'Error: Node is not an <input type=file> element (it is type=' + el.type + ')';
	if (count > 1 && !el.multiple) return 'Error: Non-multiple file input can only accept single file';
	return el;
}`

// setPayloads gives an input files made in the page from their content,
// firing input and change as a person's choice does.
const setPayloads = `function (files) {
	const dt = new DataTransfer();
	for (const f of files) {
		const bin = atob(f.buffer);
		const bytes = new Uint8Array(bin.length);
		for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
		dt.items.add(new File([bytes], f.name, { type: f.mimeType || '' }));
	}
	this.files = dt.files;
	this.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
	this.dispatchEvent(new Event('change', { bubbles: true }));
}`

// SetInputFiles sets the files of the <input type=file> the locator
// matches (or the control of the <label> it matches). Paths must exist;
// the page sees their names, sizes and modification times.
func (l *Locator) SetInputFiles(ctx context.Context, files InputFiles, timeout time.Duration) error {
	if len(files.Paths) > 0 && len(files.Payloads) > 0 {
		return newErr(ErrInvalidParams, "set_input_files takes paths or payloads, not both")
	}
	paths := make([]string, 0, len(files.Paths))
	for _, p := range files.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return newErr(ErrInvalidParams, "file %q: %v", p, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return newErr(ErrInvalidParams, "file to upload %q: %v", p, err)
		}
		if st.IsDir() {
			return newErr(ErrInvalidParams, "file to upload %q is a directory; give files", p)
		}
		paths = append(paths, abs)
	}
	for _, f := range files.Payloads {
		if _, err := base64.StdEncoding.DecodeString(f.Buffer); err != nil {
			return newErr(ErrInvalidParams, "file payload %q: buffer is not base64: %v", f.Name, err)
		}
		if f.Name == "" {
			return newErr(ErrInvalidParams, "a file payload needs a name")
		}
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return err
	}
	count := len(paths) + len(files.Payloads)
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, FunctionDeclaration: fileInputTarget,
		Arguments: []*proto.RuntimeCallArgument{{Value: gson.New(count)}}, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
	if err != nil {
		return o.fail(l.p.jsErr(err), "")
	}
	if res.ExceptionDetails != nil {
		return newErr(ErrBrowser, "%s", exceptionText(res.ExceptionDetails))
	}
	if res.Result.Type == proto.RuntimeRemoteObjectTypeString {
		return newErr(ErrBrowser, "%s", res.Result.Value.Str())
	}
	input := res.Result.ObjectID
	if len(paths) > 0 {
		if err := callCDP(o.rodPage(), proto.DOMSetFileInputFiles{Files: paths, ObjectID: input}); err != nil {
			return o.fail(l.p.jsErr(err), "setting the files of "+l.selector)
		}
		return nil
	}
	// Payloads, or no files at all (which clears the input).
	payloads := files.Payloads
	if payloads == nil {
		payloads = []FilePayload{}
	}
	res, err = proto.RuntimeCallFunctionOn{ObjectID: input, FunctionDeclaration: setPayloads,
		Arguments: []*proto.RuntimeCallArgument{{Value: gson.New(payloads)}}, AwaitPromise: true}.Call(o.rodPage())
	if err != nil {
		return o.fail(l.p.jsErr(err), "setting the files of "+l.selector)
	}
	if res.ExceptionDetails != nil {
		return newErr(ErrBrowser, "%s", exceptionText(res.ExceptionDetails))
	}
	return nil
}

// InterceptFileChooser makes a file chooser the page opens (a click on an
// <input type=file>) a page.filechooser event instead of a dialog; the
// client then sets the files on the input the event names.
func (p *Page) InterceptFileChooser(ctx context.Context, enabled bool) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.PageSetInterceptFileChooserDialog{Enabled: enabled}); err != nil {
		return o.fail(err, "")
	}
	return nil
}

// emitFileChooser reports an intercepted file chooser with a handle on its
// input. It runs off the page's event pump: resolving the node is a call.
func (p *Page) emitFileChooser(e *proto.PageFileChooserOpened) {
	p.b.wg.Add(1)
	go func() {
		defer p.b.wg.Done()
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		defer cancel()
		node, err := proto.DOMResolveNode{BackendNodeID: e.BackendNodeID, ObjectGroup: handleGroup}.Call(p.rod.Context(ctx))
		if err != nil || node.Object == nil {
			return
		}
		p.emit("page.filechooser", map[string]any{"handle": string(node.Object.ObjectID),
			"multiple": e.Mode == proto.PageFileChooserOpenedModeSelectMultiple})
	}()
}
