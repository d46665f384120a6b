package compact

import (
	"hash/maphash"
	"iter"
	"strings"
	"sync"
	"unicode"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"wright/model"
)

// Tokenizer estimates how many tokens a text costs. It works offline: the BPE
// ranks are embedded in the binary and nothing is downloaded at run time.
type Tokenizer interface {
	Count(text string) int
}

// Encoding names NewTokenizer chooses between.
const (
	EncodingO200k  = "o200k_base"
	EncodingCL100k = "cl100k_base"
)

// Per-message costs of the chat format. OpenAI's own counting adds a few
// tokens per message for the role markers and three for the priming of the
// reply; other backends differ a little, which is fine for an estimate whose
// job is to trigger compaction before the context overflows.
const (
	tokensPerMessage = 3
	tokensReplyPrime = 3
	// ImageTokens is the fixed estimate for one attached image: what a
	// 1024x1024 screenshot costs at high detail on gpt-4o-class models.
	ImageTokens = 765
)

// EncodingFor names the BPE encoding used for a model name: o200k for the
// gpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-oss and o-series families, cl100k
// for everything else (close enough for most open models too). A provider
// prefix ("openai/gpt-4o", OpenRouter style) and an Ollama tag
// ("gpt-oss:20b") are ignored.
func EncodingFor(modelName string) string {
	name := strings.ToLower(strings.TrimSpace(modelName))
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, ":"); i >= 0 {
		name = name[:i]
	}
	for _, prefix := range []string{"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "gpt-oss"} {
		if strings.HasPrefix(name, prefix) {
			return EncodingO200k
		}
	}
	// o-series: o1, o3-mini, o4-mini, ... (but not names like "olmo").
	if len(name) >= 2 && name[0] == 'o' && name[1] >= '0' && name[1] <= '9' {
		return EncodingO200k
	}
	return EncodingCL100k
}

// bpeTokenizer counts with a real tiktoken encoding.
//
// Encoding runs at about 1 MB/s (the pre-tokenizing regexp dominates), so a
// 20k-character observation costs 15-20 ms. The loop counts the whole
// history before every call, and all of it but the newest messages was
// counted the step before; the memo makes that repeat nearly free (even a
// short text encodes far slower than it hashes). It is keyed by a hash of
// the text so it never keeps a pruned observation alive.
type bpeTokenizer struct {
	enc *tiktoken.Tiktoken

	mu   sync.Mutex
	seed maphash.Seed
	memo map[memoKey]int
}

type memoKey struct {
	hash uint64
	size int
}

// memoMaxEntries bounds the memo: a 100-step run adds about 200 entries.
// When it is full it simply starts over.
const memoMaxEntries = 8192

func (b *bpeTokenizer) Count(text string) int {
	if text == "" {
		return 0
	}
	key := memoKey{hash: maphash.String(b.seed, text), size: len(text)}
	b.mu.Lock()
	n, ok := b.memo[key]
	b.mu.Unlock()
	if ok {
		return n
	}
	n = b.encode(text)
	b.mu.Lock()
	if len(b.memo) >= memoMaxEntries {
		clear(b.memo)
	}
	b.memo[key] = n
	b.mu.Unlock()
	return n
}

// encode counts without the memo. Ordinary encoding: special-token text
// inside an observation (a page may well contain "<|endoftext|>") is counted
// as plain text, never rejected.
//
// BPE merges are quadratic in the length of one pre-tokenized piece, and a
// long run without a class change (a megabyte of one character, a base64
// blob without spaces) is one piece: 100k characters took seconds, a
// million minutes. So text is cut inside every run longer than maxRun
// bytes and the parts are encoded on their own, which keeps counting linear
// and changes the count of ordinary text not at all.
func (b *bpeTokenizer) encode(text string) int {
	n := 0
	// The parts of a long run of one character are all alike: count each
	// distinct cut part once.
	seen := map[string]int{}
	for part := range splitLongRuns(text, maxRun) {
		if len(part) != maxRun {
			n += len(b.enc.EncodeOrdinary(part))
			continue
		}
		c, ok := seen[part]
		if !ok {
			c = len(b.enc.EncodeOrdinary(part))
			seen[part] = c
		}
		n += c
	}
	return n
}

// maxRun bounds the bytes of one run of same-class characters that BPE sees
// at once. Real tokens are far shorter.
const maxRun = 128

// splitLongRuns yields text in consecutive parts, cut (on rune boundaries)
// every max bytes inside each run of whitespace or of non-whitespace that is
// longer than max bytes; text without such runs is yielded whole.
func splitLongRuns(text string, max int) iter.Seq[string] {
	return func(yield func(string) bool) {
		start, runStart := 0, 0
		runSpace := false
		for i, r := range text {
			space := unicode.IsSpace(r)
			if i == 0 || space != runSpace {
				runStart, runSpace = i, space
				continue
			}
			if i-runStart >= max {
				if !yield(text[start:i]) {
					return
				}
				start, runStart = i, i
			}
		}
		if start < len(text) {
			yield(text[start:])
		}
	}
}

// approxTokenizer is the fallback should an embedded encoding ever fail to
// load: about four bytes per token, which is what BPE vocabularies average
// on English text and code.
type approxTokenizer struct{}

func (approxTokenizer) Count(text string) int { return (len(text) + 3) / 4 }

var (
	loaderOnce sync.Once
	tokMu      sync.Mutex
	tokCache   = map[string]Tokenizer{}
)

// NewTokenizer returns the tokenizer for a model name (see EncodingFor).
// Building an encoding parses its embedded rank file once per process (a few
// hundred milliseconds for o200k); later calls share it. It never fails: if
// the embedded ranks cannot be loaded it falls back to a byte-length
// estimate.
func NewTokenizer(modelName string) Tokenizer {
	name := EncodingFor(modelName)
	tokMu.Lock()
	defer tokMu.Unlock()
	if t, ok := tokCache[name]; ok {
		return t
	}
	// The library downloads rank files by default; the offline loader
	// serves them from the files embedded in the binary instead.
	loaderOnce.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
	var t Tokenizer = approxTokenizer{}
	if enc, err := tiktoken.GetEncoding(name); err == nil {
		t = &bpeTokenizer{enc: enc, seed: maphash.MakeSeed(), memo: map[memoKey]int{}}
	}
	tokCache[name] = t
	return t
}

// CountMessages estimates the prompt tokens of a history the way OpenAI
// counts chat requests: each message's role and content plus a small fixed
// overhead, each image a fixed estimate, plus the priming of the reply.
// Exit messages never reach the model and Meta is never sent, so neither
// counts. A nil tokenizer means the default (cl100k) one.
func CountMessages(tok Tokenizer, msgs []model.Message) int {
	if tok == nil {
		tok = NewTokenizer("")
	}
	n := 0
	for _, m := range msgs {
		if m.Role == model.RoleExit {
			continue
		}
		n += tokensPerMessage + tok.Count(m.Role) + tok.Count(m.Content) + len(m.Images)*ImageTokens
	}
	if n == 0 {
		return 0
	}
	return n + tokensReplyPrime
}
