package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"mime"
	"os"
	"path/filepath"
	"time"

	"wright/browser"
)

// Drag and drop, file inputs, file choosers and downloads (Playwright's
// drag_to, set_input_files, expect_file_chooser, expect_download).

func locatorDragTo(ctx context.Context, l *browser.Locator, dp *struct {
	locatorParams
	Target         string         `json:"target"`
	SourcePosition *browser.Point `json:"source_position"`
	TargetPosition *browser.Point `json:"target_position"`
	Force          bool           `json:"force"`
	Trial          bool           `json:"trial"`
	Steps          int            `json:"steps"`
}, to time.Duration) (any, error) {
	if dp.Target == "" {
		return nil, invalid("locator.drag_to needs \"target\" (a selector)")
	}
	if dp.Steps < 0 {
		return nil, invalid("steps must be >= 1, got %d", dp.Steps)
	}
	target, err := l.Page().Locator(dp.Target)
	if err != nil {
		return nil, err
	}
	return nil, l.DragTo(ctx, target, browser.DragOptions{SourcePosition: dp.SourcePosition, TargetPosition: dp.TargetPosition,
		Force: dp.Force, Trial: dp.Trial, Steps: dp.Steps, Timeout: to})
}

func locatorSetInputFiles(ctx context.Context, l *browser.Locator, fp *struct {
	locatorParams
	Paths    []string              `json:"paths"`
	Payloads []browser.FilePayload `json:"payloads"`
}, to time.Duration) (any, error) {
	root := rootOf(ctx)
	if !root.confined() || len(fp.Paths) == 0 {
		return nil, l.SetInputFiles(ctx, browser.InputFiles{Paths: fp.Paths, Payloads: fp.Payloads}, to)
	}
	if len(fp.Payloads) > 0 {
		return nil, invalid("set_input_files takes paths or payloads, not both")
	}
	// Confined, the driver reads each file itself, beneath the root and
	// through no link, and gives the page its content: Chromium, which
	// would open a path by name later, never sees one.
	payloads := make([]browser.FilePayload, 0, len(fp.Paths))
	for _, p := range fp.Paths {
		data, err := root.readFile("file to upload", p)
		if err != nil {
			return nil, err
		}
		payloads = append(payloads, browser.FilePayload{Name: filepath.Base(p),
			MimeType: mime.TypeByExtension(filepath.Ext(p)), Buffer: base64.StdEncoding.EncodeToString(data)})
	}
	return nil, l.SetInputFiles(ctx, browser.InputFiles{Payloads: payloads}, to)
}

func pageInterceptFileChooser(ctx context.Context, p *browser.Page, ip *struct {
	pageParams
	Enabled bool `json:"enabled"`
}) (any, error) {
	return nil, p.InterceptFileChooser(ctx, ip.Enabled)
}

type downloadParams struct {
	Browser  string `json:"browser"`
	Download string `json:"download"`
}

// download finds the download the params name.
func (dp downloadParams) find(c *conn) (*browser.Download, error) {
	b, err := c.s.browserParam(dp.Browser)
	if err != nil {
		return nil, err
	}
	d := b.Download(dp.Download)
	if d == nil {
		return nil, invalid("no download %q", dp.Download)
	}
	return d, nil
}

func contextAcceptDownloads(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var ap struct {
		Browser string `json:"browser"`
		Context string `json:"context"`
		Accept  bool   `json:"accept"`
	}
	if err := decode(raw, &ap); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(ap.Browser)
	if err != nil {
		return nil, err
	}
	return nil, b.Context(ap.Context).AcceptDownloads(ctx, ap.Accept)
}

func downloadWait(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var wp struct {
		downloadParams
		Timeout ms `json:"timeout"`
	}
	if err := decode(raw, &wp); err != nil {
		return nil, err
	}
	d, err := wp.find(c)
	if err != nil {
		return nil, err
	}
	to, err := wp.Timeout.duration()
	if err != nil {
		return nil, err
	}
	st, err := d.Wait(ctx, to)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": st.Path, "failure": st.Failure}, nil
}

func downloadSaveAs(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var sp struct {
		downloadParams
		Path string `json:"path"`
	}
	if err := decode(raw, &sp); err != nil {
		return nil, err
	}
	d, err := sp.find(c)
	if err != nil {
		return nil, err
	}
	if sp.Path == "" {
		return nil, invalid("download.save_as needs \"path\"")
	}
	root := c.s.files()
	if !root.confined() {
		return nil, d.SaveAs(ctx, sp.Path)
	}
	if _, err := root.check("save the download", sp.Path); err != nil {
		return nil, err
	}
	// The finished file is in the driver's own download folder; it is
	// copied out through the policy, never to the client's name directly.
	st, err := d.Wait(ctx, 0)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Failure != "":
		return nil, browser.Errorf(browser.ErrBrowser, "the download failed (%s): nothing to save", st.Failure)
	case st.Path == "":
		return nil, browser.Errorf(browser.ErrBrowser, "the download was deleted: nothing to save")
	}
	data, err := os.ReadFile(st.Path)
	if err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "save the download: %v", err)
	}
	return nil, root.writeFile("save the download", sp.Path, data)
}

// downloadDo adapts download.cancel and download.delete.
func downloadDo(run func(d *browser.Download, ctx context.Context) error) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var dp downloadParams
		if err := decode(raw, &dp); err != nil {
			return nil, err
		}
		d, err := dp.find(c)
		if err != nil {
			return nil, err
		}
		return nil, run(d, ctx)
	}
}
