// Package input holds the one mark of bad input. A library that refuses
// what it was given (a flag out of range, a model a run cannot use, a
// file of another model) returns an *Error; every command maps it to exit
// code 2, whichever library it came from, so that a failure of cardapio
// itself (exit 1) is never mistaken for the user's mistake.
package input

import (
	"errors"
	"fmt"
)

// Error is an error caused by what was given, not by cardapio. Its text is
// the wrapped error's: the mark adds no words.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf formats an error (with %w as fmt.Errorf) and marks it as bad input.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Wrap marks err as bad input; nil stays nil.
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err}
}

// Is reports whether err is, or wraps, bad input.
func Is(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
