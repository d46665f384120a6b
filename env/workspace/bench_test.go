package workspace

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkPersistentShell is one round trip of `true` through the
// persistent shell: the whole Execute, with its step file, log, end marker
// and observation (final script preview, bounded recent-files walk).
func BenchmarkPersistentShell(b *testing.B) {
	s, err := New(context.Background(), Options{Dir: b.TempDir(), Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		obs, err := s.Execute(ctx, i+1, "true")
		if err != nil || obs.Detail("returncode") != 0 {
			b.Fatalf("Execute: %v %v", obs, err)
		}
	}
}

// BenchmarkPersistentShellSameStep is the same round trip with the step
// number fixed, so the step file and log are overwritten rather than
// created: on a disk where creating a file is slow, this separates the
// shell's own cost from the file system's.
func BenchmarkPersistentShellSameStep(b *testing.B) {
	s, err := New(context.Background(), Options{Dir: b.TempDir(), Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		obs, err := s.Execute(ctx, 1, "true")
		if err != nil || obs.Detail("returncode") != 0 {
			b.Fatalf("Execute: %v %v", obs, err)
		}
	}
}

// BenchmarkBashPerCommand is the alternative without state: a fresh
// `bash -c true` for every command.
func BenchmarkBashPerCommand(b *testing.B) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if err := exec.Command(bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
