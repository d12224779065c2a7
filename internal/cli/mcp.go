package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/internal/mcpserver"
)

func init() { commands = append(commands, newMCPCmd) }

func newMCPCmd(e *env) *cobra.Command {
	var root string
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve check, cost, budget, plan and item sizes to AI assistants (Model Context Protocol, stdio)",
		Long: `Mcp serves cardapio to an AI assistant over the Model Context Protocol,
on stdin and stdout (the stdio transport: the assistant starts the
command and talks JSON-RPC to it, one message a line).

Tools: check (validate, map, review, the static gate), cost (a month in
US$), budget (every operation measured on the embedded engine, in
process), plan (a scenario of the model at full scale) and capacity_item
(an item's size and units). Each takes the model's path and returns the
command's --format json document as structured content: verdicts, units,
and every error and finding at its file, line and column. A model that
does not load, a path that cannot be read and a bad argument are tool
errors (isError) with the positioned errors, not protocol failures.
Resources: cardapio://docs/model-format.md (the format's reference) and
cardapio://schema/model.schema.json (its JSON Schema).

Paths are read under --root (the working directory by default): a path
that leads out of it, by "..", an absolute path or a symbolic link, is
refused, and so is anything but a regular file of at most 10 MiB. The
server writes nothing; one tool runs at a time.

It serves until stdin ends (every call read by then is answered) or it is
interrupted. Exit codes: 0 the session ended; 2 --root cannot be opened;
1 the transport failed.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			s, err := mcpserver.New(mcpserver.Options{Root: root, Parse: parseModel})
			if err != nil {
				return badInput(err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = s.Run(ctx, mcpserver.Drain(&mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}))
			if err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		},
	}
	c.Flags().StringVar(&root, "root", "", "the directory whose files the tools may read (default: the working directory)")
	return c
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
