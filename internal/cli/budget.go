package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newBudgetCmd) }

type budgetOptions struct {
	run            budget.Options
	format, keys   string
	files          reports.Files
	baseline       string
	failOnIncrease bool
}

func newBudgetCmd(e *env) *cobra.Command {
	o := &budgetOptions{}
	c := &cobra.Command{
		Use:   "budget [model.yaml]",
		Short: "Measure every business operation on an engine and fail when one exceeds its budget",
		Long: `Budget runs every business operation of the model (./model.yaml by default),
in each of its budget variants, on an engine, and compares the write and
read units the engine reports (ReturnConsumedCapacity INDEXES) with the
declared budgets. The engine is the embedded one, in process, unless
--endpoint-url or --aws says otherwise. The model's tables are created
under a prefix of the run's own (--table-prefix), on demand, emptied
before every variant, and deleted at the end, after a failure or Ctrl-C
too (--keep keeps them); no other table is touched.

Beside each measured figure stands the static estimate of check; a
disagreement is printed as drift (the measured figure decides the
verdict; --fail-on-drift makes it fatal). Figures a response did not carry
are computed by the billing rules and marked. Every excess is explained:
the step, the table or index, and the cause, at its line in model.yaml.

Several outputs from one run: the report on stdout (--format text or
json), --junit FILE, --markdown FILE (a pull-request comment or
$GITHUB_STEP_SUMMARY), --sarif FILE (code scanning annotations),
--codequality FILE (GitLab's code quality report, the same findings as
the SARIF), --write-baseline FILE; --baseline FILE compares with an accepted run
(which operations got dearer, in units and US$ a month) and
--fail-on-increase fails on any increase.

Every request is sent once: a throttle or an error on the target is
reported as the variant's error, not hidden behind a retry whose answer
would change the figures. --retries N lets the SDK send a request up to N
more times (its standard backoff, capped at 20 s, and its 500-token retry
quota); the report says which policy ran.

Before any request the model is judged as check judges it (budget.Judge):
a variant whose static estimate exceeds its budget, a table or index
whose hottest partition takes more than it serves at a declared peak,
and with --strict a review warning the model does not accept each fail
the gate, with check's explanation, in every output (and on stderr, as
check prints them); the run measures everything all the same.

Exit codes: 0 every budget holds; 2 a bad model, baseline or flag; 3 check
fails the model, or a variant exceeds its budget, could not be measured,
drifts under --fail-on-drift or got dearer under --fail-on-increase; 1
cardapio or the target failed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			return runBudget(e, o, path)
		},
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "text", "report on stdout: text or json")
	f.StringVar(&o.run.Target.EndpointURL, "endpoint-url", "", "a DynamoDB-compatible server (cardapio serve, dynalite, DynamoDB Local)")
	f.BoolVar(&o.run.Target.AWS, "aws", false, "Amazon DynamoDB through the standard configuration chain")
	f.StringVar(&o.run.Target.Region, "region", "", "AWS region")
	f.StringVar(&o.run.Target.Profile, "profile", "", "AWS shared configuration profile")
	f.StringVar(&o.run.TablePrefix, "table-prefix", "", "prefix of the tables the run creates (default: unique to the run)")
	rangeVar(f, &o.run.Retries, "retries", 0, between(0, 10), "times the SDK may send a throttled or failed request again (0: each request once)")
	f.BoolVar(&o.run.Keep, "keep", false, "keep the tables at the end")
	f.StringVar(&o.keys, "keys", "auto", "multi-attribute index keys: native, synthetic, or auto (probe the target)")
	f.StringSliceVar(&o.run.Only, "only", nil, "run only these operations or variants: OP or OP/VARIANT, repeatable")
	f.BoolVar(&o.run.FailOnDrift, "fail-on-drift", false, "fail a variant whose measured figures disagree with the static estimate")
	f.BoolVar(&o.run.Strict, "strict", false, "fail (exit 3) on review warnings the model does not accept, as check --strict")
	f.StringVar(&o.files.JUnit, "junit", "", "write a JUnit XML report to FILE")
	f.StringVar(&o.files.Markdown, "markdown", "", "write a Markdown report to FILE")
	f.StringVar(&o.files.SARIF, "sarif", "", "write SARIF 2.1.0 findings positioned in model.yaml to FILE")
	f.StringVar(&o.files.CodeQuality, "codequality", "", "write the same findings as GitLab's code quality report (JSON) to FILE")
	f.StringVar(&o.files.Baseline, "write-baseline", "", "write this run's JSON report to FILE, to compare later runs with")
	f.StringVar(&o.baseline, "baseline", "", "compare with an accepted run's JSON report")
	f.BoolVar(&o.failOnIncrease, "fail-on-increase", false, "with --baseline: fail on any variant dearer than the baseline, even under budget")
	return c
}

func runBudget(e *env, o *budgetOptions, path string) (err error) {
	// A run that ends before its report still writes every file asked
	// for, each saying why there is no verdict.
	done := false
	defer func() {
		if err != nil && !done {
			if werr := o.files.WriteFailure(path, err); werr != nil {
				fmt.Fprintln(e.stderr, "cardapio:", werr)
			}
		}
	}()
	if o.format != "text" && o.format != "json" {
		return badInput(fmt.Errorf("--format must be text or json, not %q", o.format))
	}
	if o.failOnIncrease && o.baseline == "" {
		return badInput(errors.New("--fail-on-increase compares with a baseline: give --baseline FILE"))
	}
	if o.run.Keys, err = catalog.ParseKeyMode(o.keys); err != nil {
		return badInput(err)
	}
	// The run makes and drops every variant's state (tens of thousands
	// of seeded items, the SDK's values of the pages read) over a live
	// heap of one variant's tables: with the default GC target the
	// collector runs at every doubling of a small heap and takes about a
	// fifth of the run's CPU. A higher target, under a soft limit, costs
	// a few hundred MB at most.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(768 << 20))
	m, err := readModel(path)
	if err != nil {
		return modelError(e, err)
	}
	var base *budget.Report
	if o.baseline != "" {
		f, err := files.Open(o.baseline)
		if err != nil {
			return badInput(fmt.Errorf("read baseline %s: %w", o.baseline, files.Reason(err)))
		}
		base, err = budget.ReadBaseline(o.baseline, f)
		_ = f.Close()
		if err != nil {
			return badInput(err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := budget.Run(ctx, m, path, o.run)
	if err != nil {
		return err
	}
	if base != nil {
		prices := estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)
		rep.Baseline = budget.Compare(m, capacity.Default(), prices, rep, base, o.baseline)
		rep.Finish(o.failOnIncrease)
	}
	if o.format == "json" {
		_ = reports.JSON(e.stdout, rep)
	} else {
		reports.BudgetText(e.stdout, rep)
	}
	done = true
	if err := o.files.WriteBudget(rep); err != nil {
		return err
	}
	// Findings quote the model's text: escaped, so no line of it can
	// become a CI workflow command or a terminal sequence.
	stderr := reports.TextOut(e.stderr)
	for _, f := range rep.Check.Findings {
		fmt.Fprintln(stderr, f.Line())
	}
	if !rep.OK {
		return failed(errors.New("budget gate failed"))
	}
	return nil
}
