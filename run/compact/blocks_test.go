package compact

import (
	"strings"
	"testing"

	"wright/model"
)

// joined is the history as a model is sent it, for prefix checks.
func joined(msgs []model.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteString("\x00")
		b.WriteString(m.Content)
		b.WriteString("\x00")
	}
	return b.String()
}

// A run that prunes in blocks of 4 with 1 kept: each step's prompt extends
// the one before, except on the steps where a block is pruned; the number
// of unpruned observations stays bounded.
func TestPruneBlocksKeepPromptsAsPrefixes(t *testing.T) {
	const keep, block, steps = 1, 4, 21
	msgs := []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: "task"}}
	prev := joined(msgs)
	var rewrites []int
	for i := 1; i <= steps; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, liveObs(i)))
		n, err := PruneBlocks(msgs, keep, block, renderObs)
		if err != nil {
			t.Fatal(err)
		}
		cur := joined(msgs)
		if !strings.HasPrefix(cur, prev) {
			rewrites = append(rewrites, i)
			if n != block {
				t.Errorf("step %d: the prompt was rewritten while pruning %d observations, want a block of %d", i, n, block)
			}
		} else if n != 0 {
			t.Errorf("step %d: pruned %d and the prompt still extends the last", i, n)
		}
		unpruned := 0
		for _, j := range observationIndexes(msgs) {
			if !msgs[j].Meta.Pruned {
				unpruned++
			}
		}
		if unpruned > keep+block-1 {
			t.Errorf("step %d: %d unpruned observations, bound %d", i, unpruned, keep+block-1)
		}
		prev = cur
	}
	// Observations fall out from step 2 on; a block is due every 4.
	want := []int{5, 9, 13, 17, 21}
	if len(rewrites) != len(want) {
		t.Fatalf("rewrites at steps %v, want %v", rewrites, want)
	}
	for k := range want {
		if rewrites[k] != want[k] {
			t.Fatalf("rewrites at steps %v, want %v", rewrites, want)
		}
	}
	// Blocks of one are Prune: the prompt changes every step.
	msgs = msgs[:2]
	for i := 1; i <= 3; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, liveObs(i)))
	}
	if n, _ := PruneBlocks(msgs, 1, 1, renderObs); n != 2 {
		t.Errorf("blocks of one pruned %d of 2", n)
	}
}

// A change observation kept needs the whole snapshot it rests on and the
// changes between: those stay, older ones go.
func TestPruneKeepsTheChainOfChanges(t *testing.T) {
	msgs := []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: "task"}}
	add := func(step int, incremental bool) {
		obs := liveObs(step)
		obs.Incremental = incremental
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, obs))
	}
	add(1, false) // a whole snapshot of page A
	add(2, true)  // changes to it
	add(3, false) // page B, whole
	add(4, true)  // changes to B
	add(5, true)  // more changes to B
	n, err := PruneBlocks(msgs, 1, 1, renderObs)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d (%v), want the two observations of page A", n, err)
	}
	idx := observationIndexes(msgs)
	for k, wantPruned := range []bool{true, true, false, false, false} {
		if msgs[idx[k]].Meta.Pruned != wantPruned {
			t.Errorf("observation of step %d: pruned %v, want %v", k+1, msgs[idx[k]].Meta.Pruned, wantPruned)
		}
	}
	// A whole snapshot ends the chain: what came before it may go.
	add(6, false)
	if n, _ := PruneBlocks(msgs, 1, 1, renderObs); n != 3 {
		t.Errorf("after a new whole snapshot: pruned %d, want the 3 of page B's chain", n)
	}
}

// An old whole snapshot among change observations too short to prune is
// still pruned block observations after it fell out: blocks are counted in
// steps, not in how many observations are due.
func TestPruneBlocksCountSteps(t *testing.T) {
	msgs := []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: "task"}}
	add := func(step int, incremental bool) int {
		obs := liveObs(step)
		if incremental {
			obs = obs.With("aria_snapshot", "[no change]")
		}
		obs.Incremental = incremental
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, obs))
		n, err := PruneBlocks(msgs, 1, 3, renderObs)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	add(1, false) // page A, whole
	add(2, true)
	if n := add(3, false); n != 0 { // page B: A's snapshot falls out, one step
		t.Fatalf("step 3 pruned %d", n)
	}
	if n := add(4, true); n != 0 { // the chain of B keeps 3 and 4; A out for 2
		t.Fatalf("step 4 pruned %d", n)
	}
	if n := add(5, true); n != 0 {
		t.Fatalf("step 5 pruned %d", n)
	}
	// Page C: B's chain is out too, and A's snapshot lies 5 observations
	// back (the chain of B held the window at step 3 until now).
	if n := add(6, false); n != 2 {
		t.Fatalf("step 6 pruned %d, want the whole snapshots of A and B", n)
	}
	idx := observationIndexes(msgs)
	if !msgs[idx[0]].Meta.Pruned || !msgs[idx[2]].Meta.Pruned || msgs[idx[1]].Meta.Pruned {
		t.Error("want A's and B's whole snapshots pruned, the short change left")
	}
}
