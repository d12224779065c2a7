package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/reports/collect"
)

func init() { commands = append(commands, newReportCmd) }

func newReportCmd(e *env) *cobra.Command {
	o := collect.Options{Measure: true}
	var out string
	var noMeasure bool
	c := &cobra.Command{
		Use:   "report [model.yaml] --out FILE",
		Short: "One self-contained HTML report: access-pattern map, budgets, cost, comparison, load and plan",
		Long: `Report writes one HTML file (inline style and SVG charts, no script, nothing
fetched: it opens offline and as a CI artifact) about the model (./model.yaml
by default): the access-pattern map drawn, the units of every budget variant
against its budget, the month's cost by operation and by table and index,
and, when given, another model beside it (--compare), a load run's timelines
(--load, the results file of cardapio load --results) and a plan's hot
partitions over time (--plan, the JSON of cardapio plan --format json).

Check and cost are worked out now. The budget gate is run now on the
embedded engine, unless --budget FILE gives an earlier run's JSON report or
--no-measure shows the static estimate instead. A section without its
results says so, with the command that makes them.

Exit codes: 0 the report was written (a failing gate is shown, not an
error: cardapio budget is the gate); 2 a bad model, result file or flag;
1 cardapio failed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Path = "model.yaml"
			if len(args) == 1 {
				o.Path = args[0]
			}
			if out == "" {
				return badInput(errors.New("--out FILE is required (- writes to stdout)"))
			}
			if noMeasure && o.Budget != "" {
				return badInput(errors.New("--no-measure and --budget FILE: choose one"))
			}
			o.Measure, o.Now = !noMeasure, time.Now()
			return runReport(e, o, out)
		},
	}
	f := c.Flags()
	f.StringVar(&out, "out", "", "the HTML file to write (- for stdout)")
	f.StringVar(&o.Compare, "compare", "", "another model to set beside this one")
	f.StringVar(&o.Budget, "budget", "", "a JSON report of cardapio budget (--format json or --write-baseline) instead of running the gate now")
	f.BoolVar(&noMeasure, "no-measure", false, "do not run the budget gate: show the static estimate against the budgets")
	f.StringVar(&o.Load, "load", "", "the results file of a load run (cardapio load --results FILE)")
	f.StringVar(&o.Plan, "plan", "", "the JSON of a plan (cardapio plan --format json)")
	return c
}

func runReport(e *env, o collect.Options, out string) error {
	var err error
	if o.Model, err = loadModel(e, o.Path); err != nil {
		return err
	}
	if o.Compare != "" {
		if o.Other, err = loadModel(e, o.Compare); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := collect.Report(ctx, o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		return err
	}
	if out == "-" {
		_, err := e.stdout.Write(b.Bytes())
		return err
	}
	if err := files.Write(out, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "cardapio: report written to %s\n", out)
	return nil
}
