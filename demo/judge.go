package demo

import (
	"fmt"
	"strings"
)

// The recorded judge answers for the screenshots it was recorded on, and
// only for them: each reply is keyed to the difference hashes
// (model.ImageHash) of the screenshots it describes, so a run whose
// screenshots show something else gets the unrecorded reply, a failure,
// instead of a canned success. The hashes are this project's Chromium's
// renderings of the shop, kept in screens_recorded.go.

// JudgeReply is one recorded answer of the judge.
type JudgeReply struct {
	Content string `json:"content"`
	// Images are the hashes of the screenshots it answers for, in the
	// order the judge is sent them: one for a screenshot's score, all of
	// a run's for the verdict.
	Images []string `json:"images,omitempty"`
	// Unrecorded marks the answer for screenshots no reply is keyed to.
	Unrecorded bool `json:"unrecorded_images,omitempty"`
}

// Shot is one run of the book script the recordings hold: a version of the
// shop and a book.
type Shot struct {
	Version int
	Book    Book
}

// Key names the run's screenshots in screens_recorded.go.
func (s Shot) Key() string { return fmt.Sprintf("v%d/%s", s.Version, s.Book.ID) }

// ShotNames are the screenshots each run of the script saves, in order.
var ShotNames = []string{"home", "results", "book"}

// RecordedShots are the runs the judge has replies for: the demo's own (v1,
// the default book), the tour's two reruns with other titles, the heal on
// v2 (the default book again) and the rerun after it.
var RecordedShots = []Shot{
	{1, DefaultBook}, {1, OtherBooks[0]}, {1, OtherBooks[1]},
	{2, DefaultBook}, {2, OtherBooks[0]},
}

// UnrecordedReply is what the recorded judge says of screenshots it has no
// recording of: a failure that says why ({images} is filled with their
// names).
const UnrecordedReply = "Score: 1\nReasoning: no recorded screenshot matches {images}. This judge is a recording: it can vouch only for the screenshots it was recorded on, so it cannot say that this run did the task (give --model a real model to have it looked at).\nStatus: failure"

// JudgeReplies are the judge's answers for the demo's own run: one per
// screenshot, then the verdict.
var JudgeReplies = func() []JudgeReply {
	r, _ := shotReplies(RecordedShots[0]) // screens_recorded.go holds it; TestJudgeRecordingComplete checks
	return r
}()

// JudgeRecording is every recorded answer of the judge, then the one for
// screenshots it was not recorded on.
func JudgeRecording() ([]JudgeReply, error) {
	var all []JudgeReply
	for _, s := range RecordedShots {
		r, err := shotReplies(s)
		if err != nil {
			return nil, err
		}
		all = append(all, r...)
	}
	return append(all, JudgeReply{Content: UnrecordedReply, Unrecorded: true}), nil
}

// shotReplies are the judge's answers for one run: each screenshot's score
// and the verdict.
func shotReplies(s Shot) ([]JudgeReply, error) {
	hashes, ok := recordedScreens[s.Key()]
	if !ok || len(hashes) != len(ShotNames) {
		return nil, fmt.Errorf("demo judge: no recorded screenshots of %s (go test ./demo -run TestRecordedScreens -update records them)", s.Key())
	}
	b := s.Book
	home := "Score: 5\nReasoning: The shop's home page is open, with the search form visible: a field labelled \"Search books\" and a Search button."
	if s.Version == 2 {
		home = "Score: 5\nReasoning: The shop's home page is open in its new look, with the search in the header: a field labelled \"Find a book\" and a Go button."
	}
	return []JudgeReply{
		{Content: home, Images: hashes[:1]},
		{Content: fmt.Sprintf("Score: 5\nReasoning: The results list shows %q by %s at $%s.", b.Title, b.Author, b.Price), Images: hashes[1:2]},
		{Content: fmt.Sprintf("Score: 5\nReasoning: The book page shows %q, by %s, and the price $%s.", b.Title, b.Author, b.Price), Images: hashes[2:3]},
		{Content: fmt.Sprintf("The log shows the search for %q and its book page; the result (%s) matches the book page in the last screenshot.\nStatus: success", b.Title, strings.Trim(b.Result(), "{}")), Images: hashes},
	}, nil
}
