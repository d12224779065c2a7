package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cardapio/cardapio/budget"
)

// Files are the files one run of the gate writes beside its report on
// stdout; an empty name writes nothing.
type Files struct {
	JUnit, Markdown, SARIF string
	// Baseline receives the JSON report, to be given later as --baseline.
	Baseline string
}

// WriteBudget writes every named file of r. Each is written whole or not
// at all (a temporary file renamed into place), so a CI step never reads
// half a report.
func (f Files) WriteBudget(r *budget.Report) error {
	outs := []struct {
		path   string
		render func(*bytes.Buffer) error
	}{
		{f.JUnit, func(b *bytes.Buffer) error { return BudgetJUnit(b, r) }},
		{f.Markdown, func(b *bytes.Buffer) error { BudgetMarkdown(b, r); return nil }},
		{f.SARIF, func(b *bytes.Buffer) error { return BudgetSARIF(b, r) }},
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
		if err := WriteFile(o.path, b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes data to path through a temporary file in the same
// directory, renamed into place.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}
