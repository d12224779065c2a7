package cli

import (
	"errors"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/archive"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/digits"
)

func init() { commands = append(commands, newArchiveCmd) }

// newArchiveCmd moves a table's TTL deletions into its history table.
func newArchiveCmd(e *env) *cobra.Command {
	var o archive.Options
	var to endpoint.Options
	cmd := &cobra.Command{
		Use:   "archive --from TABLE --to TABLE",
		Short: "Move the items a table's TTL deletes into a history table, reading its stream",
		Long: `Archive reads the streams of the --from table and writes the old image of
every deletion made by its time to live (userIdentity Service,
dynamodb.amazonaws.com) into the --to table, whole. Deletions by users and
other changes are read and left alone. The stream must carry old images
(OLD_IMAGE or NEW_AND_OLD_IMAGES).

It reads a running engine (--endpoint-url, e.g. cardapio serve) or AWS
(--aws). Without --follow it stops once every shard is read to its end;
with it, it keeps reading until interrupted. --checkpoint FILE records the
position reached in every shard after each page archived, so that the
next run resumes there; without one each run reads the streams from their
oldest record (writing the same items again is harmless). A checkpoint
left behind the stream's 24-hour retention is an error (records were
trimmed before they were archived) unless --skip-gaps.

Exit codes: 0 ok; 1 an engine or AWS failure; 2 bad flags, a table that
does not exist or has no stream with old images, a checkpoint of another
run.`,
		Example: `  cardapio archive --endpoint-url http://127.0.0.1:8000 --from events --to events-history --checkpoint archive.json
  cardapio archive --aws --region sa-east-1 --from events --to events-history --follow`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to.EndpointURL == "" && !to.AWS {
				return badInput(errors.New("archive reads the stream of a running engine: give --endpoint-url (cardapio serve) or --aws"))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			to.Retry = endpoint.Standard
			tg, err := endpoint.Open(ctx, to)
			if err != nil {
				return badInput(err)
			}
			if o.Follow {
				o.Report = func(r archive.Result) { fmt.Fprintf(e.stderr, "archived %d so far\n", r.Archived) }
			}
			r, err := archive.Run(ctx, tg.Client, tg.Streams, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "archived %s deleted by TTL from %s into %s\nread %s in %s of %s; left alone %s by users and %s\n",
				digits.Count(r.Archived, "item"), o.From, o.To, digits.Count(r.Records, "stream record"), digits.Count(r.Shards, "shard"), digits.Count(r.Streams, "stream"),
				digits.Count(r.UserDeletes, "deletion"), digits.Count(r.Changes, "change"))
			if r.Gaps > 0 {
				fmt.Fprintf(e.stdout, "skipped %s: records trimmed before they were archived\n", digits.Count(r.Gaps, "gap"))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "", "the table whose TTL deletions are archived")
	f.StringVar(&o.To, "to", "", "the history table they are written to")
	f.StringVar(&o.Checkpoint, "checkpoint", "", "file recording the position reached in every shard, to resume from")
	f.BoolVar(&o.Follow, "follow", false, "keep reading until interrupted")
	rangeVar(f, &o.Poll, "poll", time.Second, between(time.Millisecond, time.Hour), "with --follow, the wait between reads when nothing is new")
	f.BoolVar(&o.SkipGaps, "skip-gaps", false, "go on from the oldest record kept when the checkpoint is behind the stream's retention")
	f.StringVar(&to.EndpointURL, "endpoint-url", "", "a DynamoDB-compatible server (cardapio serve)")
	f.BoolVar(&to.AWS, "aws", false, "Amazon DynamoDB (standard configuration chain)")
	f.StringVar(&to.Region, "region", "", "region of --aws or of the endpoint's signature")
	f.StringVar(&to.Profile, "profile", "", "shared configuration profile of --aws")
	return cmd
}
