package aria

import (
	"context"

	"github.com/go-rod/rod"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkSnapshotMedium snapshots testdata/medium.html (some 800
// accessibility nodes: navigation, a 25-row table, cards, a form).
func BenchmarkSnapshotMedium(b *testing.B) {
	page, _ := openPage(b, false, "medium.html")
	ctx := context.Background()
	reg := NewRegistry()
	out, err := Snapshot(ctx, page, reg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(out)), "chars")
	b.ReportMetric(float64(strings.Count(out, "\n")+1), "lines")
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		touch(b, page, i)
		b.StartTimer()
		if _, err := Snapshot(ctx, page, reg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((processCPU()-cpu).Microseconds())/1000/float64(b.N), "go-cpu-ms/op")
}

func BenchmarkSnapshotMediumInteractive(b *testing.B) {
	page, _ := openPage(b, false, "medium.html")
	ctx := context.Background()
	reg := NewRegistry()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		touch(b, page, i)
		b.StartTimer()
		if _, err := Snapshot(ctx, page, reg, Options{InteractiveOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotLinks1200 snapshots a page of 1,200 links whole and with
// a 12,000-character budget: the cut one should cost what its first 12k
// characters cost, not what the whole page costs.
func BenchmarkSnapshotLinks1200(b *testing.B) {
	page, _ := openPage(b, false, "links1200.html")
	ctx := context.Background()
	for _, budget := range []int{0, 12000} {
		b.Run("chars="+strconv.Itoa(budget), func(b *testing.B) {
			reg := NewRegistry()
			out, err := Snapshot(ctx, page, reg, Options{MaxChars: budget})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(out)), "chars")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				touch(b, page, i)
				b.StartTimer()
				if _, err := Snapshot(ctx, page, reg, Options{MaxChars: budget}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnapshotUnchanged snapshots a page that did not change since
// the last snapshot: the page answers from its mutation counter.
func BenchmarkSnapshotUnchanged(b *testing.B) {
	page, _ := openPage(b, false, "medium.html")
	ctx := context.Background()
	reg := NewRegistry()
	if _, err := Snapshot(ctx, page, reg, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Snapshot(ctx, page, reg, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotProtocol is the accessibility-tree builder (the
// fallback) on the same page, for comparison.
func BenchmarkSnapshotProtocol(b *testing.B) {
	page, _ := openPage(b, false, "medium.html")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := buildFromAXTree(ctx, page, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// touch changes the page a little, so that a snapshot is built anew.
func touch(b *testing.B, page *rod.Page, i int) {
	b.Helper()
	if _, err := page.Eval(`i => { document.body.dataset.bench = String(i); }`, i); err != nil {
		b.Fatal(err)
	}
}
