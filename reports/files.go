package reports

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/files"
)

// Files are the files one run of the gate writes beside its report on
// stdout; an empty name writes nothing.
type Files struct {
	JUnit, Markdown, SARIF string
	// CodeQuality receives GitLab's code quality report.
	CodeQuality string
	// Baseline receives the JSON report, to be given later as --baseline.
	Baseline string
}

// WriteBudget writes every named file of r through files.Write: a file
// whole or not at all, so a CI step never reads half a report; a device,
// a pipe or /dev/stdout as it is.
func (f Files) WriteBudget(r *budget.Report) error {
	outs := []struct {
		path   string
		render func(*bytes.Buffer) error
	}{
		{f.JUnit, func(b *bytes.Buffer) error { return BudgetJUnit(b, r) }},
		{f.Markdown, func(b *bytes.Buffer) error { BudgetMarkdown(b, r); return nil }},
		{f.SARIF, func(b *bytes.Buffer) error { return BudgetSARIF(b, r) }},
		{f.CodeQuality, func(b *bytes.Buffer) error { return BudgetCodeQuality(b, r) }},
		{f.Baseline, func(b *bytes.Buffer) error { return JSON(b, r) }},
	}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := o.render(&b); err != nil {
			return fmt.Errorf("write %s: %w", o.path, err)
		}
		if err := files.Write(o.path, b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// WriteFailure writes, for a run of the gate on model that ended with
// err before its verdict, every named file but the baseline (a run that
// measured nothing is no baseline), each saying what happened: the
// model's errors at their lines when it does not load, else err. A CI
// step that reads them finds the reason, not a stale or missing file.
func (f Files) WriteFailure(model string, err error) error {
	var errs catalog.ErrorList
	var other error
	if !errors.As(err, &errs) {
		other = err
	}
	outs := []struct {
		path   string
		render func(*bytes.Buffer) error
	}{
		{f.JUnit, func(b *bytes.Buffer) error { return failureJUnit(b, model, errs, other) }},
		{f.Markdown, func(b *bytes.Buffer) error { failureMarkdown(b, model, errs, other); return nil }},
		{f.SARIF, func(b *bytes.Buffer) error { return errorsSARIF(b, "budget", model, errs, other, RuleNoVerdict) }},
		{f.CodeQuality, func(b *bytes.Buffer) error {
			return errorsDoc("budget", model, errs, other, RuleNoVerdict).codeQuality(b)
		}},
	}
	var first error
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		var b bytes.Buffer
		werr := o.render(&b)
		if werr == nil {
			werr = files.Write(o.path, b.Bytes())
		}
		if werr != nil && first == nil {
			first = fmt.Errorf("write %s: %w", o.path, werr)
		}
	}
	return first
}
