package aria

import (
	"context"
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
		if _, err := Snapshot(ctx, page, reg, Options{InteractiveOnly: true}); err != nil {
			b.Fatal(err)
		}
	}
}
