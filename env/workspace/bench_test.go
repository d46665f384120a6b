package workspace

import (
	"context"
	"os/exec"
	"slices"
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

// BenchmarkStepVsSpawn alternates, in one loop, a whole Execute of `true`
// (its command file, log and observation) with a bare `bash -c true`
// spawn, so both see the same machine load, and reports both and their
// ratio. Between steps it leaves the 5 ms a model's turn takes at the very
// least, in which the next step's files are made ready.
//
//	go test ./env/workspace -run '^$' -bench StepVsSpawn -benchtime 500x
func BenchmarkStepVsSpawn(b *testing.B) {
	s, err := New(context.Background(), Options{Dir: b.TempDir(), Timeout: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var step, spawn []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		time.Sleep(5 * time.Millisecond)
		b.StartTimer()
		t0 := time.Now()
		obs, err := s.Execute(ctx, i+1, "true")
		if err != nil || obs.Detail("returncode") != 0 {
			b.Fatalf("Execute: %v %v", obs, err)
		}
		t1 := time.Now()
		if err := exec.Command(bash, "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
		step, spawn = append(step, t1.Sub(t0)), append(spawn, time.Since(t1))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	st, sp := median(step), median(spawn)
	b.ReportMetric(ms(st), "step-ms")
	b.ReportMetric(ms(sp), "spawn-ms")
	b.ReportMetric(float64(st)/float64(sp), "step/spawn")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
