//go:build unix

package loadgen

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
)

// BenchmarkArrival is the client's cost of one arrival of bench/load.sh's
// load (GetOrder on a random order) against the embedded engine: runner
// takes the arrival as the scheduler makes it and runs it as a worker
// does (its subject found again, its parameters, the executor, the
// figures), keeping the subjects it found as a load that draws at random
// does; regenerate finds each subject by generating its tree again, as a
// load that takes each subject once does; raw sends the same GetItem
// through the same client, as the raw SDK loop of bench/load.sh does.
// What runner costs over raw is what the runner adds to every request.
// Besides the wall time, each reports the process's CPU time an arrival
// (cpu-ns/op, the collector's included), the figure to read on a machine
// shared with other work.
func BenchmarkArrival(b *testing.B) {
	m, err := catalog.Load("../examples/orders/model.yaml")
	if err != nil {
		b.Fatal(err)
	}
	f, err := catalog.LoadScenarioFile(m, "../bench/load-get.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var r *runner
	numbered = func(x *runner) { r = x }
	defer func() { numbered = nil }()
	// A short run sets the runner up (tables, population, subjects) and
	// keeps its tables; the benchmark then runs arrivals of its own.
	if _, err := Run(context.Background(), m, Options{Scenario: "bench-get", File: f, Scale: 1, Population: 0.0001, Seed: 1,
		Duration: 10 * time.Millisecond, MaxInflight: 64, Keep: true, Target: endpoint.Options{Retry: endpoint.NoRetry}}); err != nil {
		b.Fatal(err)
	}
	if r == nil || len(r.loads) != 1 || r.loads[0].subjectCount() == 0 {
		b.Fatal("the run numbered no subjects")
	}
	r.runCtx = context.Background()
	l := r.loads[0]
	l.pacer = NewPacer(l.item.RunShape(time.Hour), r.factor)

	run := func(b *testing.B) {
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for i := 0; b.Loop(); i++ {
			ev := r.arrivalEvent(l, int64(i))
			if ev == nil {
				b.Fatalf("no arrival %d", i)
			}
			r.execute(ev.a, l.stats)
		}
		if n := l.stats.outcomes["applied"]; n == 0 {
			b.Fatalf("no arrival applied: %v", l.stats.outcomes)
		}
	}
	// A run's arrivals outnumber its subjects (60 to 1 in
	// bench/load.sh): runner measures the kept subjects' steady state.
	for j := range min(l.subjectCount(), foundCacheSize) {
		if _, err := r.subjectOf(l, j); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("runner", run)
	// regenerate finds every subject by generating its tree again, as
	// a load that takes each subject once does.
	found := r.subs.found
	r.subs.found = map[int]*foundCache{}
	b.Run("regenerate", run)
	r.subs.found = found

	// The keys of the subjects, as the raw loop reads them from a scan.
	var keys []map[string]types.AttributeValue
	for j := range min(l.subjectCount(), 2000) {
		c, err := r.subject(l, j)
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, attr.ToSDKItem(c.Items[0].Key))
	}
	table := aws.String(r.tables[l.plan.Subjects.Entity.Table.Name])
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		defer cpuPerOp(b)()
		for i := 0; b.Loop(); i++ {
			out, err := r.api.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: table, Key: keys[i%len(keys)],
				ReturnConsumedCapacity: types.ReturnConsumedCapacityIndexes})
			if err != nil || len(out.Item) == 0 {
				b.Fatalf("GetItem: %v", err)
			}
		}
	})
}

// cpuPerOp starts counting the process's CPU time; the function it
// returns reports it per iteration.
func cpuPerOp(b *testing.B) func() {
	t0 := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
