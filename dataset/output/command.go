package output

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/input"
)

// Config is everything `cardapio data` is asked, before anything is
// opened: the command fills it from flags and calls Execute with the
// model it loaded.
type Config struct {
	Scale       float64
	Seed        uint64
	AsOf        string // YYYY-MM-DD, "" for the model's
	Part        string // i/n, "" for the whole
	Workers     int
	Out         string
	Format      string
	Compression string
	// Targets: at most one of Serve, EndpointURL, AWS.
	Serve        bool
	Addr         string // with Serve: keep serving the loaded engine here
	EndpointURL  string
	AWS          bool
	Region       string
	Profile      string
	TablePrefix  string
	CreateTables bool
	Keys         string
	Concurrency  int
	Rate         float64
	Resume       bool
	Checkpoint   string
	Progress     io.Writer
	Terminal     bool
	// Ready, when set, is told the address the loaded engine serves on.
	Ready func(addr string)
}

func bad(format string, args ...any) error { return input.Errorf(format, args...) }

// ParsePart reads "i/n" (0 <= i < n).
func ParsePart(s string) (int, int, error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n || n > 1_000_000 {
		return 0, 0, bad("--part %q: want i/n with 0 <= i < n, for example 0/4", s)
	}
	return i, n, nil
}

// Execute runs a Config on model m: opens the target, creates its tables
// when asked, produces the population and returns the report.
func Execute(ctx context.Context, m *catalog.Model, c Config) (*Report, error) {
	part, parts, err := ParsePart(c.Part)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, b := range []bool{c.Out != "", c.Serve, c.EndpointURL != "", c.AWS} {
		if b {
			n++
		}
	}
	if n != 1 {
		return nil, bad("choose one destination: --out DIR, --serve, --endpoint-url URL or --aws")
	}
	if c.Addr != "" && !c.Serve {
		return nil, bad("--addr needs --serve")
	}
	if c.Out == "" && (c.Format != "" && c.Format != "s3-import" || c.Compression != "" && c.Compression != "zstd") {
		return nil, bad("--format and --compression apply to --out")
	}
	if c.Out != "" && (c.Resume || c.Rate > 0) {
		return nil, bad("--resume and --rate apply to a load (--serve, --endpoint-url, --aws)")
	}
	if c.Format == "" {
		c.Format = "s3-import"
	}
	if c.Compression == "" {
		c.Compression = "zstd"
	}
	if c.Format != "s3-import" && c.Format != "jsonl" {
		return nil, bad("--format %q: want s3-import or jsonl", c.Format)
	}
	if c.Compression != "zstd" && c.Compression != "gzip" && c.Compression != "none" {
		return nil, bad("--compression %q: want zstd, gzip or none", c.Compression)
	}
	if c.Scale <= 0 {
		return nil, bad("--scale must be positive, not %g", c.Scale)
	}
	if c.Rate < 0 || c.Concurrency < 0 || c.Workers < 0 {
		return nil, bad("--rate, --concurrency and --workers cannot be negative")
	}
	var asOf time.Time
	if c.AsOf != "" {
		t, err := time.Parse("2006-01-02", c.AsOf)
		if err != nil {
			return nil, bad("--as-of %q: want a civil date YYYY-MM-DD", c.AsOf)
		}
		asOf = t
	}
	// The run's memory is bounded by construction (a few blocks in
	// flight): collect garbage against a soft limit rather than at every
	// doubling of a small heap, which costs a generator of short-lived
	// items a large share of its CPU.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(256 << 20))
	p, err := dataset.New(m, dataset.Options{Scale: c.Scale, Seed: c.Seed, AsOf: asOf})
	if err != nil {
		return nil, input.Wrap(err)
	}
	rq := Request{Options: p.Opts, Part: part, Parts: parts, Workers: c.Workers, Out: c.Out, Format: c.Format,
		Compression: c.Compression, Concurrency: c.Concurrency, Rate: c.Rate, Checkpoint: c.Checkpoint, Resume: c.Resume,
		Progress: c.Progress, Terminal: c.Terminal, Prices: estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing)}
	if c.Out != "" {
		return Produce(ctx, p, rq)
	}
	// A load: an explicit retry policy (the SDK's default changed in
	// v1.48); unprocessed items are retried by the loader on top of it.
	tg, err := endpoint.Open(ctx, endpoint.Options{EndpointURL: c.EndpointURL, AWS: c.AWS, Region: c.Region, Profile: c.Profile,
		Retry: dataset.LoadRetry, HTTPClient: dataset.LoadHTTPClient(c.Concurrency)})
	if err != nil {
		return nil, input.Wrap(err)
	}
	defer tg.Close()
	rq.Target = tg
	create := c.CreateTables || c.Serve
	if create {
		keys, err := catalog.ParseKeyMode(c.Keys)
		if err != nil {
			return nil, input.Wrap(err)
		}
		if keys == catalog.KeysSynthetic {
			return nil, bad("--keys synthetic: the population is written with the model's natural index keys; use native or auto on a target with multi-attribute keys")
		}
		prefix := c.TablePrefix
		ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: prefix, ModelNames: prefix == "", Keys: keys})
		if err != nil {
			return nil, err
		}
		if ts.Keys == catalog.KeysSynthetic {
			return nil, errors.New("the target has no multi-attribute index keys (it took the synthetic fallback): load it with a target that does, or import from S3")
		}
		rq.Tables = ts.Names()
	} else if c.TablePrefix != "" {
		rq.Tables = map[string]string{}
		for _, t := range m.Tables {
			rq.Tables[t.Name] = c.TablePrefix + t.Name
		}
	}
	rep, err := Produce(ctx, p, rq)
	if err != nil {
		return nil, err
	}
	if c.Serve && c.Addr != "" {
		if err := serveLoaded(ctx, tg, c.Addr, c.Ready); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// serveLoaded serves the loaded embedded engine on addr until ctx ends.
func serveLoaded(ctx context.Context, tg *endpoint.Target, addr string, ready func(string)) error {
	if tg.Engine == nil {
		return errors.New("--addr serves the embedded engine (--serve)")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return bad("listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: tg.Engine.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr().String())
	}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
