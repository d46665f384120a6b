package bench

import "wright/bench/results"

// The results.jsonl line types live in package results, shared with
// `wright review`; these names keep suite's own code short.
type (
	Record     = results.Record
	EvalResult = results.Eval
)
