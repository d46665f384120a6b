package browser

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"wright/internal/scratch"
)

// Downloads. A context that accepts downloads saves them, each under its
// guid, in a directory of the driver's that goes with the browser; each
// one is a page.download event and a Download the client waits on, saves
// elsewhere, cancels or deletes.

// downloads is a browser's downloads.
type downloads struct {
	mu    sync.Mutex
	dir   string
	byID  map[string]*Download
	dirMu sync.Mutex // creating dir
}

// Download is one file the browser downloads.
type Download struct {
	b       *Browser
	guid    string
	context string
	path    string

	mu      sync.Mutex
	state   string // inProgress, completed or canceled
	deleted bool
	done    chan struct{} // closed when the download completes or is canceled
}

// DownloadState is where a finished download is, or why it failed.
type DownloadState struct {
	Path    string // "" when it failed or was deleted
	Failure string // "" when it completed
}

// downloadDir makes (once) the directory downloads go to; it is removed
// when the browser goes.
func (b *Browser) downloadDir() (string, error) {
	b.dl.dirMu.Lock()
	defer b.dl.dirMu.Unlock()
	if b.dl.dir != "" {
		return b.dl.dir, nil
	}
	dir, err := scratch.MkdirTemp("", "downloads-")
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "make a directory for downloads: %v", err)
	}
	context.AfterFunc(b.ctx, func() { _ = os.RemoveAll(dir) })
	b.dl.mu.Lock()
	b.dl.dir = dir
	b.dl.mu.Unlock()
	return dir, nil
}

// AcceptDownloads sets whether the context downloads files (reported as
// page.download events) or refuses them.
func (c *Context) AcceptDownloads(ctx context.Context, accept bool) error {
	b := c.b
	if err := b.alive(); err != nil {
		return err
	}
	req := proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorDeny,
		BrowserContextID: c.cdp, EventsEnabled: true}
	if accept {
		dir, err := b.downloadDir()
		if err != nil {
			return err
		}
		req.Behavior, req.DownloadPath = proto.BrowserSetDownloadBehaviorBehaviorAllowAndName, dir
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := req.Call(b.rod.Context(ctx)); err != nil {
		return b.targetErr(wrapErr(ErrBrowser, err, "set the download behaviour: %s", cdpMessage(err)))
	}
	return nil
}

// Download returns the download with the guid of its page.download event,
// or nil.
func (b *Browser) Download(guid string) *Download {
	b.dl.mu.Lock()
	defer b.dl.mu.Unlock()
	return b.dl.byID[guid]
}

// onDownloadEvent follows the browser's download events (from its pump).
func (b *Browser) onDownloadEvent(msg *rod.Message) {
	switch msg.Method {
	case "Browser.downloadWillBegin":
		var e proto.BrowserDownloadWillBegin
		if !msg.Load(&e) {
			return
		}
		b.dl.mu.Lock()
		if b.dl.byID == nil {
			b.dl.byID = map[string]*Download{}
		}
		d := &Download{b: b, guid: e.GUID, state: "inProgress", done: make(chan struct{})}
		if b.dl.dir != "" {
			d.path = filepath.Join(b.dl.dir, e.GUID)
		}
		b.dl.byID[e.GUID] = d
		b.dl.mu.Unlock()
		// Which page the frame is in takes calls: not on the pump.
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			if p := b.pageOfFrame(e.FrameID); p != nil {
				id := p.browserContext()
				d.mu.Lock()
				d.context = id
				d.mu.Unlock()
				p.emit(&DownloadEvent{Download: e.GUID, URL: e.URL, SuggestedFilename: e.SuggestedFilename})
			}
		}()
	case "Browser.downloadProgress":
		var e proto.BrowserDownloadProgress
		if !msg.Load(&e) || e.State == proto.BrowserDownloadProgressStateInProgress {
			return
		}
		if d := b.Download(e.GUID); d != nil {
			d.finish(string(e.State))
		}
	}
}

func (d *Download) finish(state string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != "inProgress" {
		return
	}
	d.state = state
	close(d.done)
}

// Wait waits until the download completed or failed (timeout 0: as long
// as ctx lasts).
func (d *Download) Wait(ctx context.Context, timeout time.Duration) (DownloadState, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	select {
	case <-d.done:
	case <-d.b.ctx.Done():
		return DownloadState{}, newErr(ErrTargetClosed, "the browser closed before the download finished")
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return DownloadState{}, newErr(ErrTimeout, "Timeout %dms exceeded.\nwaiting for the download to finish", timeout.Milliseconds())
		}
		return DownloadState{}, asError(ctx.Err())
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.state == "canceled":
		return DownloadState{Failure: "canceled"}, nil
	case d.path == "":
		return DownloadState{Failure: "the context does not accept downloads"}, nil
	case d.deleted:
		return DownloadState{}, nil
	}
	return DownloadState{Path: d.path}, nil
}

// SaveAs copies the finished download to path (its directories are made).
func (d *Download) SaveAs(ctx context.Context, path string) error {
	st, err := d.Wait(ctx, 0)
	if err != nil {
		return err
	}
	if st.Failure != "" {
		return newErr(ErrBrowser, "the download failed (%s): nothing to save", st.Failure)
	}
	if st.Path == "" {
		return newErr(ErrBrowser, "the download was deleted: nothing to save")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return wrapErr(ErrBrowser, err, "save the download: %v", err)
	}
	return copyFile(st.Path, path)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return wrapErr(ErrBrowser, err, "save the download: %v", err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return wrapErr(ErrBrowser, err, "save the download: %v", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return wrapErr(ErrBrowser, err, "save the download to %s: %v", to, err)
	}
	if err := out.Close(); err != nil {
		return wrapErr(ErrBrowser, err, "save the download to %s: %v", to, err)
	}
	return nil
}

// Cancel stops a download in progress; a finished one stays as it is.
func (d *Download) Cancel(ctx context.Context) error {
	d.mu.Lock()
	running, id := d.state == "inProgress", d.context
	d.mu.Unlock()
	if !running {
		return nil
	}
	ctx, cancel := d.b.opContext(ctx, 0)
	defer cancel()
	err := proto.BrowserCancelDownload{GUID: d.guid, BrowserContextID: d.b.Context(id).cdp}.Call(d.b.rod.Context(ctx))
	if err != nil {
		return d.b.targetErr(wrapErr(ErrBrowser, err, "cancel the download: %s", cdpMessage(err)))
	}
	// Chromium reports the cancellation too; the download is over either way.
	d.finish("canceled")
	return nil
}

// Delete waits for the download to end and removes its file.
func (d *Download) Delete(ctx context.Context) error {
	st, err := d.Wait(ctx, 0)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.deleted = true
	d.mu.Unlock()
	if st.Path != "" {
		if err := os.Remove(st.Path); err != nil && !os.IsNotExist(err) {
			return wrapErr(ErrBrowser, err, "delete the download: %v", err)
		}
	}
	return nil
}

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
