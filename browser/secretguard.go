package browser

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"wright/internal/pause"
)

// SecretSource is where the driver gets secret values (Options.Secrets). It
// lives in the driver's process, never the model's, and a client cannot set
// it.
type SecretSource interface {
	// Split cuts text into plain runs and secret values (an unknown name is
	// an error naming it, never a value).
	Split(text string) ([]SecretPiece, error)
	// MayType says whether the secret name may go into a document of the
	// given security origin (or URL).
	MayType(name, origin string) error
	// RedactReads is applied to everything the driver answers a client, so
	// that a read of a field holding a write-only secret answers its
	// placeholder.
	RedactReads(text string) string
}

// SecretRedactor is what a SecretSource may also offer: redaction of every
// secret's value, write-only or not, for the recordings the driver writes
// (HAR, trace); a source without it has them redacted by RedactReads.
type SecretRedactor interface {
	Redact(text string) string
}

// SecretPiece is one run of text to type: plain (Name empty) or a secret's
// value.
type SecretPiece struct {
	Text string
	Name string
}

// The host check is made against the document that will receive the next
// keystroke, and again before every keystroke of a value: the page's top
// URL says nothing about an iframe that holds the focus, and a page may
// navigate, move the focus or open a frame while a value is being typed.
// The focus is followed from the main frame through each focused
// <iframe>, read in an isolated world of the guard's own (guardWorld):
// not the page's main world, whose scripts can redefine
// document.activeElement, nor wright's engine world, which a CDP session
// could name. The driver's CDP sessions refuse every way of running code
// in a world other than the page's own (cdp_methods.go), and the origin is
// the browser's own record of the frame (Page.getFrameTree), not anything
// the page says.

// guardWorld names the guard's isolated world. Nothing else runs there:
// wright's engine lives in another world, and the name is drawn at random
// for each process so that no script can have been written knowing it.
var guardWorld = func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "wright-focus-" + hex.EncodeToString(b[:])
}()

// GuardWorld is the guard's world name, for the tests that try to reach it.
func GuardWorld() string { return guardWorld }

// focusedFrameJS returns the focused element when it is a frame element.
const focusedFrameJS = `(() => { const a = document.activeElement; return a && (a.localName === 'iframe' || a.localName === 'frame') ? a : null; })()`

// guardCtx is the guard's world in frame (made on first use; Chromium
// answers the same world for the same name after that).
func (p *Page) guardCtx(o *op, frame proto.PageFrameID) (proto.RuntimeExecutionContextID, error) {
	world, err := proto.PageCreateIsolatedWorld{FrameID: frame, WorldName: guardWorld}.Call(o.rodPage())
	if err != nil {
		if strings.Contains(err.Error(), "No frame for given id") {
			return 0, errRetry
		}
		return 0, p.jsErr(err)
	}
	return world.ExecutionContextID, nil
}

// secretPieces splits text when secrets are configured and text names one;
// has says whether any piece is a secret.
func (p *Page) secretPieces(text string) (pieces []SecretPiece, has bool, err error) {
	if p.b.opts.Secrets == nil || !strings.Contains(text, "<secret>") {
		return []SecretPiece{{Text: text}}, false, nil
	}
	pieces, err = p.b.opts.Secrets.Split(text)
	if err != nil {
		return nil, false, newErr(ErrInvalidParams, "%s", err.Error())
	}
	for _, pc := range pieces {
		if pc.Name != "" {
			has = true
		}
	}
	return pieces, has, nil
}

func joinPieces(pieces []SecretPiece) string {
	var b strings.Builder
	for _, pc := range pieces {
		b.WriteString(pc.Text)
	}
	return b.String()
}

// focusedFrame is the frame whose document holds the focused element.
func (p *Page) focusedFrame(o *op) (proto.PageFrameID, error) {
	frame := p.mainFrame()
	for depth := 0; depth < 32; depth++ {
		ctx, err := p.guardCtx(o, frame)
		if err != nil {
			return "", err
		}
		res, err := proto.RuntimeEvaluate{Expression: focusedFrameJS, ContextID: ctx, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
		if err != nil {
			return "", p.jsErr(err)
		}
		if res.ExceptionDetails != nil {
			return "", errors.New(exceptionText(res.ExceptionDetails))
		}
		if res.Result.ObjectID == "" {
			return frame, nil
		}
		node, err := proto.DOMDescribeNode{ObjectID: res.Result.ObjectID, Depth: gson.Int(1), Pierce: true}.Call(o.rodPage())
		if err != nil {
			return "", p.jsErr(err)
		}
		if node.Node.ContentDocument == nil || node.Node.FrameID == "" {
			return "", errors.New("the focused frame has no document yet")
		}
		frame = node.Node.FrameID
	}
	return "", errors.New("frames nested too deep")
}

// frameOrigin is the browser's record of a frame's security origin (an
// about:blank child shares its parent's; a sandboxed one is opaque), or its
// URL when Chromium gives no origin.
func (p *Page) frameOrigin(o *op, frame proto.PageFrameID) (string, error) {
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	var found *proto.PageFrame
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		if t.Frame.ID == frame {
			found = t.Frame
			return
		}
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)
	if found == nil {
		return "", fmt.Errorf("frame %s is gone", frame)
	}
	if found.SecurityOrigin != "" {
		return found.SecurityOrigin, nil
	}
	return found.URL, nil
}

// mayTypeIn refuses the secret name unless frame's origin is on one of its
// domains. done counts the value's characters already typed, for the
// message.
func (p *Page) mayTypeIn(o *op, frame proto.PageFrameID, name string, done, total int) error {
	stopped := ""
	if done > 0 {
		stopped = fmt.Sprintf(" (typing stopped after %d of its %d characters)", done, total)
	}
	origin, err := p.frameOrigin(o, frame)
	if err == nil {
		err = p.b.opts.Secrets.MayType(name, origin)
		if err == nil {
			return nil
		}
		return newErr(ErrInvalidParams, "%s%s; nothing more was typed", err.Error(), stopped)
	}
	return newErr(ErrInvalidParams, "the secret %q was not typed: cannot tell which document holds the focus (%v)%s; nothing more was typed", name, err, stopped)
}

// mayTypeFocused is mayTypeIn for the frame that holds the focus now.
func (p *Page) mayTypeFocused(o *op, name string, done, total int) error {
	frame, err := p.focusedFrame(o)
	// Mid-navigation the documents' worlds come and go: look again for a
	// moment before giving up (and refusing) for want of an answer.
	for try := 0; err != nil && errors.Is(err, errRetry) && try < 20; try++ {
		if perr := pause.For(o.ctx, 50*time.Millisecond); perr != nil {
			break
		}
		frame, err = p.focusedFrame(o)
	}
	if err != nil {
		if e := p.closedErr(); e != nil {
			return e
		}
		return newErr(ErrInvalidParams, "the secret %q was not typed: cannot tell which document holds the focus (%v); nothing more was typed", name, err)
	}
	return p.mayTypeIn(o, frame, name, done, total)
}

// typePieces types text as typeText does, but checks the focused document
// before every character of a secret's value.
func (p *Page) typePieces(o *op, pieces []SecretPiece, delay time.Duration) error {
	first := true
	for _, pc := range pieces {
		total, n := len([]rune(pc.Text)), 0
		for _, r := range pc.Text {
			if !first {
				if err := pause.For(o.ctx, delay); err != nil {
					return err
				}
			}
			first = false
			if pc.Name != "" {
				if err := p.mayTypeFocused(o, pc.Name, n, total); err != nil {
					return err
				}
			}
			if err := p.keyboard.typeText(o, string(r), 0); err != nil {
				return err
			}
			n++
		}
	}
	return nil
}

// mayFill checks every secret of a fill against frame ("" for the frame
// that holds the focus now).
func (p *Page) mayFill(o *op, frame proto.PageFrameID, pieces []SecretPiece) error {
	for _, pc := range pieces {
		if pc.Name == "" {
			continue
		}
		var err error
		if frame == "" {
			err = p.mayTypeFocused(o, pc.Name, 0, 0)
		} else {
			err = p.mayTypeIn(o, frame, pc.Name, 0, 0)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
