package model

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// page draws a stand-in screenshot: a white page with dark bars where text
// would be, at the given lengths, and noise (0-255) added to every pixel as
// another machine's rendering might.
func page(t *testing.T, path string, bars []int, noise uint8) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 640, 360))
	for y := 0; y < 360; y++ {
		for x := 0; x < 640; x++ {
			v := uint8(255)
			if row := y / 30; row < len(bars) && y%30 < 14 && x >= 20 && x < 20+bars[row] {
				v = 40
			}
			if noise > 0 && (x*7+y*13)%5 == 0 {
				if v > noise {
					v -= noise
				} else {
					v += noise
				}
			}
			img.Set(x, y, color.RGBA{v, v, v, 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return path
}

func imageHash(t *testing.T, path string) string {
	t.Helper()
	h, err := ImageHash(path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func writeLines(t *testing.T, path string, lines ...any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A recorded judge keyed to images answers what it is shown: the
// screenshot it was recorded for (even rendered a little differently), the
// same again, and for any other screenshot the unrecorded reply naming it.
func TestReplayKeyedToImages(t *testing.T) {
	dir := t.TempDir()
	home := page(t, filepath.Join(dir, "home.png"), []int{300, 200, 400}, 0)
	book := page(t, filepath.Join(dir, "book.png"), []int{500, 120, 260, 330}, 0)
	homeAgain := page(t, filepath.Join(dir, "home_elsewhere.png"), []int{300, 200, 400}, 3)
	other := page(t, filepath.Join(dir, "other_book.png"), []int{260, 380, 90, 520, 200}, 0)
	hHome, hBook := imageHash(t, home), imageHash(t, book)
	if d, _ := HashDistance(hHome, imageHash(t, homeAgain)); d > ImageHashTolerance {
		t.Fatalf("noise moved the hash %d bits (tolerance %d)", d, ImageHashTolerance)
	}
	if d, _ := HashDistance(hBook, imageHash(t, other)); d <= ImageHashTolerance {
		t.Fatalf("a page with another title is %d bits from the recorded one (tolerance %d)", d, ImageHashTolerance)
	}
	file := writeLines(t, filepath.Join(dir, "judge.jsonl"),
		map[string]any{"thought": "an agent's step, in order", "bash_command": "ls", "done": false, "final_response": ""},
		map[string]any{"content": "Score: 5\nReasoning: the home page.", "images": []string{hHome}},
		map[string]any{"content": "Score: 5\nReasoning: the book page.", "images": []string{hBook}},
		map[string]any{"content": "Status: success", "images": []string{hHome, hBook}},
		map[string]any{"content": "Score: 1\nReasoning: {images} matches no recording.\nStatus: failure", "unrecorded_images": true},
	)
	c, err := NewReplay(file)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(imgs ...string) string {
		t.Helper()
		r, err := c.Complete(context.Background(), []Message{{Role: RoleSystem, Content: "judge"}, {Role: RoleUser, Content: "look", Images: imgs}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Content
	}
	cases := []struct {
		imgs []string
		want string
	}{
		{[]string{book}, "the book page"},
		{[]string{homeAgain}, "the home page"},
		{[]string{home}, "the home page"}, // not used up
		{[]string{home, book}, "Status: success"},
		{[]string{other}, "other_book.png matches no recording"},
		{[]string{home, other}, "Reasoning: other_book.png matches no recording.\nStatus: failure"},
		{[]string{book, home}, "book.png, home.png matches no recording"}, // each known, not in this order
	}
	for _, tc := range cases {
		if got := ask(tc.imgs...); !strings.Contains(got, tc.want) {
			t.Errorf("%v: got %q, want %q", tc.imgs, got, tc.want)
		}
	}
	// A request without images still gets the in-order replies.
	r, err := c.Complete(context.Background(), []Message{{Role: RoleUser, Content: "next step"}})
	if err != nil || !strings.Contains(r.Content, "an agent's step") {
		t.Errorf("in order: %q %v", r.Content, err)
	}
	if _, err := c.Complete(context.Background(), []Message{{Role: RoleUser, Content: "next step"}}); err == nil {
		t.Error("the keyed replies were handed out in order")
	}

	// Without an unrecorded_images reply, a screenshot no one recorded is
	// an error that names it, never another screenshot's reply.
	strict, err := NewReplay(writeLines(t, filepath.Join(dir, "strict.jsonl"), map[string]any{"content": "Score: 5\nReasoning: home", "images": []string{hHome}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := strict.Complete(context.Background(), []Message{{Role: RoleUser, Images: []string{other}}}); err == nil || !strings.Contains(err.Error(), "other_book.png") {
		t.Errorf("an unrecorded screenshot: %v", err)
	}
}

func TestReplayImageKeysChecked(t *testing.T) {
	dir := t.TempDir()
	for name, line := range map[string]map[string]any{
		"hex digits":  {"content": "x", "images": []string{"abc"}},
		"is empty":    {"content": "x", "images": []string{}},
		"not several": {"content": "x", "match": "home.png", "images": []string{strings.Repeat("0", HashBits/4)}},
	} {
		if _, err := NewReplay(writeLines(t, filepath.Join(dir, "bad.jsonl"), line)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: %v, want an error saying %q", line, err, name)
		}
	}
	two := map[string]any{"content": "x", "unrecorded_images": true}
	if _, err := NewReplay(writeLines(t, filepath.Join(dir, "two.jsonl"), two, two)); err == nil || !strings.Contains(err.Error(), "second") {
		t.Errorf("two unrecorded replies: %v", err)
	}
}
