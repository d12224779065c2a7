package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/loadgen"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newLoadCmd) }

type loadFlags struct {
	run                   loadgen.Options
	scenario, part        string
	keys, format, results string
	summary               string
	quiet                 bool
}

func newLoadCmd(e *env) *cobra.Command {
	o := &loadFlags{run: loadgen.Options{Target: endpoint.Options{Retry: endpoint.Standard}}}
	c := &cobra.Command{
		Use:   "load [model.yaml] --scenario NAME|FILE",
		Short: "Replay a scenario (payday, 00h07...) against an engine, open model, and check the model's invariants on the data",
		Long: `Load replays one of the model's scenarios (./model.yaml by default), or one of
a scenario file's (--scenario FILE), against an engine: the embedded one in
process unless --endpoint-url or --aws says otherwise. It first loads the
model's synthetic population at --scale, then sends every load's arrivals
on the scenario's schedule (an open model: arrivals never wait for
answers; one the runner could not start on time is counted late, never
dropped), then checks the model's invariants with a strongly consistent
read of the tables and the runner's ledger of the messages it sent.

--scale F scales the population, the scenario's counts and rates and the
engine's partition limits alike (--throughput turns the embedded engine's
throughput model on); --speed X runs the scenario's clock X times faster
than the wall's, the engine's throughput model and the retry backoff on
the same clock (max: as fast as the target answers). The SDK retry
policy is the run's (--retry-attempts, --retry-max-backoff,
--retry-quota) and is printed; a message whose retries run out goes to
the dead-letter ledger and is replayed when the scenario says.

--results FILE streams JSON lines (a start line, one line a second, the
summary last), so an interrupted or crashed run keeps what it measured;
--summary FILE writes the summary as one JSON document. --part i/n runs
slice i of n: the whole run's schedule, of which it sends the arrivals
whose subjects are in its share of the population (and writes that share
when the run writes it), so that the parts merged are one run;
--part auto/n takes i from a Kubernetes Indexed Job's JOB_COMPLETION_INDEX
or an AWS Batch array job's AWS_BATCH_JOB_ARRAY_INDEX, and {part} in
--results and --summary becomes i; cardapio load merge combines the parts'
results files.

--existing runs against tables that already hold the population at
--population (or --scale) with --seed, under --table-prefix (an S3 import
of cardapio data's files, cardapio data --endpoint-url or --aws, a run
kept with --keep): it writes nothing before the first arrival, first
reads a bounded sample of the population strongly consistent and refuses
(exit 2) tables that do not hold it. Its subjects and values are the
population's generator's, never read back; the invariants read what the
run touched (--check-all: the whole tables, a parallel scan whose cost is
said first). A run that writes the population does so on retries of its
own, never the run's (--retry-attempts governs the measured requests),
capped by --setup-rate, and says what it cost.

Exit codes: 0 the expectations and invariants hold; 3 one fails, the run
was interrupted or fell behind --max-behind; 2 bad input; 1 a failure.`,
		Example: `  cardapio load --scenario midnight-0007 --scale 0.01 --throughput --speed 60
  cardapio load --scenario payday --scale 0.001 --duration 30s --speed max --summary payday.json
  cardapio load examples/orders/model.yaml --scenario queue-0900 --endpoint-url http://127.0.0.1:8000
  cardapio load --scenario payday --scale 0.01 --existing --part auto/8 --results /results/part-{part}.jsonl --aws`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			return runLoad(cmd.Context(), e, o, path)
		},
	}
	f := c.Flags()
	f.StringVar(&o.scenario, "scenario", "", "the scenario: a name of the model's, or a scenario file (NAME picks one of a file of several: FILE#NAME)")
	rangeVar(f, &o.run.Scale, "scale", 1, above(0.0, 1000), "scale of the population, the counts and rates and the partition limits (0.01: 1/100)")
	rangeVar(f, &o.run.Population, "population", 0, above(0.0, 1000), "a smaller population than --scale for a quick run (loads that take each subject once end when they run out, at their rate)")
	rangeOrWord(f, &o.run.Speed, "speed", 1, between(0.001, 1e6), "max", 0, "how many times faster than real time the scenario's clock runs")
	f.Uint64Var(&o.run.Seed, "seed", 1, "seed of the population and of every draw of the run")
	f.BoolVar(&o.run.FullPopulation, "whole-population", false, "write every tree of the population, also those no request of the run can reach")
	f.BoolVar(&o.run.Existing, "existing", false, "run against tables that already hold the population at --scale (or --population) with --seed: write nothing, check a sample first")
	f.BoolVar(&o.run.CheckAll, "check-all", false, "with --existing, check the invariants on every item of the tables (a parallel scan), not only on what the run touched")
	rangeVar(f, &o.run.SetupRate, "setup-rate", 0, between(0.0, 1e9), "cap the population's writes at this many write units a second (0: none); they retry throttles on their own policy")
	f.BoolVar(&o.run.Throughput, "throughput", false, "the embedded engine models partitions, burst and GSI back-pressure at --scale")
	f.StringVar(&o.run.Target.EndpointURL, "endpoint-url", "", "a DynamoDB-compatible server (cardapio serve, dynalite, DynamoDB Local)")
	f.BoolVar(&o.run.Target.AWS, "aws", false, "Amazon DynamoDB through the standard configuration chain")
	f.StringVar(&o.run.Target.Region, "region", "", "AWS region")
	f.StringVar(&o.run.Target.Profile, "profile", "", "AWS shared configuration profile")
	rangeVar(f, &o.run.Target.Retry.MaxAttempts, "retry-attempts", endpoint.Standard.MaxAttempts, between(1, 20), "SDK attempts of one request, the first included (1: no retries)")
	rangeVar(f, &o.run.Target.Retry.MaxBackoff, "retry-max-backoff", endpoint.Standard.MaxBackoff, between(0, 10*time.Minute), "cap of the SDK's backoff between attempts")
	rangeVar(f, &o.run.Target.Retry.Quota, "retry-quota", endpoint.Standard.Quota, between[uint](0, 1_000_000), "SDK retry token bucket (0: no bucket)")
	rangeVar(f, &o.run.MaxInflight, "max-inflight", 256, between(1, 65536), "arrivals in flight at most")
	rangeVar(f, &o.run.MaxBehind, "max-behind", 0, between(0, week), "fail the run when an arrival starts later than this behind its schedule (0: no limit)")
	rangeVar(f, &o.run.Duration, "duration", 0, above(0, week), "how long loads given by a rate run (default: their window)")
	f.StringVar(&o.part, "part", "", "run slice i of n (0 <= i < n), for example 0/4; auto/n takes i from JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX")
	f.StringVar(&o.run.TablePrefix, "table-prefix", "", "prefix of the tables the run creates")
	f.BoolVar(&o.run.Keep, "keep", false, "keep the tables at the end")
	f.StringVar(&o.keys, "keys", "auto", "multi-attribute index keys: native, synthetic, or auto (probe the target)")
	f.StringVar(&o.results, "results", "", "stream JSON lines to FILE (a line a second, the summary last)")
	f.StringVar(&o.summary, "summary", "", "write the summary as one JSON document to FILE")
	f.StringVar(&o.format, "format", "text", "report on stdout: text or json")
	f.BoolVar(&o.quiet, "quiet", false, "no progress or status line on stderr")
	c.AddCommand(newLoadMergeCmd(e), newLoadCheckCmd(e))
	return c
}

func runLoad(ctx context.Context, e *env, o *loadFlags, path string) (rerr error) {
	var err error
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" && !o.run.Target.AWS && o.run.Target.EndpointURL == "" {
		// The embedded engine holds the population, a large live heap
		// the default collector marks again at every doubling (a fifth
		// of a run's CPU): collect at 4x the live heap, under a soft
		// limit of 3 GiB. Against a server or AWS the client's live heap
		// is small and the default keeps its memory at about twice it
		// (at 4x, a run against cardapio serve at 1/300 peaked at 403 MB
		// against 193 MB).
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(3 << 30))
	}
	if o.format != "text" && o.format != "json" {
		return badInput(fmt.Errorf("--format must be text or json, not %q", o.format))
	}
	if o.scenario == "" {
		return badInput(errors.New("--scenario is required: a scenario of the model, or a scenario file"))
	}
	if o.part != "" {
		if o.run.Part, o.run.Parts, err = loadgen.ParsePart(o.part, os.Getenv); err != nil {
			return badInput(err)
		}
		o.results, o.summary = loadgen.PartPath(o.results, o.run.Part), loadgen.PartPath(o.summary, o.run.Part)
	}
	if o.run.Keys, err = catalog.ParseKeyMode(o.keys); err != nil {
		return badInput(err)
	}
	m, err := loadModel(e, path)
	if err != nil {
		return err
	}
	o.run.Scenario, o.run.File, err = loadgen.PickScenario(m, o.scenario)
	if errs := (catalog.ErrorList{}); errors.As(err, &errs) {
		fmt.Fprintln(e.stderr, errs.Error())
		return reported(ExitBadInput, errs)
	}
	if err != nil {
		return badInput(err)
	}
	if o.results != "" {
		f, err := files.Create(o.results)
		if err != nil {
			return badInput(fmt.Errorf("--results: %w", err))
		}
		// The file is kept whatever the run's end (a failure, an
		// interrupt: what it says up to there, without a summary).
		defer func() {
			if cerr := f.Commit(); cerr != nil && rerr == nil {
				rerr = cerr
			}
		}()
		o.run.Results = f
	}
	if !o.quiet {
		o.run.Log = e.stderr
		if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			o.run.Status = func(s loadgen.Status) { reports.LoadStatus(f, s) }
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	began := time.Now()
	sum, err := loadgen.Run(ctx, m, o.run)
	if o.run.Status != nil {
		fmt.Fprint(e.stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	return loadReport(e, o.format, o.summary, sum, time.Since(began))
}

// loadReport prints a summary, writes --summary, and decides the exit.
func loadReport(e *env, format, summaryFile string, sum *loadgen.Summary, _ time.Duration) error {
	if summaryFile != "" {
		if err := reports.WriteJSONFile(summaryFile, sum); err != nil {
			return err
		}
	}
	if format == "json" {
		_ = reports.JSON(e.stdout, sum)
	} else {
		reports.LoadText(e.stdout, sum)
	}
	if !sum.OK {
		return failed(errors.New("the load run failed"))
	}
	return nil
}

func newLoadMergeCmd(e *env) *cobra.Command {
	var format, summary, results string
	c := &cobra.Command{
		Use:   "merge RESULTS...",
		Short: "Combine the results files of a run's parts (--part i/n) into one report",
		Long: `Merge reads the results files (--results) of the parts of one run and
prints one report: counts added, latency histograms merged exactly (their
HdrHistogram encodings) and their percentiles read again, the join
invariants (sum) completed from the parts' partial groups, the others'
violations added, each part's expectations combined. A part whose file
has no summary did not finish: merge says which and exits 2. A directory
stands for the results files (*.jsonl) in it. --results FILE writes the
merged run's results file (the parts' seconds added by instant of the
scenario's clock, their ledgers, the merged summary), which cardapio
report --load and cardapio load check read as one run's.

Exit codes: 0 the merged run holds; 3 it fails (a violation, a failed
expectation, a missing part); 2 a bad, unfinished or mismatched file.`,
		Example: `  cardapio load --scenario payday --scale 0.001 --duration 30s --speed max --part 0/2 --results p0.jsonl
  cardapio load --scenario payday --scale 0.001 --duration 30s --speed max --part 1/2 --results p1.jsonl
  cardapio load merge p0.jsonl p1.jsonl --summary payday.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return badInput(fmt.Errorf("--format must be text or json, not %q", format))
			}
			paths, err := loadgen.ResultPaths(args)
			if err != nil {
				return badInput(err)
			}
			var w io.Writer
			var out *files.Writer
			if results != "" {
				if out, err = files.Create(results); err != nil {
					return badInput(fmt.Errorf("--results: %w", err))
				}
				defer out.Abort()
				w = out
			}
			sum, err := loadgen.MergeResults(paths, w)
			if err != nil {
				return badInput(err)
			}
			if out != nil {
				if err := out.Commit(); err != nil {
					return err
				}
			}
			return loadReport(e, format, summary, sum, 0)
		},
	}
	c.Flags().StringVar(&format, "format", "text", "report on stdout: text or json")
	c.Flags().StringVar(&summary, "summary", "", "write the merged summary as one JSON document to FILE")
	c.Flags().StringVar(&results, "results", "", "write the merged run's results file to FILE")
	return c
}
