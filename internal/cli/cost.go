package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/cost"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newCostCmd) }

type costOptions struct {
	format      string
	prices      string
	region      string
	infracost   string
	utilisation float64
	compare     bool
}

func newCostCmd(e *env) *cobra.Command {
	o := &costOptions{}
	c := &cobra.Command{
		Use:   "cost [model.yaml]",
		Short: "Monthly cost of a model: operations, access patterns, storage, provisioned alternative",
		Long: `Cost prices a month of the model (./model.yaml by default): every operation
at its declared volume (a day volume x 30) with its static units, its budget
variants weighted by their shares (or the dearest one), per operation and
per access pattern; the storage of every table (its declared sizeGB, or the
entities' populations x the mean size of their items as cardapio data
draws them, measured on a few blocks of the population, or x their first
sample when the population cannot be drawn; 100 B more per item and per
index entry) under Standard and Standard-IA; point-in-time recovery and
one export a month where declared; the total and the cost per 1,000 of the business unit
(scale.businessUnit: contracts, orders, accounts...); and the
provisioned alternative at a target utilisation.

Prices are capacity's us-east-1 table, overridden by the model's pricing,
then by --prices FILE (YAML or JSON; every key optional: region, date,
writePerMillion, readPerMillion, storageGBMonth, iaStorageGBMonth,
iaRequestFactor, wcuHour, rcuHour, pitrGBMonth, exportGB, ...; a figure
is a number or {value, status, date}). A file cardapio prices wrote may
hold several regions: --region R picks one (without --prices, only
us-east-1, the defaults' region, has prices).

--compare A.yaml B.yaml prints two models side by side with the ratio.

--infracost-usage FILE also writes Infracost's usage file (version 0.1):
under resource_usage one aws_dynamodb_table.NAME a table, NAME its table
name as a Terraform label, with monthly_write_request_units and
monthly_read_request_units (its indexes' included),
storage_gb and, with point-in-time recovery, pitr_backup_storage_gb,
each the month's figure rounded up.

Errors go to stderr only, as file:line:column lines for a bad model; with
--format json stdout holds the report when the exit code is 0 and nothing
otherwise.

Exit codes: 0 ok; 2 a model, the price file or a flag is invalid.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			if o.format != "text" && o.format != "json" {
				return badInput(fmt.Errorf("--format must be text or json, not %q", o.format))
			}
			paths := args
			switch {
			case o.compare && len(args) != 2:
				return badInput(fmt.Errorf("--compare takes two models, A.yaml B.yaml"))
			case o.compare && o.infracost != "":
				return badInput(fmt.Errorf("--infracost-usage writes one model's usage, not with --compare"))
			case !o.compare && len(args) > 1:
				return badInput(fmt.Errorf("one model, or --compare A.yaml B.yaml"))
			case len(args) == 0:
				paths = []string{"model.yaml"}
			}
			return runCost(e, o, paths)
		},
	}
	c.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	c.Flags().StringVar(&o.prices, "prices", "", "price file (YAML or JSON) overriding the model's and the default prices")
	c.Flags().StringVar(&o.region, "region", "", "the region whose prices to use, from the --prices file (cardapio prices writes it)")
	rangeVar(c.Flags(), &o.utilisation, "utilisation", cost.DefaultUtilisation, above(0.0, 1), "target utilisation of the provisioned alternative")
	c.Flags().BoolVar(&o.compare, "compare", false, "compare two models: cost --compare A.yaml B.yaml")
	c.Flags().StringVar(&o.infracost, "infracost-usage", "", "also write Infracost's usage file of the model's tables to FILE")
	return c
}

// maxPriceFile caps a price file: a few dozen figures, far below this.
const maxPriceFile = 1 << 20

func runCost(e *env, o *costOptions, paths []string) error {
	var data []byte
	if o.prices != "" {
		var err error
		if data, err = files.ReadCapped(o.prices, maxPriceFile, "a price file"); err != nil {
			return badInput(err)
		}
	}
	file, err := capacity.PricesFor(o.prices, data, o.region)
	if err != nil {
		return badInput(err)
	}
	// Every model is loaded before any is priced, so that --compare lists
	// the errors of both.
	models := make([]*catalog.Model, 0, len(paths))
	var bad catalog.ErrorList
	for _, path := range paths {
		m, err := readModel(path)
		var errs catalog.ErrorList
		switch {
		case errors.As(err, &errs):
			bad = append(bad, errs...)
		case err != nil:
			return badInput(err)
		}
		models = append(models, m)
	}
	if len(bad) > 0 {
		fmt.Fprintln(e.stderr, bad.Error())
		return reported(ExitBadInput, bad)
	}
	var bills []*estimate.Bill
	co := cost.Options{Prices: file, Utilisation: o.utilisation}
	for i, m := range models {
		b, err := cost.Month(m, co)
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", paths[i], err))
		}
		b.Source = paths[i]
		bills = append(bills, b)
	}
	if o.infracost != "" {
		var b bytes.Buffer
		if err := reports.InfracostUsage(&b, models[0].Name, cost.Usage(models[0], bills[0], co)); err != nil {
			return err
		}
		if err := files.Write(o.infracost, b.Bytes()); err != nil {
			return err
		}
	}
	return reports.Cost(e.stdout, o.format, bills...)
}
