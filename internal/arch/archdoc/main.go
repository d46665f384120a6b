// Command archdoc rewrites the generated parts of docs/architecture.md (the
// layers and the package map) from the code: `make docs` runs it from the
// module's root as `go run ./internal/arch/archdoc docs/architecture.md`.
package main

import (
	"context"
	"fmt"
	"os"

	"wright/internal/arch"
	"wright/internal/atomicfile"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: archdoc docs/architecture.md (from the module's root)")
		os.Exit(2)
	}
	if err := rewrite(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "archdoc:", err)
		os.Exit(1)
	}
}

func rewrite(path string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	pkgs, err := arch.Load(context.Background(), ".")
	if err != nil {
		return err
	}
	for _, e := range arch.Check(pkgs) {
		fmt.Fprintln(os.Stderr, "archdoc: warning:", e)
	}
	out, err := arch.Generate(string(doc), pkgs)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, []byte(out), 0o644)
}
