package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/loadgen"
	"github.com/cardapio/cardapio/reports"
)

func newLoadCheckCmd(e *env) *cobra.Command {
	o := loadgen.CheckOptions{Target: endpoint.Options{Retry: endpoint.Standard}}
	var format string
	c := &cobra.Command{
		Use:   "check [model.yaml] --endpoint-url URL|--aws",
		Short: "Check the model's invariants on tables that already exist (a kept run's, a loaded population's)",
		Long: `Check runs the model's invariants (./model.yaml by default) against tables
that already exist: those cardapio load --keep left, or a population
cardapio data loaded, whoever wrote to them since. The invariants that
read only the data (each, sum) are checked on a strongly consistent scan
of the tables. Those that read a run's ledger (ledger, versions) need the
results file of the run that sent the messages (--results, one a part);
without it they are reported NOT CHECKED, with the reason, never as
holding. Each violation is printed with its keys.

The tables are the model's names with --table-prefix before them; without
it, the names the --results file's run used, else the model's own names.

Exit codes: 0 every invariant checked holds; 3 one is violated; 2 bad
input (a table that does not exist, a results file of another model); 1
a failure.`,
		Example: `  cardapio load check --endpoint-url http://127.0.0.1:8000
  cardapio load --scenario payday --endpoint-url http://127.0.0.1:8000 --keep --results payday.jsonl
  cardapio load check --endpoint-url http://127.0.0.1:8000 --results payday.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if format != "text" && format != "json" {
				return badInput(fmt.Errorf("--format must be text or json, not %q", format))
			}
			m, err := loadModel(e, path)
			if err != nil {
				return err
			}
			rep, err := loadgen.Check(cmd.Context(), m, o)
			if err != nil {
				return err
			}
			if format == "json" {
				_ = reports.JSON(e.stdout, rep)
			} else {
				reports.LoadCheckText(e.stdout, rep)
			}
			if !rep.OK {
				return failed(errors.New("an invariant is violated"))
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&o.Target.EndpointURL, "endpoint-url", "", "a DynamoDB-compatible server holding the tables (cardapio serve, dynalite, DynamoDB Local)")
	f.BoolVar(&o.Target.AWS, "aws", false, "Amazon DynamoDB through the standard configuration chain")
	f.StringVar(&o.Target.Region, "region", "", "AWS region")
	f.StringVar(&o.Target.Profile, "profile", "", "AWS shared configuration profile")
	f.StringVar(&o.TablePrefix, "table-prefix", "", "prefix of the tables' names (default: the --results run's tables, else the model's names)")
	f.StringArrayVar(&o.Results, "results", nil, "results file of the run that wrote the data (its ledger); repeat for each part")
	f.StringSliceVar(&o.Invariants, "invariant", nil, "check only these invariants (repeat or comma-separate)")
	f.StringVar(&format, "format", "text", "report on stdout: text or json")
	return c
}
