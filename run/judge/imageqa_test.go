package judge

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"wright/model/modeltest"
)

func TestImageQA(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "shots", "a.png"), pngBytes(t, 1))
	writeFile(t, filepath.Join(ws, "shots", "b.png"), pngBytes(t, 2))
	srv := modeltest.New(t,
		modeltest.Reply("Sure! Here you go:\n```json\n{\"answer\": \"19.99 EUR\", \"evidence\": [\"price tag under the title in b.png\", \"cart total\"], \"unknown\": false, \"confidence\": 0.9}\n```"),
	)
	ans, err := ImageQA(context.Background(), judgeClient(t, srv.URL), ImageQAOptions{
		Workspace: ws, Images: []string{"shots/a.png", filepath.Join(ws, "shots", "b.png")}, Question: "What does the kettle cost?",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := ImageAnswer{Answer: "19.99 EUR", Evidence: "price tag under the title in b.png\ncart total", Unknown: false, Confidence: 0.9}
	if *ans != want {
		t.Errorf("got %+v, want %+v", *ans, want)
	}
	msg := srv.Last().Chat().Messages[1]
	if len(msg.ImageURLs()) != 2 || !strings.Contains(msg.Text(), "Question: What does the kettle cost?") || !strings.Contains(msg.Text(), "2. b.png") {
		t.Errorf("request: %q with %d images", msg.Text(), len(msg.ImageURLs()))
	}
}

func TestImageQARetriesUnreadable(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "a.png"), pngBytes(t, 1))
	srv := modeltest.New(t,
		modeltest.Reply("The price is 19.99."),
		modeltest.Reply(`{"answer": "", "evidence": "", "unknown": true, "confidence": 80}`),
	)
	ans, err := ImageQA(context.Background(), judgeClient(t, srv.URL), ImageQAOptions{Workspace: ws, Images: []string{"a.png"}, Question: "Is there a login form?"})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Unknown || ans.Confidence != 0.8 {
		t.Errorf("got %+v", ans)
	}
	if retry := srv.Last().Chat().Messages; len(retry) != 4 || !strings.Contains(retry[3].Text(), "no JSON object") {
		t.Errorf("retry messages: %+v", retry)
	}

	srv = modeltest.New(t, modeltest.Reply(`{"answer": "x"}`).Forever())
	_, err = ImageQA(context.Background(), judgeClient(t, srv.URL), ImageQAOptions{Workspace: ws, Images: []string{"a.png"}, Question: "q", MaxParseRetries: 1})
	if err == nil || !strings.Contains(err.Error(), `unreadable after 2 attempts: the object has no boolean "unknown"`) || srv.Calls() != 2 {
		t.Errorf("err %v after %d calls", err, srv.Calls())
	}
}

func TestImageQABadInput(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "page.html"), []byte("<html></html>"))
	srv := modeltest.New(t)
	client := judgeClient(t, srv.URL)
	cases := map[string]ImageQAOptions{
		"no question":           {Workspace: ws, Images: []string{"page.html"}},
		"no image":              {Workspace: ws, Question: "q"},
		"not a PNG or JPEG":     {Workspace: ws, Images: []string{"page.html"}, Question: "q"},
		"no such file or direc": {Workspace: ws, Images: []string{"missing.png"}, Question: "q"},
	}
	for want, opts := range cases {
		_, err := ImageQA(context.Background(), client, opts)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("%d calls on bad input", srv.Calls())
	}
}
