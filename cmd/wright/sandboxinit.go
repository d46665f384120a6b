package main

import (
	"fmt"
	"os"

	"wright/trust/sandbox"
)

// `wright sandbox-init` is the first process inside a bubblewrap sandbox
// (sandbox.Init): it hands the proxy's listener out, then becomes the model's
// shell or runner. It is dispatched before anything else of main runs
// (signal handlers, the keyring), since it executes another program in
// its own place and must leave nothing of wright behind in it.
func init() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		err := sandbox.Init(os.Args[2:])
		fmt.Fprintln(os.Stderr, "wright:", err)
		os.Exit(126)
	}
}
