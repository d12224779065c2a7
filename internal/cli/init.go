package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/reports"
	"github.com/cardapio/cardapio/scaffold"
)

func init() { commands = append(commands, newInitCmd) }

type initOptions struct {
	table string
	name  string
	out   string
	force bool
}

func newInitCmd(e *env) *cobra.Command {
	o := &initOptions{}
	c := &cobra.Command{
		Use:   "init [QUESTIONS.md|QUESTIONS.csv]",
		Short: "Start a model from the workshop's table of questions, or an empty one",
		Long: `Init starts a model.yaml. Given the access-pattern workshop's table of
questions (a Markdown table, or CSV with commas, semicolons or tabs, with
the columns ID, question, asked by and rate/shape, headers in English or
Portuguese: ID, Pergunta, Quem pergunta, Velocidade / forma; Consistency
or Consistência, Latency and If wrong are read too), it writes a
commented draft: one access pattern per question with who asks it, its
rate carried into velocity (120/s, 2.000 por dia, 5k/min, ~2M items in
< 20 min, peaks ~800 req/s; the shape as written kept as its note), its
latency and consistency, and a TODO where a design decision is needed:
the structure that answers each question, a rate the table does not give
(under decisions), who asks when nobody is named.

A question goes outside the table (notAnswered, with where and why) when
its row says so (NOT in DynamoDB, fora do DynamoDB) or when its words are
those of an aggregation over everything (report, relatório, dashboard,
aging, roll rate, analytics, KPI, average, sum of...: the S3 export and
Athena) or of a free-text search (full-text, free filters, any field: a
search engine). The team confirms each.

Without a table, --name NAME starts an empty model that checks: one
table, one entity, one question and the operation that runs it.

Init then checks what it wrote and lists what check finds: for a draft,
one error per question still to design, and nothing else.

It never replaces a file: an existing --out is refused (exit 2) unless
--force.

Exit codes: 0 written and checked as expected; 2 the table cannot be
read (errors at file:line), a bad --name, or --out exists; 1 check found
in the written model something init did not expect.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.table = args[0]
			}
			return runInit(e, o)
		},
	}
	c.Flags().StringVar(&o.name, "name", "", "the model's name (default: the table file's name; required without a table)")
	c.Flags().StringVar(&o.out, "out", "model.yaml", "the model file to write; never replaced unless --force")
	c.Flags().BoolVar(&o.force, "force", false, "replace --out if it exists")
	return c
}

func runInit(e *env, o *initOptions) error {
	d := &scaffold.Draft{Name: o.name}
	if o.table == "" {
		if o.name == "" {
			return badInput(errors.New("init needs a question table or --name NAME (an empty model)"))
		}
		if err := scaffold.CheckName(o.name); err != nil {
			return err
		}
	} else {
		data, err := files.ReadCapped(o.table, scaffold.MaxTableBytes, "a question table")
		if err != nil {
			return badInput(err)
		}
		t, err := scaffold.Parse(o.table, data)
		if err != nil {
			return err
		}
		if o.name == "" {
			o.name = scaffold.NameFrom(o.table)
		}
		if d, err = scaffold.FromTable(o.name, t); err != nil {
			return err
		}
		if len(t.Ignored) > 0 {
			fmt.Fprintf(reports.TextOut(e.stderr), "%s: columns not read: %s\n", o.table, strings.Join(t.Ignored, ", "))
		}
	}
	write := files.WriteNew
	if o.force {
		write = files.Write
	}
	if err := write(o.out, d.YAML()); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return badInput(fmt.Errorf("%s exists: init never replaces a file\nhint: --out NEW.yaml, or --force to replace it", o.out))
		}
		return badInput(err)
	}
	out := reports.TextOut(e.stdout)
	if o.table == "" {
		fmt.Fprintf(out, "wrote %s: an empty model %s; check:\n\n", o.out, o.name)
		return runCheck(e, &checkOptions{path: o.out, format: "text"})
	}
	fmt.Fprintf(out, "wrote %s: %d questions from %s\n", o.out, len(d.Patterns), o.table)
	fmt.Fprintf(out, "  to design (TODO: the structure that answers each): %s\n", list(d.Pending()))
	fmt.Fprintf(out, "  outside the table (notAnswered; TODO: confirm): %s\n", list(d.Outsiders()))
	fmt.Fprintf(out, "  no rate the format takes (TODO under decisions): %s\n", list(d.Unrated()))
	fmt.Fprintf(out, "  the rule for outside the table: %s\n", scaffold.OutsideRule)
	_, err := readModel(o.out)
	var errs catalog.ErrorList
	if err != nil && !errors.As(err, &errs) {
		return err
	}
	expected, other, missing := d.Expected(errs)
	fmt.Fprintf(out, "\ncheck %s: %d errors, one per question to design, as expected:\n", o.out, len(expected))
	for _, x := range expected {
		fmt.Fprintf(out, "  %s: %s: %s\n", x.Pos, x.Path, x.Msg)
	}
	if len(other) > 0 || len(missing) > 0 {
		for _, x := range other {
			fmt.Fprintf(e.stderr, "%s\n", x.Error())
		}
		return fmt.Errorf("check finds in %s what init did not expect (%d other errors; not found: %s)", o.out, len(other), list(missing))
	}
	if err == nil && len(d.Pending()) == 0 {
		fmt.Fprintf(out, "\nno question left to design: check:\n\n")
		return runCheck(e, &checkOptions{path: o.out, format: "text"})
	}
	fmt.Fprintf(out, "\nnext: give each its answer (docs/model-format.md#access-patterns), then cardapio check %s\n", o.out)
	return nil
}

// list writes ids for a line of output, "none" when empty.
func list(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
