package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/diff"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/reports"
)

func init() { commands = append(commands, newDiffCmd) }

type diffOptions struct {
	base        string
	format      string
	json        string
	markdown    string
	sarif       string
	maxIncrease string
	rehearse    bool
	scale       float64
}

func newDiffCmd(e *env) *cobra.Command {
	o := &diffOptions{}
	c := &cobra.Command{
		Use:   "diff BASE.yaml HEAD.yaml | diff --base REV [HEAD.yaml]",
		Short: "What a change to the model changes, costs to run, costs to migrate, and breaks",
		Long: `Diff compares two versions of a model, BASE and HEAD: two files, or
--base REV and HEAD (./model.yaml by default), BASE then being HEAD's file
as git show REV:PATH gives it, read in HEAD's git work tree (a pull-request
job compares with origin/main without a second checkout). It reports:

  what changed, in the model's words: tables, keys, billing, warm
    throughput, class, TTL, stream; attributes; entities' key templates and
    attributes; indexes, their keys and projections; access patterns added,
    removed or answered by another structure; operations, their parameters,
    steps and budgets; and the generated Go package's exported API;
  what it costs to run: the month's US$ by operation, access pattern,
    table and index (the cost command's bill on both sides), each budget's
    static units and the hottest partitions at the peaks, before and after;
  what it costs to get there: the migration plan, in order (new indexes
    before the code that reads them, old ones dropped after), each step
    with the items and write units it writes on BASE's population, its US$
    and its duration at the write rate it states, whether it is online and
    whether it needs a dual-write window;
  what breaks: changes that code generated from BASE, or the data it
    wrote, no longer fits.

A breaking change is accepted by naming its path in HEAD's acknowledge
list, with why. --max-increase fails when HEAD's month costs more than
BASE's by more than a percentage (10%) or US$ (25).

--rehearse loads BASE's population at --scale (at most 2,000,000 items)
on the embedded engine, plays each step that writes (UpdateTable for
indexes, the puts, deletes and updates of the rewrites), measures the
write units each consumed beside the plan's estimate at that scale and
the billing rules applied to the same items (they must agree within 5%),
and checks HEAD's key templates and invariants on the result.

--json FILE, --markdown FILE (a pull-request comment or
$GITHUB_STEP_SUMMARY) and --sarif FILE (breaking changes at HEAD's lines)
write files beside the report on stdout; --format json prints JSON.

Exit codes: 0 ok; 2 a model, the revision, an output file or a flag is
invalid; 3 a breaking change is not acknowledged, the month grew past
--max-increase, or a rehearsal disagreed or broke an invariant of HEAD.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "text" && o.format != "json" {
				return badInput(fmt.Errorf("--format must be text or json, not %q", o.format))
			}
			return runDiff(cmd.Context(), e, o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.base, "base", "", "git revision of BASE (HEAD's file at that revision), instead of a BASE file")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.StringVar(&o.json, "json", "", "write the JSON report to FILE")
	f.StringVar(&o.markdown, "markdown", "", "write a Markdown report to FILE")
	f.StringVar(&o.sarif, "sarif", "", "write SARIF 2.1.0 results, breaking changes at HEAD's lines, to FILE")
	f.StringVar(&o.maxIncrease, "max-increase", "", "fail when the month grows by more than this: a percentage (10%) or US$ (25)")
	f.BoolVar(&o.rehearse, "rehearse", false, "play the migration on the embedded engine and measure it")
	rangeVar(f, &o.scale, "scale", diff.DefaultScale, above(0.0, diff.MaxScale), "scale of BASE's population --rehearse loads")
	return c
}

func runDiff(ctx context.Context, e *env, o *diffOptions, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	opts := diff.Options{}
	if o.maxIncrease != "" {
		l, err := diff.ParseLimit(o.maxIncrease)
		if err != nil {
			return badInput(fmt.Errorf("--max-increase %w", err))
		}
		opts.MaxIncrease = &l
	}
	var base, head *catalog.Model
	var bad catalog.ErrorList
	load := func(m *catalog.Model, err error) (*catalog.Model, error) {
		var errs catalog.ErrorList
		if errors.As(err, &errs) {
			bad = append(bad, errs...)
			return nil, nil
		}
		return m, err
	}
	var err error
	switch {
	case o.base != "" && len(args) == 2:
		return badInput(errors.New("--base REV takes one model, HEAD.yaml, not two"))
	case o.base != "":
		path := "model.yaml"
		if len(args) == 1 {
			path = args[0]
		}
		if head, err = load(readModel(path)); err != nil {
			return badInput(err)
		}
		name, data, gerr := diff.AtRevision(ctx, path, o.base)
		if gerr != nil {
			return badInput(gerr)
		}
		if base, err = load(catalog.ParseWith(name, data, catalog.Options{ItemSize: capacity.Default().ItemSize})); err != nil {
			return badInput(err)
		}
	case len(args) == 2:
		if base, err = load(readModel(args[0])); err != nil {
			return badInput(err)
		}
		if head, err = load(readModel(args[1])); err != nil {
			return badInput(err)
		}
	default:
		return badInput(errors.New("diff takes BASE.yaml HEAD.yaml, or --base REV [HEAD.yaml]"))
	}
	if len(bad) > 0 {
		fmt.Fprintln(e.stderr, bad.Error())
		return reported(ExitBadInput, bad)
	}
	rep, err := diff.Compare(base, head, opts)
	if err != nil {
		return badInput(err)
	}
	if o.rehearse {
		if err := rep.Rehearse(ctx, base, head, diff.RehearseOptions{Scale: o.scale}, opts); err != nil {
			return err
		}
	}
	outs := []struct {
		path   string
		render func(*bytes.Buffer) error
	}{
		{o.json, func(b *bytes.Buffer) error { return reports.JSON(b, rep) }},
		{o.markdown, func(b *bytes.Buffer) error { reports.DiffMarkdown(b, rep); return nil }},
		{o.sarif, func(b *bytes.Buffer) error { return reports.DiffSARIF(b, rep, head.Source) }},
	}
	for _, out := range outs {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := out.render(&b); err != nil {
			return fmt.Errorf("write %s: %w", out.path, err)
		}
		if err := files.Write(out.path, b.Bytes()); err != nil {
			return badInput(err) // a flag naming a file that cannot be written
		}
	}
	if o.format == "json" {
		if err := reports.JSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		reports.DiffText(e.stdout, rep)
	}
	if !rep.OK {
		// The text report ends with the failures; JSON on stdout leaves
		// them to stderr.
		if o.format == "json" {
			for _, f := range rep.Failures {
				fmt.Fprintf(e.stderr, "cardapio: %s\n", f)
			}
		}
		return failed(errors.New("diff failed"))
	}
	return nil
}
