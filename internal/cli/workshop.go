package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/workshop"
)

func init() { commands = append(commands, newWorkshopCmd) }

type workshopOptions struct {
	addr  string
	items int
	seed  uint64
}

func newWorkshopCmd(e *env) *cobra.Command {
	o := &workshopOptions{}
	c := &cobra.Command{
		Use:   "workshop [model.yaml]",
		Short: "A live page of the model for the access-pattern workshop: findings, map, items, questions run, cost, what-ifs",
		Long: `Workshop serves a page of the model (./model.yaml by default) on a loopback
address and prints its URL, which carries a random token: the page is
refused without it (the first visit keeps it in a cookie), and to any
Host but the loopback address served.

The page follows the file as the team edits it in its own editor: on
every save the model is checked again and the page updates without a
reload. It shows the findings with their lines (open one to see the text
around it); the access-pattern map (each question, the structure that
answers it, the ones nothing answers, the ones sent outside the table);
the items as DynamoDB stores them, in the table and each index, drawn
from a small generated population (--items; the samples when the model
declares none) on the embedded engine, grouped by partition and sorted by
sort key, an index holding only the items and attributes it projects,
each item with its size and units, and every entity's states (its
samples) side by side; the budgets, the peak gate's hottest partitions
and the month's cost per operation. The verdict's sections update first,
the month and the items when drawn.

Ask a question: pick an access pattern's operation or a write, fill its
parameters (values from the population are suggested), and run it on the
embedded engine holding that population (a fresh one each run): each
request's items and units, and for a write each item and index entry it
changed, before and after (by default from the state its budget variant
starts from, as budget runs it). What if: change a shard count, a projection, a read's consistency
or a table's billing mode and see the cost, budgets and hot partitions
change; the write button makes the same change in the file, comments kept.
The page reads no file but the model and writes nothing else.

Stop it with Ctrl-C.

Exit codes: 0 stopped; 2 the model cannot be read, or a flag is invalid
(an --addr not on loopback).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := "model.yaml"
			if len(args) == 1 {
				path = args[0]
			}
			if err := workshop.CheckAddr(o.addr); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return runWorkshop(ctx, e, o, path)
		},
	}
	c.Flags().StringVar(&o.addr, "addr", "127.0.0.1:0", "loopback address to listen on (port 0: a free one)")
	rangeVar(c.Flags(), &o.items, "items", workshop.DefaultItems, between(1, workshop.MaxItems), "about how many items the generated population holds")
	c.Flags().Uint64Var(&o.seed, "seed", 1, "seed of the generated population")
	return c
}

func runWorkshop(ctx context.Context, e *env, o *workshopOptions, path string) error {
	s, err := workshop.New(ctx, workshop.Options{Path: path, Load: parseModel, World: workshop.WorldOptions{Items: o.items, Seed: o.seed}, Log: e.stderr})
	if err != nil {
		return err
	}
	ln, err := s.Listen(o.addr)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	fmt.Fprintf(e.stdout, "cardapio workshop: %s\nopen %s\n", path, s.URL())
	return <-done
}
