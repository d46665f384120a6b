package model

import (
	"errors"
	"testing"
)

// FuzzParseAction checks that no reply makes the parser panic, that every
// rejection is a *FormatError, and that every accepted action survives a
// round trip: written back as the model would write it, it parses to the
// same Action.
func FuzzParseAction(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.content, tc.finish, tc.field == FieldPython)
	}
	f.Fuzz(func(t *testing.T, content, finish string, python bool) {
		field := FieldBash
		if python {
			field = FieldPython
		}
		a, err := ParseAction(content, finish, field)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Reason == "" {
				t.Fatalf("error %v (%T) is not a FormatError with a reason", err, err)
			}
			return
		}
		if a.Field != field || a.Thought == "" || (a.Done && a.Demoted) {
			t.Fatalf("accepted an invalid action: %+v", a)
		}
		again, err := ParseAction(a.JSON(), "stop", field)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", a.JSON(), err)
		}
		if again != a {
			t.Fatalf("round trip changed the action:\n first %+v\nsecond %+v", a, again)
		}
	})
}
