package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/engine"
)

func init() { commands = append(commands, newServeCmd) }

// newServeCmd runs the embedded engine as a DynamoDB endpoint.
func newServeCmd(e *env) *cobra.Command {
	var addr string
	var sweep time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded DynamoDB-compatible engine on a local address",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return badInput(fmt.Errorf("listen on %s: %w", addr, err))
			}
			return serve(ctx, ln, engine.New(engine.Options{TTLSweep: sweep}), e)
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	cmd.Flags().DurationVar(&sweep, "ttl-sweep", 10*time.Second, "how often expired items are deleted")
	return cmd
}

// serve answers DynamoDB requests on ln until ctx ends.
func serve(ctx context.Context, ln net.Listener, eng *engine.Engine, e *env) error {
	srv := &http.Server{Handler: eng.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go eng.RunTTL(ctx)
	fmt.Fprintf(e.stdout, "cardapio engine listening on http://%s\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-done:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
