package workshop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
)

// Loader resolves a model from its text as every command does (the
// command's readModel, on text the workshop has read or edited): name is
// used in the positions of its errors.
type Loader func(name string, data []byte) (*catalog.Model, error)

// Snapshot is everything the page shows of one version of the model: the
// text it was read from, the model or why it was refused, the one
// verdict, the month's bill, and the population's items as the tables
// and indexes hold them.
type Snapshot struct {
	Gen int // 1 for the first version read, +1 on every change
	// Seq counts what was pushed: a version is pushed twice, when it is
	// judged and again when its month and items are drawn (Full).
	Seq  int
	Full bool
	At   time.Time // when it was checked
	Took time.Duration
	Name string // the model file's name as given
	Text []byte

	Model *catalog.Model
	// Errors are the positioned errors of a refused model; Problem says
	// why a model could not be read or judged at all.
	Errors  catalog.ErrorList
	Problem string

	Gate *budget.Gate
	Bill *estimate.Bill
	// BillErr says why the month could not be priced.
	BillErr string
	World   *World
}

// OK reports whether the model loaded and was judged.
func (s *Snapshot) OK() bool { return s.Model != nil && s.Gate != nil }

// Check loads text with load and judges it (budget.Judge): what the page
// shows first after a save. It never fails: what went wrong is in the
// snapshot. Complete adds the rest.
func Check(load Loader, name string, text []byte) *Snapshot {
	start := time.Now()
	s := &Snapshot{At: start, Name: name, Text: text}
	defer func() { s.Took = time.Since(start) }()
	m, err := load(name, text)
	var errs catalog.ErrorList
	switch {
	case errors.As(err, &errs):
		s.Errors = errs
		return s
	case err != nil:
		s.Problem = err.Error()
		return s
	}
	s.Model = m
	g, err := budget.Judge(m, capacity.Default(), false)
	if err != nil {
		s.Problem = fmt.Sprintf("%s: %v", name, err)
		return s
	}
	s.Gate = g
	return s
}

// Complete returns the snapshot with its month (cost.Month) and its
// population's items (Build), which take longer than the verdict: the
// page shows the verdict first, then these.
func (s *Snapshot) Complete(ctx context.Context, o WorldOptions) *Snapshot {
	c := *s
	c.Full = true
	if !s.OK() {
		return &c
	}
	start := time.Now()
	if b, err := cost.Month(s.Model, cost.Options{}); err != nil {
		c.BillErr = err.Error()
	} else {
		c.Bill = b
	}
	c.World = Build(ctx, s.Model, o)
	c.Took += time.Since(start)
	return &c
}

// Context is the text around a line of the model: a few lines either
// side, numbered, for a finding's place.
type Context struct {
	Line  int
	Lines []NumberedLine
}

// NumberedLine is one line of the model's text.
type NumberedLine struct {
	N    int
	Text string
	Here bool
}

// contextLines is how many lines either side of a finding are shown.
const contextLines = 4

// Around returns the lines of text around line (1-based); an empty
// Context when line is outside the text.
func Around(text []byte, line int) Context {
	lines := strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n")
	c := Context{Line: line}
	if line < 1 || line > len(lines) {
		return c
	}
	for i := max(1, line-contextLines); i <= min(len(lines), line+contextLines); i++ {
		c.Lines = append(c.Lines, NumberedLine{N: i, Text: lines[i-1], Here: i == line})
	}
	return c
}
