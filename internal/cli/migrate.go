package cli

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/migrate"
)

func init() { commands = append(commands, newMigrateCmd) }

func newMigrateCmd(e *env) *cobra.Command {
	var stdout bool
	c := &cobra.Command{
		Use:   "migrate [model.yaml]",
		Short: "Upgrade a model to the current format version, in place, comments kept",
		Long: `Migrate rewrites a model (./model.yaml by default) of an older format
version as the current one, changing only what the new version changed:
every comment, blank line and folded text stays as it was. It prints what
it changed and how to say the rest in the new format, then loads the
result as check does.

From formatVersion 1: scale.contracts becomes scale.businessUnit, paydays
become scale.peaks, and the other counts and shares of scale move to
figures, to be re-expressed as populations, skews and value shares. In
any version, a scenario load's tenant becomes focus (or is dropped where
it pins nothing).

--stdout prints the migrated model instead of writing the file.

Exit codes: 0 migrated (or already current) and valid; 2 the file cannot be
read or migrated, or the migrated model has errors (listed as check lists
them; the file is written all the same).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			data, err := readCapped(path)
			if err != nil {
				return badInput(err)
			}
			out, notes, err := migrate.Migrate(path, data)
			if err != nil {
				return badInput(err)
			}
			w := e.stderr
			switch {
			case !stdout && bytes.Equal(out, data):
				w = e.stdout // already current: the file is left as it is
			case !stdout:
				w = e.stdout
				// Through files.Write: whole or not at all, synced, a
				// symlink kept and its target replaced.
				if err := files.Write(path, out); err != nil {
					return badInput(err)
				}
			default:
				_, _ = e.stdout.Write(out)
			}
			for _, n := range notes {
				fmt.Fprintf(w, "%s: %s\n", path, n)
			}
			var errs catalog.ErrorList
			if _, err := catalog.Parse(path, out); errors.As(err, &errs) {
				fmt.Fprintln(e.stderr, errs.Error())
				return reported(ExitBadInput, errs)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&stdout, "stdout", false, "print the migrated model instead of writing the file")
	return c
}

// readCapped reads a model, refusing more than the catalog reads.
func readCapped(path string) ([]byte, error) {
	return files.ReadCapped(path, catalog.MaxInputBytes, "a model")
}
