package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/throughput"
)

func init() { commands = append(commands, newServeCmd) }

// serveConfig is what serve's flags set.
type serveConfig struct {
	sweep     time.Duration
	limits    bool // --throughput
	scale     float64
	warmRead  int64
	warmWrite int64
	lag       time.Duration
}

// newServeCmd runs the embedded engine as a DynamoDB endpoint.
func newServeCmd(e *env) *cobra.Command {
	var addr string
	c := serveConfig{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded DynamoDB-compatible engine on a local address",
		Long: `Run the embedded DynamoDB-compatible engine on a local address.

Any SDK or the AWS CLI can use it as an endpoint (any credentials).

With --throughput, requests pass DynamoDB's throughput limits as modelled
by the engine: each table and global secondary index is split into
partitions by key hash, each taking 1,000 write and 3,000 read units a
second; provisioned tables bank up to 300 s of unused capacity; on-demand
tables serve their warm throughput (--warm-write, --warm-read) or twice
their previous peak; an index that cannot take a write refuses the table
write (back-pressure). Refused requests fail with ThrottlingException
(on-demand) or ProvisionedThroughputExceededException (provisioned)
carrying ThrottlingReasons such as TableWriteKeyRangeThroughputExceeded
or IndexWriteKeyRangeThroughputExceeded, as on AWS. --throughput-scale
multiplies every capacity, so that with 0.01 local traffic meets the
limits 100 times the traffic meets on AWS.

The model's figures (per table, index and partition: consumed and
throttled units, per second and in total, rates, splits, the most
throttled keys) are served as JSON at GET ` + engine.ThroughputPath + ` on the same
address.

--gsi-lag delays every change to a global secondary index: a Query or
Scan of the index sees a write only that long after it, as DynamoDB's
asynchronous index propagation does. Reads of the table are never
delayed.`,
		Example: `  cardapio serve --addr 127.0.0.1:8000
  cardapio serve --throughput --throughput-scale 0.01 --gsi-lag 50ms
  curl http://127.0.0.1:8000` + engine.ThroughputPath,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if !c.limits {
				for _, n := range []string{"throughput-scale", "warm-read", "warm-write"} {
					if f.Changed(n) {
						return badInput(fmt.Errorf("--%s needs --throughput", n))
					}
				}
			}
			eng, err := newEngine(c)
			if err != nil {
				return badInput(err)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return badInput(fmt.Errorf("listen on %s: %w", addr, err))
			}
			return serve(ctx, ln, eng, e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8000", "address to listen on")
	f.DurationVar(&c.sweep, "ttl-sweep", 10*time.Second, "how often expired items are deleted")
	f.BoolVar(&c.limits, "throughput", false, "model DynamoDB's throughput limits: partitions, burst, on-demand scaling, throttling with ThrottlingReasons")
	f.Float64Var(&c.scale, "throughput-scale", 1, "multiply every capacity by this factor (0.01: local traffic meets the limits 100x the traffic meets on AWS)")
	f.Int64Var(&c.warmWrite, "warm-write", throughput.DefaultWarmWrite, "warm write throughput (units/s, AWS scale) of on-demand tables and indexes created without one")
	f.Int64Var(&c.warmRead, "warm-read", throughput.DefaultWarmRead, "warm read throughput (units/s, AWS scale) of on-demand tables and indexes created without one")
	f.DurationVar(&c.lag, "gsi-lag", 0, "delay before global secondary index reads see base-table writes (e.g. 50ms; 0: none)")
	return cmd
}

// newEngine builds the engine the flags describe.
func newEngine(c serveConfig) (*engine.Engine, error) {
	if c.lag < 0 {
		return nil, fmt.Errorf("--gsi-lag must not be negative, got %v", c.lag)
	}
	opts := engine.Options{TTLSweep: c.sweep, IndexLag: c.lag}
	if c.limits {
		if math.IsNaN(c.scale) || math.IsInf(c.scale, 0) || c.scale <= 0 {
			return nil, fmt.Errorf("--throughput-scale must be a positive number, got %v", c.scale)
		}
		if c.warmRead < 1 || c.warmWrite < 1 {
			return nil, fmt.Errorf("--warm-read and --warm-write must be at least 1, got %d and %d", c.warmRead, c.warmWrite)
		}
		m, err := throughput.New(throughput.Config{Scale: c.scale})
		if err != nil {
			return nil, err
		}
		opts.Throughput, opts.WarmRead, opts.WarmWrite = m, c.warmRead, c.warmWrite
	}
	return engine.New(opts), nil
}

// serve answers DynamoDB requests on ln until ctx ends, and the
// throughput model's figures at engine.ThroughputPath.
func serve(ctx context.Context, ln net.Listener, eng *engine.Engine, e *env) error {
	api, figures := eng.Handler(), eng.ThroughputHandler()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == engine.ThroughputPath {
			figures.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go eng.RunTTL(ctx)
	fmt.Fprintf(e.stdout, "cardapio engine listening on http://%s\n", ln.Addr())
	if s, ok := eng.Throughput(); ok {
		fmt.Fprintf(e.stdout, "throughput model on at scale %g; figures at http://%s%s\n", s.Scale, ln.Addr(), engine.ThroughputPath)
	}
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
