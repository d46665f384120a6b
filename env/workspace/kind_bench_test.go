package workspace

import (
	"context"
	"testing"
)

// BenchmarkSyntaxCheck is one workspace step's check of a ten-line command.
func BenchmarkSyntaxCheck(b *testing.B) {
	code := `set -e
cd /tmp
for f in *.txt; do
  if [[ -s "$f" ]]; then
    echo "$f: $(wc -l < "$f") lines"
  fi
done
arr=(a b c)
echo "${arr[@]}" $(( 1 + 2 ))
cat <<EOF2 > out.txt
hello
EOF2
`
	ctx := context.Background()
	for b.Loop() {
		if err := checkBash(ctx, code); err != nil {
			b.Fatal(err)
		}
	}
}
