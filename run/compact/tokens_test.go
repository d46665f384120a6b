package compact

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"wright/model"
)

func TestEncodingFor(t *testing.T) {
	for _, tc := range []struct{ model, want string }{
		{"gpt-4o", EncodingO200k},
		{"gpt-4o-mini-2024-07-18", EncodingO200k},
		{"openai/gpt-4.1", EncodingO200k},
		{"GPT-5", EncodingO200k},
		{"gpt-5-mini", EncodingO200k},
		{"chatgpt-4o-latest", EncodingO200k},
		{"gpt-oss:20b", EncodingO200k},
		{"o1", EncodingO200k},
		{"o3-mini", EncodingO200k},
		{"openai/o4-mini", EncodingO200k},
		{"gpt-4", EncodingCL100k},
		{"gpt-3.5-turbo", EncodingCL100k},
		{"qwen/qwen3-coder", EncodingCL100k},
		{"olmo-2", EncodingCL100k},
		{"", EncodingCL100k},
	} {
		if got := EncodingFor(tc.model); got != tc.want {
			t.Errorf("EncodingFor(%q) = %s, want %s", tc.model, got, tc.want)
		}
	}
}

// Counts checked against OpenAI's tiktoken (token ids match too).
func TestTokenizerKnownCounts(t *testing.T) {
	for _, tc := range []struct {
		model, text string
		want        int
	}{
		{"gpt-4", "hello world", 2},
		{"gpt-4", "tiktoken is great!", 6},
		{"gpt-4", "antidisestablishmentarianism", 6},
		{"gpt-4", "Привет мир", 5},
		{"gpt-4o", "hello world", 2},
		{"gpt-4o", "tiktoken is great!", 6},
		{"gpt-4o", "Привет мир", 3},
		// Special-token text in a page is plain text, never an error.
		{"gpt-4o", "<|endoftext|>", 7},
		{"gpt-4o", "", 0},
	} {
		tok := NewTokenizer(tc.model)
		if _, ok := tok.(*bpeTokenizer); !ok {
			t.Fatalf("NewTokenizer(%q) fell back to %T: the embedded ranks did not load", tc.model, tok)
		}
		if got := tok.Count(tc.text); got != tc.want {
			t.Errorf("%s: Count(%q) = %d, want %d", tc.model, tc.text, got, tc.want)
		}
	}
}

func TestNewTokenizerIsShared(t *testing.T) {
	a, b := NewTokenizer("gpt-4o"), NewTokenizer("gpt-5")
	if a != b {
		t.Error("two o200k models built two tokenizers; the encoding should be parsed once")
	}
}

func TestCountMessages(t *testing.T) {
	tok := NewTokenizer("gpt-4o")
	if got := CountMessages(tok, nil); got != 0 {
		t.Errorf("empty history counts %d", got)
	}
	one := []model.Message{{Role: model.RoleUser, Content: "hello world"}}
	// 3 per message + "user" (1) + "hello world" (2) + 3 reply priming.
	if got := CountMessages(tok, one); got != 9 {
		t.Errorf("one message counts %d, want 9", got)
	}

	// Monotone: every message added, every character added costs more.
	var msgs []model.Message
	prev := 0
	for i := 0; i < 20; i++ {
		role := model.RoleUser
		if i%2 == 1 {
			role = model.RoleAssistant
		}
		msgs = append(msgs, model.Message{Role: role, Content: strings.Repeat("word ", i)})
		n := CountMessages(tok, msgs)
		if n <= prev {
			t.Fatalf("adding message %d: count %d not above %d", i, n, prev)
		}
		prev = n
	}
	longer := append([]model.Message(nil), msgs...)
	longer[3].Content += " and more"
	if CountMessages(tok, longer) <= prev {
		t.Error("longer content did not count more")
	}

	withImage := append([]model.Message(nil), msgs...)
	withImage[5].Images = []string{"screenshots/a.png", "screenshots/b.png"}
	if got := CountMessages(tok, withImage); got != prev+2*ImageTokens {
		t.Errorf("two images: %d, want %d", got, prev+2*ImageTokens)
	}

	// Exit messages and Meta never reach the model.
	withExit := append(append([]model.Message(nil), msgs...), model.Message{Role: model.RoleExit, Content: "Submitted", Meta: &model.Meta{FinalResponse: strings.Repeat("y", 1000)}})
	if got := CountMessages(tok, withExit); got != prev {
		t.Errorf("exit message counted: %d, want %d", got, prev)
	}
	if got := CountMessages(nil, one); got != CountMessages(NewTokenizer(""), one) {
		t.Errorf("nil tokenizer: %d", got)
	}
}

// observationText builds a realistic 20k-character observation: an ARIA
// snapshot of a product listing followed by a log tail.
func observationText(n int) string {
	r := rand.New(rand.NewSource(1))
	words := []string{"Add", "to", "cart", "Price", "Sort", "by", "Filter", "Brand", "Rating", "stars", "Next", "page", "Search", "results", "Shipping", "free", "Color", "Size"}
	var b strings.Builder
	for i := 0; b.Len() < n/2; i++ {
		fmt.Fprintf(&b, "- listitem:\n  - link \"%s %s %d\" [ref=e%d]:\n    - /url: /p/%d\n  - text: $%d.%02d\n",
			words[r.Intn(len(words))], words[r.Intn(len(words))], r.Intn(1000), i, r.Intn(99999), r.Intn(500), r.Intn(100))
	}
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "2025-01-0%d 12:%02d:%02d INFO fetched https://shop.test/api/items?page=%d status=200 bytes=%d\n", 1+i%9, r.Intn(60), r.Intn(60), i, r.Intn(100000))
	}
	return b.String()[:n]
}

func BenchmarkCount20kO200k(b *testing.B)  { benchCount(b, "gpt-4o") }
func BenchmarkCount20kCL100k(b *testing.B) { benchCount(b, "gpt-4") }

// benchCount measures a first count of a new observation: the memo is
// bypassed, as it would be for the newest message of a history.
func benchCount(b *testing.B, modelName string) {
	text := observationText(20000)
	tok := NewTokenizer(modelName).(*bpeTokenizer)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.encode(text)
	}
	b.ReportMetric(float64(tok.Count(text)), "tokens")
}

// BenchmarkCountMessagesRepeat measures what the loop pays per step to count
// a 50-step history of 20k-character observations that it counted before.
func BenchmarkCountMessagesRepeat(b *testing.B) {
	tok := NewTokenizer("gpt-4o")
	var msgs []model.Message
	for i := 0; i < 50; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: fmt.Sprintf(`{"thought":"step %d","bash_command":"python3 scrape.py","done":false}`, i)})
		msgs = append(msgs, model.Message{Role: model.RoleUser, Content: fmt.Sprintf("step %d\n%s", i, observationText(20000))})
	}
	CountMessages(tok, msgs)
	for b.Loop() {
		CountMessages(tok, msgs)
	}
}

func TestMemoMatchesEncoding(t *testing.T) {
	tok := NewTokenizer("gpt-4o").(*bpeTokenizer)
	for _, n := range []int{100, 600, 5000, 20000} {
		text := observationText(n)
		want := tok.encode(text)
		for i := 0; i < 2; i++ { // second round comes from the memo
			if got := tok.Count(text); got != want {
				t.Errorf("%d chars, round %d: Count = %d, encode = %d", n, i, got, want)
			}
		}
	}
}

// A long run of one character is one BPE piece, and BPE is quadratic in a
// piece's length: a megabyte of "a" used to take minutes. The split keeps
// the count close to the per-piece truth and the time linear (the time is a
// benchmark figure, BenchmarkLongRun, not an assertion).
func TestTokenizerLongRunIsSplit(t *testing.T) {
	tok := NewTokenizer("gpt-4o")
	long := strings.Repeat("a", 1<<20)
	n := tok.Count(long)
	if n <= 0 || n > len(long) {
		t.Fatalf("Count of 1 MiB of 'a' = %d", n)
	}
	// Ordinary text has no run over maxRun bytes: its count is unchanged.
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200)
	b := tok.(*bpeTokenizer)
	if got, want := b.encode(text), len(b.enc.EncodeOrdinary(text)); got != want {
		t.Errorf("ordinary text: split count %d, whole count %d", got, want)
	}
	var parts []string
	for p := range splitLongRuns("xx "+strings.Repeat("é", 300)+" yy", 256) {
		parts = append(parts, p)
	}
	if strings.Join(parts, "") != "xx "+strings.Repeat("é", 300)+" yy" || len(parts) < 2 {
		t.Errorf("split parts lose text or do not split: %d parts", len(parts))
	}
	for p := range splitLongRuns(strings.Repeat(" ", 1000), 256) {
		if len(p) > 256 {
			t.Errorf("a whitespace run part of %d bytes", len(p))
		}
	}
}

func BenchmarkLongRun(b *testing.B) {
	tok := NewTokenizer("gpt-4o").(*bpeTokenizer)
	long := strings.Repeat("a", 1<<20)
	for b.Loop() {
		tok.encode(long)
	}
}
