package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
	"github.com/cardapio/cardapio/loadgen"
	"github.com/cardapio/cardapio/planner"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newPlanCmd) }

type planOptions struct {
	format, billing, provisioned string
	shards, warm                 []string
	compare, noSearch            bool
	o                            planner.Options
}

func newPlanCmd(e *env) *cobra.Command {
	p := &planOptions{}
	c := &cobra.Command{
		Use:   "plan [model.yaml] --scenario NAME|FILE",
		Short: "Predict a scenario's throttling at full scale, partition by partition, without storing an item",
		Long: `Plan simulates one of the model's scenarios (./model.yaml by default), or
one of a scenario file's (--scenario FILE, FILE#NAME), the load generator's
scenarios read the same way, at the model's full scale, second by second: the population placed by the dataset
generator's model (sampled, never stored) splits every table and global
index into partitions by size and throughput, every operation of the
scenario becomes units per partition per second by the capacity rules, and
each second is admitted by the engine's throughput model (burst, adaptive
capacity, on-demand scaling to twice the previous peak, warm throughput,
splits for heat, GSI back-pressure, ThrottlingReasons). Each load's
arrivals a second are those cardapio load makes (the same shapes, starts,
follow-ups and scenarios continued with); the span runs from the
scenario's start to the last arrival.

It prints, per table and index, the busiest second against its limit and
its hottest partitions, throttled requests by reason, the first second
each limit refused (index, partition, keys), the warm throughput and the
shard count that would throttle nothing, and the span's US$.

What-ifs: --shards N (every sharded index) or INDEX=N, --warm READ/WRITE
(the table) or NAME=READ/WRITE, at least the table's warm throughput
(declared, or AWS's on-demand default; warm throughput only rises),
--billing onDemand|provisioned with
--provisioned READ/WRITE. --compare plans the model as declared and with
the what-ifs side by side; with two models (A.yaml B.yaml) it plans both.

With --format json, stdout holds the plan (planner.Result; {"a", "b"} with
--compare) when the exit code is 0 or 3: indented, or on one line when a
series holds more than an hour of points.

Exit codes: 0 no throttling predicted; 3 throttling predicted (the index,
partition and second are named on stderr); 2 a bad model, scenario or
flag.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error { return runPlan(e, p, args) },
	}
	f := c.Flags()
	f.StringVar(&p.o.Scenario, "scenario", "", "the scenario: a name of the model's, or a scenario file (FILE#NAME picks one of several)")
	f.StringVar(&p.format, "format", "text", "output format: text or json")
	f.StringArrayVar(&p.shards, "shards", nil, "shard count of every sharded index (N) or of one (INDEX=N); repeatable")
	f.StringArrayVar(&p.warm, "warm", nil, "warm throughput of the table (READ/WRITE) or of a table or index (NAME=READ/WRITE); repeatable")
	f.StringVar(&p.billing, "billing", "", "billing mode of every table: onDemand or provisioned")
	f.StringVar(&p.provisioned, "provisioned", "", "provisioned capacity READ/WRITE of each table and index (with --billing provisioned)")
	f.BoolVar(&p.compare, "compare", false, "plan the model as declared and with the what-ifs (or two models) side by side")
	f.BoolVar(&p.noSearch, "no-search", false, "do not search for the shard count that throttles nothing")
	rangeVar(f, &p.o.Duration, "duration", 0, between(0, week), "how long loads given by a rate run (default: their window), as load's --duration")
	rangeVar(f, &p.o.Resolution, "resolution", 0, between(0, 86400), "seconds per series point (default 1 up to an hour, else 60)")
	rangeVar(f, &p.o.Sample, "sample", 0, between(0, 1<<20), "items of each root entity sampled to place the population (default 1024)")
	f.Uint64Var(&p.o.Seed, "seed", 0, "population seed")
	rangeVar(f, &p.o.Scale, "scale", 1, above(0.0, 1000), "multiply the population, every load and every capacity (1: the model's full scale)")
	rangeVar(f, &p.o.Hottest, "hottest", 0, between(0, 1000), "partitions listed per table and index (default 8)")
	return c
}

func runPlan(e *env, p *planOptions, args []string) error {
	if p.format != "text" && p.format != "json" {
		return badInput(fmt.Errorf("--format must be text or json, not %q", p.format))
	}
	if p.o.Scenario == "" {
		return badInput(fmt.Errorf("--scenario NAME is required"))
	}
	if err := p.parse(); err != nil {
		return badInput(err)
	}
	paths := args
	switch {
	case len(args) == 0:
		paths = []string{"model.yaml"}
	case len(args) == 2 && !p.compare:
		return badInput(fmt.Errorf("one model, or --compare A.yaml B.yaml"))
	}
	var runs []planner.Options
	var models []string
	if len(paths) == 2 {
		runs, models = []planner.Options{p.o, p.o}, paths
	} else if p.compare {
		if len(p.o.Shards)+len(p.o.Warm) == 0 && p.o.Billing == "" {
			return badInput(fmt.Errorf("--compare with one model compares it with a what-if: give --shards, --warm or --billing"))
		}
		base := p.o
		base.Shards, base.Warm, base.Billing = nil, nil, ""
		runs, models = []planner.Options{base, p.o}, []string{paths[0], paths[0]}
	} else {
		runs, models = []planner.Options{p.o}, paths
	}
	var plans []*planner.Result
	for i, o := range runs {
		m, err := loadModel(e, models[i])
		if err != nil {
			return err
		}
		name, file, err := loadgen.PickScenario(m, o.Scenario)
		if errs := (catalog.ErrorList{}); errors.As(err, &errs) {
			fmt.Fprintln(e.stderr, errs.Error())
			return reported(ExitBadInput, errs)
		} else if err != nil {
			return badInput(err)
		}
		o.Scenario = name
		if file != nil {
			o.Scenarios = file.Scenarios
		}
		r, err := planner.Plan(m, o)
		if input.Is(err) {
			return badInput(fmt.Errorf("%s: %w", models[i], err))
		} else if err != nil {
			return err
		}
		r.File = models[i]
		plans = append(plans, r)
	}
	if err := reports.Plan(e.stdout, p.format, plans...); err != nil {
		return err
	}
	last := plans[len(plans)-1]
	if last.Verdict.Throttled {
		fmt.Fprintln(e.stderr, last.Verdict.Summary)
		return failed(errors.New(last.Verdict.Summary))
	}
	return nil
}

// parse reads the what-if flags into the planner's options.
func (p *planOptions) parse() error {
	p.o.SearchShards = !p.noSearch
	for _, s := range p.shards {
		name, v, ok := strings.Cut(s, "=")
		if !ok {
			name, v = "", s
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return fmt.Errorf("--shards %q: want N or INDEX=N with N a whole number >= 1", s)
		}
		if p.o.Shards == nil {
			p.o.Shards = map[string]int{}
		}
		p.o.Shards[strings.TrimSpace(name)] = n
	}
	for _, s := range p.warm {
		name, v, ok := strings.Cut(s, "=")
		if !ok {
			name, v = "", s
		}
		t, err := readWrite(v)
		if err != nil {
			return fmt.Errorf("--warm %q: %w", s, err)
		}
		if p.o.Warm == nil {
			p.o.Warm = map[string]planner.Throughput{}
		}
		p.o.Warm[strings.TrimSpace(name)] = t
	}
	switch p.billing {
	case "", "onDemand", "provisioned":
		p.o.Billing = p.billing
	case "on-demand", "PAY_PER_REQUEST":
		p.o.Billing = "onDemand"
	case "PROVISIONED":
		p.o.Billing = "provisioned"
	default:
		return fmt.Errorf("--billing must be onDemand or provisioned, not %q", p.billing)
	}
	if p.provisioned != "" {
		if p.o.Billing != "provisioned" {
			return fmt.Errorf("--provisioned goes with --billing provisioned")
		}
		t, err := readWrite(p.provisioned)
		if err != nil {
			return fmt.Errorf("--provisioned %q: %w", p.provisioned, err)
		}
		p.o.Provisioned = t
	}
	return nil
}

// readWrite reads "READ/WRITE" units a second.
func readWrite(s string) (planner.Throughput, error) {
	r, w, ok := strings.Cut(s, "/")
	if !ok {
		return planner.Throughput{}, fmt.Errorf("want READ/WRITE units a second")
	}
	rf, err1 := strconv.ParseFloat(strings.TrimSpace(r), 64)
	wf, err2 := strconv.ParseFloat(strings.TrimSpace(w), 64)
	if err1 != nil || err2 != nil || !(rf >= 0) || !(wf >= 0) || rf > 1e9 || wf > 1e9 {
		return planner.Throughput{}, fmt.Errorf("want READ/WRITE, two numbers of units a second from 0 to 1e9")
	}
	return planner.Throughput{Read: rf, Write: wf}, nil
}
