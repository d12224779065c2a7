package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/dataset/output"
)

func init() { commands = append(commands, newDataCmd) }

func newDataCmd(e *env) *cobra.Command {
	c := output.Config{}
	var format string
	var quiet bool
	cmd := &cobra.Command{
		Use:   "data [model.yaml]",
		Short: "Generate the model's synthetic population: S3-import files, JSON lines, or a load into an engine",
		Long: `Data generates every item the model's populations imply (./model.yaml by
default), coherent with its key templates, domains and dataset rules, and
deterministic: the same --seed gives the same bytes whatever --workers is,
and --part i/n gives n disjoint slices whose union is the whole.

--out DIR --format s3-import writes DynamoDB JSON lines ({"Item": ...}) in
the layout DynamoDB's import from S3 reads: DIR/<table>/data/ holds only
data objects (import each table from that prefix), objects sized as AWS
advises (about 4,000,000 items of under 1 KB each), --compression zstd,
gzip or none, and DIR/manifest.json lists every object with its items,
bytes and SHA-256 and MD5 checksums, outside every data prefix. The text
summary ends with the aws dynamodb import-table command of each table:
its S3 key prefix and its --table-creation-parameters (key schema,
attribute definitions, global secondary indexes and their projections,
billing mode) from the model. --format jsonl writes plain items.

--serve loads the population into the embedded engine (with --addr, it
then serves it there until interrupted); --endpoint-url URL and --aws load
an engine or AWS (tables created with --create-tables, or named by
--table-prefix + the model's names): BatchWriteItem in batches of 25,
--concurrency requests in flight, unprocessed items sent again with
backoff, --rate caps write units a second, --checkpoint FILE records the
blocks done and --resume skips them.

A summary always follows on stdout: items per entity with size
percentiles, bytes as DynamoDB counts them, storage a month in Standard
and Standard-IA, the write units of a load against an S3 import's price,
and the model's declared storage beside the generated one, with why they
differ. Progress goes to stderr (a bar on a terminal).

Exit codes: 0 ok; 1 an internal failure or a failed load; 2 a bad model or flag.`,
		Example: `  cardapio data --scale 0.001 --out lastro-data
  cardapio data --scale 0.001 --part 3/8 --out lastro-data --compression gzip
  cardapio data --scale 0.01 --serve --addr 127.0.0.1:8000
  cardapio data --endpoint-url http://127.0.0.1:8000 --create-tables --rate 5000`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return badInput(fmt.Errorf("--summary must be text or json, not %q", format))
			}
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			m, err := loadModel(e, path)
			if err != nil {
				return err
			}
			if !quiet {
				c.Progress = e.stderr
				f, ok := e.stderr.(*os.File)
				c.Terminal = ok && term.IsTerminal(int(f.Fd()))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			c.Ready = func(addr string) {
				fmt.Fprintf(e.stderr, "serving the loaded engine on http://%s (Ctrl-C stops)\n", addr)
			}
			rep, err := output.Execute(ctx, m, c)
			var errs catalog.ErrorList
			switch {
			case errors.As(err, &errs):
				fmt.Fprintln(e.stderr, errs.Error())
				return reported(ExitBadInput, errs)
			case err != nil:
				return err
			}
			if c.EndpointURL != "" || c.AWS {
				if note := dataset.ExpiryNote(m, rep.Summary.AsOf, time.Now()); note != "" {
					fmt.Fprintln(e.stderr, note)
				}
			}
			if format == "json" {
				return rep.JSON(e.stdout)
			}
			if err := rep.Summary.Text(e.stdout); err != nil || c.Out == "" {
				return err
			}
			note, err := output.ImportNote(m, c.Out, rep.Manifest)
			if err != nil {
				return err
			}
			_, err = io.WriteString(e.stdout, "\n"+note)
			return err
		},
	}
	f := cmd.Flags()
	rangeVar(f, &c.Scale, "scale", 1, above(0.0, 1000), "multiply every population (0.001: the reference's 8,000 contracts and all that hangs off them)")
	f.Uint64Var(&c.Seed, "seed", 1, "the population's seed: the same seed gives the same items")
	f.StringVar(&c.AsOf, "as-of", "", "civil date the population is drawn as of, YYYY-MM-DD (default: the model's dataset.asOf, else 2026-01-01)")
	f.StringVar(&c.Part, "part", "", "generate slice i of n (0 <= i < n), for example 0/4")
	rangeVar(f, &c.Workers, "workers", 0, between(0, 1024), "generating goroutines (default: one a core, one fewer for a load); the output does not depend on it")
	f.StringVar(&c.Out, "out", "", "write files into this directory")
	f.StringVar(&c.Format, "format", "", "file format: s3-import (default) or jsonl")
	f.StringVar(&c.Compression, "compression", "", "file compression: zstd (default), gzip or none")
	f.BoolVar(&c.Serve, "serve", false, "load into the embedded engine")
	f.StringVar(&c.Addr, "addr", "", "with --serve: serve the loaded engine on this address until interrupted")
	f.StringVar(&c.EndpointURL, "endpoint-url", "", "load a DynamoDB-compatible endpoint")
	f.BoolVar(&c.AWS, "aws", false, "load Amazon DynamoDB (standard configuration chain)")
	f.StringVar(&c.Region, "region", "", "region of --aws or of the endpoint's signature")
	f.StringVar(&c.Profile, "profile", "", "shared configuration profile of --aws")
	f.BoolVar(&c.CreateTables, "create-tables", false, "create the model's tables (always with --serve)")
	f.StringVar(&c.TablePrefix, "table-prefix", "", "prefix of the tables' names (default: the model's names)")
	f.StringVar(&c.Keys, "keys", "auto", "index keys of created tables: native, or auto (refuses a target without multi-attribute keys)")
	rangeVar(f, &c.Concurrency, "concurrency", 16, between(1, 1024), "BatchWriteItem requests in flight")
	rangeVar(f, &c.Rate, "rate", 0, between(0.0, 1e9), "cap on write units a second (table and indexes), 0 for none")
	f.StringVar(&c.Checkpoint, "checkpoint", "", "record the blocks a load completed in this file")
	f.BoolVar(&c.Resume, "resume", false, "skip the blocks the --checkpoint file records")
	f.StringVar(&format, "summary", "text", "summary format: text or json")
	f.BoolVar(&quiet, "quiet", false, "no progress on stderr")
	return cmd
}
