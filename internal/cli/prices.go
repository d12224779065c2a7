package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/pricelist"
)

func init() { commands = append(commands, newPricesCmd) }

type pricesOptions struct {
	regions []string
	out     string
	o       pricelist.Options
}

func newPricesCmd(e *env) *cobra.Command {
	p := &pricesOptions{}
	c := &cobra.Command{
		Use:   "prices --region R [--region R2] [--out FILE]",
		Short: "Build a dated prices file of a region's DynamoDB prices from the AWS Price List",
		Long: `Prices reads a region's DynamoDB prices from the AWS Price List (the
Pricing API's GetProducts, service code AmazonDynamoDB, filtered by
regionCode; the API is served in us-east-1) through the standard
configuration chain (environment, shared files, SSO, instance roles), and
writes the price file cost --prices reads: on-demand reads and writes,
provisioned RCU and WCU hours, storage under Standard (with its free
tier) and Standard-IA (and the IA request factor), point-in-time
recovery, on-demand backups, exports and imports, streams reads and
global tables' replicated writes (on demand and provisioned). Every
figure carries its usage type, SKU and effective date; the file is dated
by the list's publication date. Several --region flags write one file
of several regions; cost --prices FILE --region R picks one.

No figure is made up: a figure the list does not give for the region
fails the command, and nothing is written.

The file goes to stdout, or replaces --out FILE whole. --retries sets the
SDK's retries (standard backoff and retry quota); --endpoint-url sends
the requests to another endpoint.

Exit codes: 0 written; 2 a bad region or flag, or a region the list has
no DynamoDB prices in; 1 the Pricing API failed or gave an incomplete list.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error { return runPrices(e, p) },
	}
	f := c.Flags()
	f.StringSliceVar(&p.regions, "region", nil, "the region whose prices to read (repeatable, or a comma list)")
	f.StringVar(&p.out, "out", "", "write the file here instead of stdout")
	f.StringVar(&p.o.EndpointURL, "endpoint-url", "", "the Pricing API's endpoint (default: AWS's, in us-east-1)")
	f.StringVar(&p.o.Profile, "profile", "", "AWS shared configuration profile")
	rangeVar(f, &p.o.Retries, "retries", 2, between(0, 10), "times the SDK may send a failed or throttled request again")
	return c
}

// maxRegions bounds one file: there are fewer AWS regions than this.
const maxRegions = 64

func runPrices(e *env, p *pricesOptions) error {
	if len(p.regions) == 0 {
		return badInput(fmt.Errorf("--region R is required (for example sa-east-1)"))
	}
	if len(p.regions) > maxRegions {
		return badInput(fmt.Errorf("--region: %d regions, at most %d", len(p.regions), maxRegions))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var book []capacity.Prices
	date, seen := "", map[string]bool{}
	for _, r := range p.regions {
		if seen[r] {
			continue
		}
		seen[r] = true
		t, err := pricelist.Fetch(ctx, r, p.o)
		if err != nil {
			return err
		}
		book = append(book, t)
		date = max(date, t.Date)
	}
	var b bytes.Buffer
	comment := "DynamoDB prices from the AWS Price List API (GetProducts, " + pricelist.Service + ", by regionCode),\n" +
		"written by cardapio prices; read by cardapio cost --prices FILE [--region R]."
	if err := capacity.WritePriceBook(&b, date, comment, book); err != nil {
		return err
	}
	if p.out == "" {
		_, err := e.stdout.Write(b.Bytes())
		return err
	}
	return files.Write(p.out, b.Bytes())
}
