package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/generator"
	"github.com/cardapio/cardapio/internal/files"
)

func init() { commands = append(commands, newImportCmd) }

func newImportCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "import",
		Short: "Start a model from another tool's file",
	}
	var out string
	wb := &cobra.Command{
		Use:   "workbench FILE",
		Short: "Turn a NoSQL Workbench data model into a starting model.yaml",
		Long: `Import workbench reads a NoSQL Workbench data model (JSON, version 3.0)
and prints a starting model.yaml: the tables with their keys and billing,
one entity per facet with key templates read from its key aliases
(USER#<id> and USER#{id} become placeholders, capitalised words literals),
the attributes with their types, the global secondary indexes, and the
table data as samples where it fits the templates. Access patterns are
left for the workshop to write: the model starts with one read by key per
entity. The output loads with cardapio check.

The model goes to stdout, or to --out FILE. Errors go to stderr as
file:line:column lines.

Exit codes: 0 ok; 2 the file cannot be read, is larger than 16 MiB, or is
not a Workbench model.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			data, err := files.ReadCapped(args[0], generator.MaxWorkbenchBytes, "a NoSQL Workbench model")
			if err != nil {
				return badInput(err)
			}
			model, err := generator.ImportWorkbench(args[0], data)
			if err != nil {
				if generator.IsImportError(err) {
					fmt.Fprintln(e.stderr, err)
					return reported(ExitBadInput, err)
				}
				return err
			}
			if out == "" {
				_, err = e.stdout.Write(model)
				return err
			}
			return files.Write(out, model)
		},
	}
	wb.Flags().StringVar(&out, "out", "", "write the model to FILE instead of stdout")
	c.AddCommand(wb)
	return c
}
