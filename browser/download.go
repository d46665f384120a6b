package browser

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"wright/scratch"
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

// AcceptDownloads sets whether the context id ("" is the default one)
// downloads files (reported as page.download events) or refuses them.
func (b *Browser) AcceptDownloads(ctx context.Context, id string, accept bool) error {
	if err := b.alive(); err != nil {
		return err
	}
	req := proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorDeny,
		BrowserContextID: proto.BrowserBrowserContextID(id), EventsEnabled: true}
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
				p.emit("page.download", map[string]any{"download": e.GUID, "url": e.URL, "suggested_filename": e.SuggestedFilename})
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

// pageOfFrame finds the page a frame belongs to: a main frame's id is its
// page's target id; a child frame is looked up in the frame trees.
func (b *Browser) pageOfFrame(frame proto.PageFrameID) *Page {
	if p := b.pageByTarget(proto.TargetTargetID(frame)); p != nil {
		return p
	}
	for _, p := range b.Pages() {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		tree, err := proto.PageGetFrameTree{}.Call(p.rod.Context(ctx))
		cancel()
		if err == nil && frameIn(tree.FrameTree, frame) {
			return p
		}
	}
	return nil
}

func frameIn(t *proto.PageFrameTree, id proto.PageFrameID) bool {
	if t == nil {
		return false
	}
	if t.Frame != nil && t.Frame.ID == id {
		return true
	}
	for _, c := range t.ChildFrames {
		if frameIn(c, id) {
			return true
		}
	}
	return false
}

// browserContext is the id of the page's browser context ("" when unknown).
func (p *Page) browserContext() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	info, err := proto.TargetGetTargetInfo{TargetID: p.rod.TargetID}.Call(p.b.rod.Context(ctx))
	if err != nil {
		return ""
	}
	return string(info.TargetInfo.BrowserContextID)
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
	err := proto.BrowserCancelDownload{GUID: d.guid, BrowserContextID: proto.BrowserBrowserContextID(id)}.Call(d.b.rod.Context(ctx))
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
