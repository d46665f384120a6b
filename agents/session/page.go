package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"wright/browser"
)

const readTimeout = 15 * time.Second

// snapshot is read from the engine: no Python step, no screenshot. What it
// shows becomes what the next action's changes are measured against.
func snapshot(ctx context.Context, s *Session, a params) (Result, error) {
	switch a.Mode {
	case "", "changes", "full":
	default:
		return Result{}, fmt.Errorf("snapshot: mode %q: want changes or full", a.Mode)
	}
	if a.MaxChars < 0 || a.Offset < 0 {
		return Result{}, errors.New("snapshot: max_chars and offset must not be negative")
	}
	if a.Ref != "" {
		if err := requireRef("snapshot", a.Ref); err != nil {
			return Result{}, err
		}
	}
	p := s.env.CurrentPage()
	if p == nil {
		return Result{}, errors.New("snapshot: no tab is open; use tabs action=open")
	}
	whole, err := p.AriaSnapshot(ctx, browser.AriaOptions{Ref: a.Ref}, readTimeout)
	if err != nil {
		if browser.IsType(err, browser.ErrStaleRef) {
			return Result{}, fmt.Errorf("snapshot: %v\nThe newest snapshot is %s: use a ref from it.", err, s.newest)
		}
		return Result{}, fmt.Errorf("snapshot: %w", err)
	}
	s.step++
	url := p.URL()
	data := map[string]any{"url": url, "chars": len(whole), "lines": strings.Count(whole, "\n") + 1}
	var text string
	kind := "full"
	switch {
	case a.Ref != "":
		// A subtree is no page snapshot: later changes are still measured
		// against the whole page the client saw.
		text, kind = whole, "subtree"
	default:
		var changes bool
		text, changes = s.env.ShowSnapshot(s.step, url, whole, a.Mode == "full" || a.Offset > 0)
		if changes {
			kind = "changes"
			text = shortHeader(text)
		}
		s.newest = fmt.Sprintf("the one of call %d (snapshot)", s.step)
		note := s.cutNote()
		switch {
		case kind == "changes" && note != "":
			// The changes are against the whole page; the client saw its
			// start only.
			text += "\n" + strings.TrimRight(note, "\n")
		case kind != "changes" && a.MaxChars == 0 && a.Offset == 0:
			s.cutAt, s.cutOf, s.cutCall, s.outlined = 0, 0, 0, false // the whole page, seen whole
		}
	}
	data["kind"] = kind
	var b strings.Builder
	if a.ToFile {
		path, err := s.writeFile("snapshots", fmt.Sprintf("snapshot_%04d.yml", s.step), []byte(whole+"\n"))
		if err != nil {
			return Result{}, fmt.Errorf("snapshot: %w", err)
		}
		data["path"] = path
		fmt.Fprintf(&b, "Snapshot of %s written to %s (%d chars, %d lines).\n", url, path, len(whole), data["lines"])
		if a.Ref == "" {
			s.newest = fmt.Sprintf("%s (call %d)", path, s.step)
		}
		if kind != "changes" {
			// The file holds it; the text stays small.
			data["text"] = ""
			return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
		}
	}
	shown, cut := window(text, a.Offset, a.MaxChars)
	b.WriteString(shown)
	if cut != "" {
		b.WriteString("\n" + cut)
		data["cut"] = cut
	}
	data["text"] = shown
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

// window is text from offset, at most max characters (0: no limit), cut
// at a line's end; cut says what was left out and how to read it.
func window(text string, offset, max int) (shown, cut string) {
	if offset > len(text) {
		offset = len(text)
	}
	rest := text[offset:]
	if max == 0 || len(rest) <= max {
		if offset > 0 {
			return rest, fmt.Sprintf("[characters %d to %d of %d: the end]", offset, len(text), len(text))
		}
		return rest, ""
	}
	end := max
	if i := strings.LastIndexByte(rest[:max], '\n'); i > 0 {
		end = i
	}
	next := offset + end
	return rest[:end], fmt.Sprintf("[cut: characters %d to %d of %d shown, %d more. For the rest: snapshot mode=full offset=%d; for all of it: to_file=true]",
		offset, next, len(text), len(text)-next, next)
}

// writeFile writes data under the session's folder sub/name and returns
// the path.
func (s *Session) writeFile(sub, name string, data []byte) (string, error) {
	dir := filepath.Join(s.dir, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return "", err
	}
	return path, os.Rename(tmp, path)
}

// screenshot captures the current tab; an image over the cap is sent as
// JPEG at falling qualities until it fits.
func screenshot(ctx context.Context, s *Session, a params) (Result, error) {
	p := s.env.CurrentPage()
	if p == nil {
		return Result{}, errors.New("screenshot: no tab is open")
	}
	img, typ, err := capped(ctx, p, a.FullPage, s.opt.ScreenshotBytes)
	if err != nil {
		return Result{}, fmt.Errorf("screenshot: %w", err)
	}
	s.step++
	ext := strings.TrimPrefix(typ, "image/")
	path, err := s.writeFile("screenshots", fmt.Sprintf("shot_%04d.%s", s.step, ext), img)
	if err != nil {
		return Result{}, fmt.Errorf("screenshot: %w", err)
	}
	if a.Path != "" {
		dst, err := s.clientPath(a.Path)
		if err != nil {
			return Result{}, fmt.Errorf("screenshot: %w", err)
		}
		f, err := openNoFollow(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644, s.opt.FileRoot != "")
		if err != nil {
			return Result{}, fmt.Errorf("screenshot: %w", err)
		}
		_, werr := f.Write(img)
		if err := errors.Join(werr, f.Close()); err != nil {
			return Result{}, fmt.Errorf("screenshot: %w", err)
		}
		path = dst
	}
	code := "page.screenshot(path=" + pyStr(filepath.Base(path))
	if a.FullPage {
		code += ", full_page=True"
	}
	code += ")"
	return Result{
		Text:  fmt.Sprintf("Screenshot of %s: %s (%d KB, %s).", p.URL(), path, (len(img)+1023)/1024, ext),
		Image: img, ImageType: typ, Code: code,
		Data: map[string]any{"path": path, "bytes": len(img), "type": typ, "url": p.URL(), "code": code},
	}, nil
}

func capped(ctx context.Context, p *browser.Page, full bool, limit int) ([]byte, string, error) {
	img, err := p.Capture(ctx, browser.ShotOptions{FullPage: full}, readTimeout)
	if err != nil {
		return nil, "", err
	}
	if len(img) <= limit {
		return img, "image/png", nil
	}
	for _, q := range []int{80, 60, 40, 25, 10} {
		if img, err = p.Capture(ctx, browser.ShotOptions{FullPage: full, Format: "jpeg", Quality: q}, readTimeout); err != nil {
			return nil, "", err
		}
		if len(img) <= limit {
			return img, "image/jpeg", nil
		}
	}
	if full {
		return nil, "", fmt.Errorf("the full page is over %d KB even as JPEG at quality 10; take the viewport instead", limit>>10)
	}
	return nil, "", fmt.Errorf("the viewport is over %d KB even as JPEG at quality 10", limit>>10)
}

// upload copies the files into the session's folder, where the runner
// (sandboxed or not) can read them, and sets them on the input.
func upload(ctx context.Context, s *Session, a params) (Result, error) {
	if err := requireRef("upload", a.Ref); err != nil {
		return Result{}, err
	}
	if len(a.Files) == 0 {
		return Result{}, errors.New("upload: files is required (paths of the files to set)")
	}
	var copies, originals []string
	for i, f := range a.Files {
		src, err := s.clientPath(f)
		if err != nil {
			return Result{}, fmt.Errorf("upload: %w", err)
		}
		dst := filepath.Join(s.dir, "uploads", fmt.Sprintf("%d-%d", s.step+1, i), filepath.Base(f))
		if err := copyFile(src, dst, s.opt.FileRoot != ""); err != nil {
			return Result{}, fmt.Errorf("upload: %w", err)
		}
		copies = append(copies, pyStr(dst))
		originals = append(originals, pyStr(f))
	}
	list := func(l []string) string {
		if len(l) == 1 {
			return l[0]
		}
		return "[" + strings.Join(l, ", ") + "]"
	}
	return s.onRefWith(ctx, "upload", a.Ref,
		func(loc string) string { return loc + ".set_input_files(" + list(copies) + ")" },
		func(loc string) string { return loc + ".set_input_files(" + list(originals) + ")" })
}

func copyFile(src, dst string, rooted bool) error {
	in, err := openNoFollow(src, os.O_RDONLY, 0, rooted)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return err
	} else if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a file", src)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
