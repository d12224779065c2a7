package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/executor"
)

// BenchmarkReferencePass runs every operation and variant of model.yaml
// once in process, each on fresh tables of a fresh embedded engine
// (create, seed, run, delete): one full pass of what the budget gate
// measures. The seed and run shares are reported.
func BenchmarkReferencePass(b *testing.B) {
	m := load(b, "../model.yaml")
	ctx := context.Background()
	vs := variants(m)
	var seed, run time.Duration
	for b.Loop() {
		for _, ov := range vs {
			tg, err := endpoint.Open(ctx, endpoint.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ts, err := tg.CreateTables(ctx, m, endpoint.TableOptions{Prefix: "b-", Keys: catalog.KeysNative})
			if err != nil {
				b.Fatal(err)
			}
			x := executor.New(m, tg.Client, executor.Options{Tables: ts.Names(), Loader: tg})
			in := executor.Input{Operation: ov[0], Variant: ov[1]}
			t0 := time.Now()
			s, err := x.Seed(ctx, in)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			in.Before = s.Before
			if _, err := x.Run(ctx, in); err != nil {
				b.Fatal(err)
			}
			seed += t1.Sub(t0)
			run += time.Since(t1)
		}
	}
	b.ReportMetric(float64(seed.Milliseconds())/float64(b.N), "seed-ms/pass")
	b.ReportMetric(float64(run.Milliseconds())/float64(b.N), "run-ms/pass")
}
