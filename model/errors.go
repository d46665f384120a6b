package model

import (
	"fmt"
	"net/http"
)

// APIError is a final answer from the endpoint: a status that retrying will
// not change (401, 400, 404, ...), with the endpoint's own message.
type APIError struct {
	Status  int
	Message string
	// Setting names the config key to change when the answer says the
	// endpoint refuses a parameter wright sent ("model.temperature", ...).
	Setting string
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	hint := ""
	if e.Setting != "" {
		return fmt.Sprintf("model endpoint answered %d: %s (the endpoint refuses a parameter: change %s)", e.Status, msg, e.Setting)
	}
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check the API key and model.api_key_env)"
	case http.StatusNotFound:
		hint = " (check model.base_url, which usually ends in /v1, and model.name)"
	}
	return fmt.Sprintf("model endpoint answered %d: %s%s", e.Status, msg, hint)
}

// RetryError is returned when every attempt failed with a transient error;
// Err is the last one (an *APIError for a status such as 429 or 503).
type RetryError struct {
	Attempts int
	Err      error
}

func (e *RetryError) Error() string {
	return fmt.Sprintf("model: gave up after %d attempts: %v", e.Attempts, e.Err)
}

func (e *RetryError) Unwrap() error { return e.Err }

// FormatError says why a reply is not a usable action. Reason is written for
// the model: what was wrong and what to send instead, in a sentence or two.
type FormatError struct {
	Reason string
}

func (e *FormatError) Error() string { return e.Reason }
