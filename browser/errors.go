package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// ErrorType names an error for clients; it is the protocol's error.data.type.
type ErrorType string

// The error types of driver/PROTOCOL.md.
const (
	ErrTimeout         ErrorType = "TimeoutError"
	ErrStrictMode      ErrorType = "StrictModeViolation"
	ErrStaleRef        ErrorType = "StaleRef"
	ErrNavigation      ErrorType = "NavigationError"
	ErrTargetClosed    ErrorType = "TargetClosed"
	ErrInvalidSelector ErrorType = "InvalidSelector"
	ErrEvaluation      ErrorType = "EvaluationError"
	ErrBlockedURL      ErrorType = "BlockedURL"
	ErrInvalidParams   ErrorType = "InvalidParams"
	ErrBrowser         ErrorType = "BrowserError"
)

// Error is what every exported call of this package returns on failure. Its
// message is written for a model to act on: what was waited for, what was
// found instead, and what to do next.
type Error struct {
	Type    ErrorType
	Message string
	Err     error // the underlying cause, if any
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

func newErr(t ErrorType, format string, args ...any) *Error {
	return &Error{Type: t, Message: fmt.Sprintf(format, args...)}
}

func wrapErr(t ErrorType, cause error, format string, args ...any) *Error {
	return &Error{Type: t, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Errorf returns an *Error of type t. Code outside the package (the
// driver) uses it to answer in the same terms.
func Errorf(t ErrorType, format string, args ...any) *Error { return newErr(t, format, args...) }

// WrapError returns an *Error of type t caused by cause.
func WrapError(t ErrorType, cause error, format string, args ...any) *Error {
	return wrapErr(t, cause, format, args...)
}

// AsError turns any error into an *Error, keeping an existing one: what a
// protocol client gets for err.
func AsError(err error) *Error { return asError(err) }

// TypeOf returns the ErrorType of err: the type of the *Error in its chain,
// InvalidParams for nothing, or BrowserError for anything else.
func TypeOf(err error) ErrorType {
	var e *Error
	if errors.As(err, &e) {
		return e.Type
	}
	return ErrBrowser
}

// IsType reports whether err is an *Error of type t.
func IsType(err error, t ErrorType) bool {
	var e *Error
	return errors.As(err, &e) && e.Type == t
}

// asError turns any error into an *Error, keeping an existing one.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, errRetry) {
		return wrapErr(ErrBrowser, err, "the page navigated while the call ran; call it again once the page has loaded")
	}
	if errors.Is(err, context.Canceled) {
		return wrapErr(ErrTargetClosed, err, "the call was cancelled (the driver is shutting down or the client went away)")
	}
	return wrapErr(ErrBrowser, err, "%s", cdpMessage(err))
}

// cdpMessage shortens rod's rendering of a CDP error ("{-32000 msg data}").
func cdpMessage(err error) string {
	s := err.Error()
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}"))
		if i := strings.IndexByte(s, ' '); i > 0 {
			s = s[i+1:]
		}
	}
	return s
}

// isContextGone reports CDP errors that mean the JavaScript context we were
// using went away, typically because the page navigated. Callers retry.
func isContextGone(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	for _, p := range []string{
		"Cannot find context with specified id",
		"Execution context was destroyed",
		"Could not find object with given id",
		"Inspected target navigated or closed",
		"Argument should belong to the same JavaScript world",
		"No node with given id found",
		"Node with given id does not belong to the document",
		"Cannot find default execution context",
	} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// isConnErr reports a broken connection to the browser. A call can see it a
// moment before the event pump notices the browser is gone.
func isConnErr(err error) bool {
	return err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE))
}
