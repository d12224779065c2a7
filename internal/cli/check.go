package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newCheckCmd) }

type checkOptions struct {
	path   string
	format string
	strict bool
}

func newCheckCmd(e *env) *cobra.Command {
	o := &checkOptions{}
	c := &cobra.Command{
		Use:   "check [model.yaml]",
		Short: "Validate a model: schema, semantics, design review and static capacity against budgets",
		Long: `Check loads the model (./model.yaml by default), validates it against the
schema and the semantic rules, and prints which structure answers every
access pattern and which questions every table and index serves, then the
review warnings.

It then estimates every business operation statically, in each budget
variant, from the sample items and the billing rules, and compares the
units with the declared budget (write and read units separately).

It weighs every table and index at the peaks the model declares (the peak
gate); an index key attribute of which nothing is declared is assumed to
spread, and the report says so under the peak table.

With --format json, stdout holds one JSON document whatever the outcome:
a bad model gives "ok": false and its errors (file, line, column, path,
message, hint); a file that cannot be read gives one error without a line;
a valid model that fails gives its "findings" (kind, name, at, text), as
budget reports them. With --format sarif, stdout holds one SARIF 2.1.0
log: the errors of a bad model, or the review warnings (accepted ones
suppressed, with their reason; those not accepted are errors under
--strict), every budget the static estimate exceeds with its causes and
every hot partition, each at its line of the model, for GitHub code
scanning. Text output goes to stdout and errors to stderr. budget fails
on all of it too, with the same explanations.

Exit codes: 0 ok; 2 the model is invalid (errors are listed with
file:line:column) or cannot be read; 3 an operation exceeds its budget (the
step and the cause are named), the hottest partition of a table or index
takes more than 1,000 WCU/s or 3,000 RCU/s at a declared peak (the index,
the key, the operation and the numbers are named, with the shard count
that would fit), or --strict and a warning that the model does not
accept.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			o.path = "model.yaml"
			if len(args) == 1 {
				o.path = args[0]
			}
			if o.format != "text" && o.format != "json" && o.format != "sarif" {
				return badInput(fmt.Errorf("--format must be text, json or sarif, not %q", o.format))
			}
			return runCheck(e, o)
		},
	}
	c.Flags().StringVar(&o.format, "format", "text", "output format: text, json, or sarif (findings and static excesses positioned in the model, for code scanning)")
	c.Flags().BoolVar(&o.strict, "strict", false, "fail (exit 3) on review warnings the model does not accept")
	return c
}

func runCheck(e *env, o *checkOptions) error {
	m, err := readModel(o.path)
	var errs catalog.ErrorList
	if errors.As(err, &errs) {
		switch o.format {
		case "json":
			_ = reports.CheckErrorsJSON(e.stdout, o.path, errs)
		case "sarif":
			_ = reports.CheckErrorsSARIF(e.stdout, o.path, errs, nil)
			fmt.Fprintln(e.stderr, errs.Error())
		default:
			fmt.Fprintln(e.stderr, errs.Error())
		}
		return reported(ExitBadInput, errs)
	}
	if err != nil {
		return checkFailed(e, o, err)
	}
	g, err := budget.Judge(m, capacity.Default(), o.strict)
	if err != nil {
		return checkFailed(e, o, fmt.Errorf("%s: %w", o.path, err))
	}
	r := &reports.Check{Path: o.path, Model: m, Gate: g}
	switch o.format {
	case "json":
		_ = r.JSON(e.stdout)
	case "sarif":
		_ = reports.CheckSARIF(e.stdout, r)
	default:
		r.Text(e.stdout)
	}
	// Findings quote the model's text: escaped, so no line of it can
	// become a CI workflow command or a terminal sequence.
	stderr := reports.TextOut(e.stderr)
	for _, f := range g.Findings {
		fmt.Fprintln(stderr, f.Line())
	}
	if !g.OK() {
		return failed(errors.New(g.Summary()))
	}
	return nil
}

// checkFailed reports an error that has no position in the model (the
// file cannot be read): on stderr, and with --format json also as the
// report's only error, so that stdout is always one JSON document.
func checkFailed(e *env, o *checkOptions, err error) error {
	switch o.format {
	case "json":
		_ = reports.CheckUnreadableJSON(e.stdout, o.path, err)
	case "sarif":
		_ = reports.CheckErrorsSARIF(e.stdout, o.path, nil, err)
	}
	return badInput(err)
}
