// Package cli holds cardapio's cobra commands. Commands are thin: they read
// flags, call one library function and render its result. Exit codes are
// decided here, in one place.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
)

// Exit codes, documented in the README.
const (
	ExitOK       = 0 // success
	ExitInternal = 1 // cardapio itself failed
	ExitBadInput = 2 // bad input file, item, model or flags
	ExitFailed   = 3 // a check or budget failed
)

// exitError carries an exit code up to Main. Its message has already been
// printed when silent is true (for example a list of positioned errors).
type exitError struct {
	code   int
	err    error
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks err as the user's input being wrong (exit 2). A library's
// *input.Error needs no mark: Main maps it to exit 2 itself.
func badInput(err error) error { return &exitError{code: ExitBadInput, err: err} }

// failed marks a check that ran and did not pass (exit 3); its findings
// were already printed.
func failed(err error) error { return &exitError{code: ExitFailed, err: err, silent: true} }

// reported marks err as already printed, with the given exit code.
func reported(code int, err error) error { return &exitError{code: code, err: err, silent: true} }

// modelError turns what the catalog refused into the exit of bad input:
// a list of positioned errors is printed whole on stderr (one a line),
// any other error is reported as it is.
func modelError(e *env, err error) error {
	var errs catalog.ErrorList
	if errors.As(err, &errs) {
		fmt.Fprintln(e.stderr, errs.Error())
		return reported(ExitBadInput, errs)
	}
	return badInput(err)
}

// readModel reads and resolves the model at path as every command does,
// with the item size limit of the billing rules (a sample over 400 KB is
// an error). Its error is the catalog's: a catalog.ErrorList of
// positioned errors, or why the file could not be read. Libraries never
// load a model: they are given the one a command read here.
func readModel(path string) (*catalog.Model, error) {
	return catalog.LoadWith(path, modelOptions())
}

// modelOptions are the options every model is resolved with.
func modelOptions() catalog.Options {
	return catalog.Options{ItemSize: capacity.Default().ItemSize}
}

// loadModel is readModel with modelError's exit, for the commands that
// print a refused model's errors as they are.
func loadModel(e *env, path string) (*catalog.Model, error) {
	m, err := readModel(path)
	if err != nil {
		return nil, modelError(e, err)
	}
	return m, nil
}

// env is what every command writes to and reads from; tests fill it with
// buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// commands lists the constructors of the subcommands; each command file
// adds its own in an init function, so that commands can be added without
// touching this file.
var commands []func(*env) *cobra.Command

// newRoot builds the command tree.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "cardapio",
		Short:         "Design DynamoDB data models from their access patterns and prove what they cost",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return badInput(err) })
	for _, c := range commands {
		root.AddCommand(c(e))
	}
	return root
}

// Main runs cardapio with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRoot(e)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if !xe.silent {
			fmt.Fprintf(stderr, "cardapio: %v\n", xe.err)
		}
		return xe.code
	}
	// Bad input marked by a library (input.Error) is the user's, whichever
	// library refused it.
	if input.Is(err) {
		fmt.Fprintf(stderr, "cardapio: %v\n", err)
		return ExitBadInput
	}
	// A model a library finds wrong for the run (indexes a target cannot
	// key) is the user's input, positioned in the model.
	var ce catalog.ErrorList
	if errors.As(err, &ce) {
		fmt.Fprintln(stderr, ce.Error())
		return ExitBadInput
	}
	// Cobra's own argument errors (unknown command, wrong arg count) are
	// the user's input, not an internal failure.
	fmt.Fprintf(stderr, "cardapio: %v\n", err)
	if isUsageError(err) {
		return ExitBadInput
	}
	return ExitInternal
}
