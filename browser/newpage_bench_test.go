package browser

import "testing"

// BenchmarkContextAndPage measures what every isolated attempt pays first:
// a browser context, a page in it set up for events, and closing both.
func BenchmarkContextAndPage(b *testing.B) {
	for b.Loop() {
		bc, err := shared.NewContext(bg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bc.NewPage(bg); err != nil {
			b.Fatal(err)
		}
		if err := bc.Close(bg); err != nil {
			b.Fatal(err)
		}
	}
}
