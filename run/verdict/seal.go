// Package verdict makes the judge's verdict something only the harness can
// write. Inside a run, `wright reflect` asks the harness (over the run's
// socket) to judge; the harness runs the judge itself, hashes every file of
// the judged run folder, and writes self_reflect_result.json with a seal:
// an HMAC-SHA256 over the verdict, the run folder's name and those hashes,
// under a key made for the run that never leaves wright's memory. The gate
// checks the seal, so a hand-written, edited or re-used verdict, or a run
// folder changed after judging, is refused.
package verdict

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sealKey is the verdict's JSON key that holds the seal.
const sealKey = "seal"

// verdictName is the verdict file; it is not part of what it seals.
const verdictName = "self_reflect_result.json"

// Seal is what the harness adds to a verdict.
type Seal struct {
	// RunDir is the judged run folder, relative to the workspace.
	RunDir string `json:"run_dir"`
	// Files maps every file of the run folder (relative to it, the verdict
	// itself excepted) to its SHA-256, hex.
	Files map[string]string `json:"files"`
	// MAC is HMAC-SHA256, hex, over the verdict without the seal, RunDir
	// and Files.
	MAC string `json:"mac"`
}

// Sealer holds one run's key.
type Sealer struct{ key []byte }

// NewSealer makes a sealer with a fresh random key.
func NewSealer() (*Sealer, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("verdict key: %w", err)
	}
	return &Sealer{key: key}, nil
}

// Sign returns the verdict JSON with a seal over it and over the files of
// the run folder runDir (absolute) as they are now.
func (s *Sealer) Sign(data []byte, workspace, runDir string) ([]byte, error) {
	body, err := withoutSeal(data)
	if err != nil {
		return nil, err
	}
	files, err := hashFiles(runDir)
	if err != nil {
		return nil, err
	}
	seal := Seal{RunDir: relTo(workspace, runDir), Files: files}
	seal.MAC = s.mac(body, seal)
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("seal verdict: %w", err)
	}
	raw, err := json.Marshal(seal)
	if err != nil {
		return nil, err
	}
	obj[sealKey] = raw
	out, err := json.MarshalIndent(obj, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Verify checks that data is a verdict this sealer signed for the run
// folder runDir (absolute) and that the folder's files are exactly those it
// judged. The error says, for the model, what is wrong.
func (s *Sealer) Verify(data []byte, workspace, runDir string) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("it is not valid JSON (%v)", err)
	}
	raw, ok := obj[sealKey]
	if !ok {
		return errors.New("it was not written by this run's harness (it has no seal): only a verdict that `wright reflect` obtained from the harness inside this run counts, and a hand-written one never does")
	}
	var seal Seal
	if err := json.Unmarshal(raw, &seal); err != nil {
		return fmt.Errorf("its seal is malformed (%v): it was edited", err)
	}
	body, err := withoutSeal(data)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(s.mac(body, seal)), []byte(seal.MAC)) {
		return errors.New("its seal does not match its content: it was edited after the judge wrote it, or it comes from another run of wright")
	}
	if want := relTo(workspace, runDir); seal.RunDir != want {
		return fmt.Errorf("it is the verdict on %s, not on %s: a verdict cannot be copied to another run", seal.RunDir, want)
	}
	files, err := hashFiles(runDir)
	if err != nil {
		return err
	}
	if diff := compare(seal.Files, files); diff != "" {
		return fmt.Errorf("the run folder changed after it was judged (%s), so the judge never saw it as it is now", diff)
	}
	return nil
}

func (s *Sealer) mac(body []byte, seal Seal) string {
	m := hmac.New(sha256.New, s.key)
	io.WriteString(m, "wright verdict v1\x00")
	m.Write(body)
	io.WriteString(m, "\x00"+seal.RunDir+"\x00")
	names := make([]string, 0, len(seal.Files))
	for n := range seal.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		io.WriteString(m, n+"\x00"+seal.Files[n]+"\x00")
	}
	return hex.EncodeToString(m.Sum(nil))
}

// withoutSeal is the verdict's canonical bytes: its keys sorted, compact,
// the seal left out, so that the MAC does not depend on indentation.
func withoutSeal(data []byte) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, fmt.Errorf("verdict is not a JSON object: %w", err)
	}
	delete(obj, sealKey)
	return json.Marshal(obj) // sorted keys; RawMessage values compacted
}

// hashFiles hashes every regular file under dir except the verdict and
// hidden temporary files; a link or other special file is reported as
// such, so it cannot stand in for content.
func hashFiles(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == verdictName || strings.HasPrefix(d.Name(), ".verdict-") {
			return nil
		}
		if !d.Type().IsRegular() {
			out[rel] = "special:" + d.Type().String()
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		out[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("hash the run folder: %w", err)
	}
	return out, nil
}

// compare names the first differences between the judged files and now.
func compare(judged, now map[string]string) string {
	var diffs []string
	for n, h := range judged {
		switch cur, ok := now[n]; {
		case !ok:
			diffs = append(diffs, n+" was removed")
		case cur != h:
			diffs = append(diffs, n+" was modified")
		}
	}
	for n := range now {
		if _, ok := judged[n]; !ok {
			diffs = append(diffs, n+" was added")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 4 {
		diffs = append(diffs[:4], fmt.Sprintf("and %d more", len(diffs)-4))
	}
	return strings.Join(diffs, ", ")
}

func relTo(ws, p string) string {
	if r, err := filepath.Rel(ws, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(p)
}
