package agent

import "wright/model"

// EventKind names a moment of a run that an Observer hears about.
type EventKind string

// The events of one run, in the order they happen.
const (
	RunStarted  EventKind = "run_started"
	StepStarted EventKind = "step_started" // the model's action is known
	StepEnded   EventKind = "step_ended"   // its observation is back
	DoneRefused EventKind = "done_refused" // the gate refused a done
	// FormatError is a reply the loop could not use (prose, broken JSON,
	// code that does not parse): Message is why, Reply what the model said.
	FormatError EventKind = "format_error"
	Compacted   EventKind = "compacted" // the history was summarised
	RunEnded    EventKind = "run_ended"
)

// Event is one progress report. Texts are first lines, cut to about 100
// characters: enough for a terminal line or a progress table.
type Event struct {
	Kind   EventKind
	TaskID string
	RunDir string
	Step   int
	// Thought, Command and FinalResponse are set on StepStarted; Lang is
	// the command's language ("bash", "python"), so a display can show
	// code as code.
	Thought, Command, FinalResponse string
	Lang                            string
	Done                            bool
	// Reply is the first lines of an unusable reply, on FormatError.
	Reply string
	// Output is the first lines of what the action printed, on StepEnded.
	Output string
	// Status is the observation's outcome on StepEnded ("rc 0", "success
	// true (timed out)") and the exit status on RunEnded.
	Status string
	// Message is the refusal on DoneRefused, the problem on FormatError
	// and why the run ended on RunEnded.
	Message string
	// TokensBefore and TokensAfter are the history's size on Compacted.
	TokensBefore, TokensAfter int
	// Usage is the run's total so far.
	Usage model.Usage
	// StepUsage is what the step's model call cost (its prompt, cached and
	// not, and its completion), on StepStarted and StepEnded.
	StepUsage model.Usage
	// StepEstimate is wright's estimate of the step's prompt when the
	// endpoint reported no usage for its call (0 when it did), and
	// Estimated the run's such estimates so far (also on RunEnded): what
	// a display shows, marked as an estimate, where Usage has nothing.
	StepEstimate, Estimated int
}

// Observer hears a run's progress. Observe is called from the run's own
// goroutine and should return quickly; an Observer shared by several runs
// at once must be safe for concurrent use (Event.RunDir tells runs apart).
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f.
func (f ObserverFunc) Observe(e Event) { f(e) }
