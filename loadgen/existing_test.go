package loadgen

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset/output"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/engine"
	"github.com/cardapio/cardapio/internal/input"
)

// writeCounter stands before an engine and notes the time of every write
// request it receives.
type writeCounter struct {
	h  http.Handler
	mu sync.Mutex
	at []time.Time
}

func (w *writeCounter) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	switch op := r.Header.Get("X-Amz-Target"); {
	case strings.HasSuffix(op, ".PutItem"), strings.HasSuffix(op, ".UpdateItem"), strings.HasSuffix(op, ".DeleteItem"),
		strings.HasSuffix(op, ".BatchWriteItem"), strings.HasSuffix(op, ".TransactWriteItems"):
		w.mu.Lock()
		w.at = append(w.at, time.Now())
		w.mu.Unlock()
	}
	w.h.ServeHTTP(rw, r)
}

// writesBefore counts the writes before t, and all of them.
func (w *writeCounter) writesBefore(t time.Time) (before, all int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, at := range w.at {
		if at.Before(t) {
			before++
		}
	}
	return before, len(w.at)
}

// marker notes when the run's log first says a line holding mark.
type marker struct {
	mark string
	mu   sync.Mutex
	at   time.Time
}

func (m *marker) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.at.IsZero() && bytes.Contains(p, []byte(m.mark)) {
		m.at = time.Now()
	}
	return len(p), nil
}

// serveCounted starts an engine behind a write counter.
func serveCounted(t *testing.T) (*writeCounter, string) {
	wc := &writeCounter{h: engine.New(engine.Options{}).Handler()}
	s := httptest.NewServer(wc)
	t.Cleanup(s.Close)
	return wc, s.URL
}

type existingCase struct {
	name, model, file, scenario string
	pop                         float64
	asOf                        string
}

var existingCases = []existingCase{
	{"reference", "../model.yaml", "../examples/midnight-peak.yaml", "midnight-peak", 0.0001, "2026-09-24"},
	{"orders", "../examples/orders/model.yaml", "", "month-end-lookups", 0.0002, "2026-01-01"},
}

func (c existingCase) load(t *testing.T) (*catalog.Model, *catalog.ScenarioFile) {
	t.Helper()
	m, err := catalog.Load(c.model)
	if err != nil {
		t.Fatal(err)
	}
	var f *catalog.ScenarioFile
	if c.file != "" {
		if f, err = catalog.LoadScenarioFile(m, c.file); err != nil {
			t.Fatal(err)
		}
	}
	return m, f
}

func (c existingCase) options(f *catalog.ScenarioFile, url string) Options {
	asOf, _ := time.Parse("2006-01-02", c.asOf)
	return Options{Scenario: c.scenario, File: f, Scale: c.pop * 10, Population: c.pop, Seed: 5, AsOf: asOf,
		Target: endpoint.Options{EndpointURL: url, Retry: endpoint.NoRetry}, TablePrefix: "pop-"}
}

// writePopulation writes the population with cardapio data's loader,
// as an S3 import would, under the prefix pop-.
func writePopulation(t *testing.T, m *catalog.Model, c existingCase, url string, seed uint64) {
	t.Helper()
	_, err := output.Execute(context.Background(), m, output.Config{Scale: c.pop, Seed: seed, AsOf: c.asOf, EndpointURL: url,
		TablePrefix: "pop-", CreateTables: true, Keys: "native"})
	if err != nil {
		t.Fatal(err)
	}
}

// outcomes is what a run's arrivals ended with, by load.
func outcomes(s *Summary) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for name, ls := range s.Operations {
		out[name] = ls.Outcomes
	}
	return out
}

// A run against tables that already hold the population (written by
// cardapio data's loader) sends no write before its first arrival, and
// its arrivals end as those of a run that writes the population itself:
// the subjects and every value are the generator's either way.
func TestExistingWritesNothingBeforeArrivals(t *testing.T) {
	for _, c := range existingCases {
		t.Run(c.name, func(t *testing.T) {
			m, f := c.load(t)
			wc, url := serveCounted(t)
			writePopulation(t, m, c, url, 5)
			began := time.Now()
			_, loaded := wc.writesBefore(began)
			if loaded == 0 {
				t.Fatal("the population was not written")
			}
			mk := &marker{mark: "; running "}
			o := c.options(f, url)
			o.Existing, o.Log = true, mk
			got, err := Run(context.Background(), m, o)
			if err != nil {
				t.Fatal(err)
			}
			before, all := wc.writesBefore(mk.at)
			if mk.at.IsZero() || before != loaded {
				t.Errorf("%d writes before the first arrival against existing tables; want none", before-loaded)
			}
			if all == loaded {
				t.Errorf("the run wrote nothing at all: its arrivals did not run (%+v)", got.Operations)
			}
			if !got.Population.Existing || got.Population.Verified == 0 || got.Population.WriteUnits != 0 {
				t.Errorf("population stats %+v: want existing, verified, nothing written", got.Population)
			}

			// The same run, writing the population itself.
			_, url2 := serveCounted(t)
			o2 := c.options(f, url2)
			o2.TablePrefix = ""
			want, err := Run(context.Background(), m, o2)
			if err != nil {
				t.Fatal(err)
			}
			if want.Population.WriteUnits == 0 {
				t.Errorf("the writing run says it wrote no units: %+v", want.Population)
			}
			if d := cmp.Diff(outcomes(want), outcomes(got)); d != "" {
				t.Errorf("outcomes against existing tables differ from a run that writes the population (-writes +existing):\n%s", d)
			}
			if d := cmp.Diff(want.Population.Subjects, got.Population.Subjects); d != "" {
				t.Errorf("subjects differ (-writes +existing):\n%s", d)
			}
			if len(got.Invariants) != len(want.Invariants) {
				t.Fatalf("%d invariants checked, want %d", len(got.Invariants), len(want.Invariants))
			}
			for i, v := range got.Invariants {
				if v.Violations != 0 || want.Invariants[i].Violations != 0 {
					t.Errorf("%s: %d violations against existing tables, %d writing (%+v)", v.Name, v.Violations, want.Invariants[i].Violations, v.Details)
				}
			}
		})
	}
}

// Tables that hold another population (another seed), or none, are
// refused before anything is sent, as bad input.
func TestExistingRefusesAnotherPopulation(t *testing.T) {
	c := existingCases[1]
	m, f := c.load(t)
	wc, url := serveCounted(t)
	o := c.options(f, url)
	o.Existing = true
	_, err := Run(context.Background(), m, o)
	if !input.Is(err) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("no tables: got %v, want a bad-input error saying the table does not exist", err)
	}
	writePopulation(t, m, c, url, 6)
	_, loaded := wc.writesBefore(time.Now())
	_, err = Run(context.Background(), m, o)
	if !input.Is(err) || !strings.Contains(err.Error(), "do not hold the population") {
		t.Fatalf("another seed: got %v, want a bad-input error saying the tables do not hold the population", err)
	}
	if _, all := wc.writesBefore(time.Now()); all != loaded {
		t.Errorf("a refused run wrote %d times", all-loaded)
	}
}

// throttleFirst throttles the first n batch writes it sees
// (ThrottlingException, as DynamoDB answers), then hands every request to
// the engine.
type throttleFirst struct {
	h  http.Handler
	mu sync.Mutex
	n  int
}

func (th *throttleFirst) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".BatchWriteItem") {
		th.mu.Lock()
		throttle := th.n > 0
		th.n--
		th.mu.Unlock()
		if throttle {
			rw.Header().Set("Content-Type", "application/x-amz-json-1.0")
			rw.WriteHeader(http.StatusBadRequest)
			_, _ = rw.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Throughput exceeds the current capacity of your table or index."}`))
			return
		}
	}
	th.h.ServeHTTP(rw, r)
}

// The population's writes ride out throttles on their own retries: a run
// whose policy sends each request once (--retry-attempts 1, to see every
// throttle of the measured requests) still sets up, and says how many
// writes were throttled.
func TestSetupRetriesOnItsOwn(t *testing.T) {
	c := existingCases[1]
	m, f := c.load(t)
	s := httptest.NewServer(&throttleFirst{h: engine.New(engine.Options{}).Handler(), n: 40})
	t.Cleanup(s.Close)
	o := c.options(f, s.URL)
	o.TablePrefix = ""
	sum, err := Run(context.Background(), m, o)
	if err != nil {
		t.Fatalf("a throttled setup failed the run: %v", err)
	}
	if sum.Population.Throttled == 0 || sum.Population.Items == 0 || sum.Population.WriteUnits == 0 {
		t.Errorf("population %+v: want items written, their units, and the throttles counted", sum.Population)
	}
}

// --part auto/n takes the part from the scheduler's variable, Kubernetes'
// first; a missing or out-of-range index is bad input.
func TestParsePart(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		s    string
		env  map[string]string
		i, n int
		err  string
	}{
		{"2/4", nil, 2, 4, ""},
		{"auto/4", map[string]string{EnvK8sIndex: "3"}, 3, 4, ""},
		{"auto/8", map[string]string{EnvBatchIndex: "5"}, 5, 8, ""},
		{"auto/8", map[string]string{EnvK8sIndex: "1", EnvBatchIndex: "5"}, 1, 8, ""},
		{"auto/4", nil, 0, 0, "neither"},
		{"auto/4", map[string]string{EnvK8sIndex: "4"}, 0, 0, "not an index from 0 to 3"},
		{"auto/4", map[string]string{EnvBatchIndex: "x"}, 0, 0, "AWS_BATCH_JOB_ARRAY_INDEX"},
		{"4/4", nil, 0, 0, "--part must be"},
		{"1/0", nil, 0, 0, "--part must be"},
	} {
		i, n, err := ParsePart(tc.s, env(tc.env))
		if tc.err != "" {
			if err == nil || !input.Is(err) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %v: got %v, want bad input saying %q", tc.s, tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || i != tc.i || n != tc.n {
			t.Errorf("%s %v: got %d/%d %v, want %d/%d", tc.s, tc.env, i, n, err, tc.i, tc.n)
		}
	}
	if got := PartPath("/results/part-{part}.jsonl", 7); got != "/results/part-7.jsonl" {
		t.Errorf("PartPath: %s", got)
	}
}

// The record of what a run touched spills to disk past touchedHold
// records a set: held three at a time, it checks the same items, trees
// and verdicts as held whole.
func TestExistingTouchedSpills(t *testing.T) {
	c := existingCases[0]
	m, f := c.load(t)
	run := func(hold int) *Summary {
		old := touchedHold
		touchedHold = hold
		defer func() { touchedHold = old }()
		_, url := serveCounted(t)
		writePopulation(t, m, c, url, 5)
		o := c.options(f, url)
		o.Existing = true
		sum, err := Run(context.Background(), m, o)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	whole, spilled := run(1<<30), run(3)
	note := func(s *Summary) string {
		for _, n := range s.Notes {
			if strings.HasPrefix(n, "invariants checked on the ") {
				return n
			}
		}
		t.Fatalf("no note of the items checked: %q", s.Notes)
		return ""
	}
	t.Log(note(spilled))
	if d := cmp.Diff(note(whole), note(spilled)); d != "" {
		t.Errorf("the items checked differ (-whole +spilled):\n%s", d)
	}
	if d := cmp.Diff(outcomes(whole), outcomes(spilled)); d != "" {
		t.Fatalf("the runs differ (-whole +spilled):\n%s", d)
	}
	if d := cmp.Diff(whole.Invariants, spilled.Invariants); d != "" {
		t.Errorf("the verdicts differ (-whole +spilled):\n%s", d)
	}
}
