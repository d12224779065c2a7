package throughput

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
)

// Model is the throughput model of a set of tables. It is safe for
// concurrent use: each table has its own lock, held for the few hundred
// nanoseconds an admission takes.
type Model struct {
	c config

	mu     sync.RWMutex
	tables map[string]*table

	plans   sync.Pool // *plan, for AdmitAll
	batches sync.Pool // *batch, for AdmitSecond
	// batchGen numbers every AdmitSecond, so that a resource's batch
	// references are never taken for the current batch's when the pool
	// hands out a new batch (its own count would start again).
	batchGen atomic.Uint64
}

// table is a base table and its global secondary indexes, under one lock
// because a write charges both at once.
type table struct {
	mu      sync.Mutex
	name    string
	base    *resource
	gsis    map[string]*resource
	reasons [16]int64
	dropped bool
	scratch plan
}

// New returns a model with no tables.
func New(c Config) (*Model, error) {
	cc, err := c.check()
	if err != nil {
		return nil, err
	}
	return &Model{c: cc, tables: map[string]*table{}}, nil
}

// Scale is the model's scale factor.
func (m *Model) Scale() float64 { return m.c.scale }

func (m *Model) clock() (now, sec int64) {
	now = m.c.now().UnixNano()
	sec = now / 1e9
	if now < 0 && now%1e9 != 0 {
		sec--
	}
	return now, sec
}

// Define creates a table with its global secondary indexes, or updates
// one already defined (UpdateTable): capacities change, partitions are
// added when the new capacity needs them (never removed), indexes not in
// gsis are dropped and new ones created. Switching a table to on-demand
// makes half its provisioned capacity its previous peak, as DynamoDB
// does.
func (m *Model) Define(name string, spec ResourceSpec, gsis map[string]ResourceSpec) error {
	if name == "" {
		return fmt.Errorf("define table: empty table name")
	}
	ts, err := spec.normalize("table "+name, nil)
	if err != nil {
		return fmt.Errorf("define table: %w", err)
	}
	norm := make(map[string]ResourceSpec, len(gsis))
	for ix, s := range gsis {
		if ix == "" {
			return fmt.Errorf("define table %s: empty index name", name)
		}
		n, err := s.normalize("index "+ix, &ts)
		if err != nil {
			return fmt.Errorf("define table %s: %w", name, err)
		}
		norm[ix] = n
	}
	now, sec := m.clock()
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.tables[name]
	if t == nil {
		t = &table{name: name, gsis: map[string]*resource{}}
		m.tables[name] = t
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.base = m.resource(t.base, name, "", ts, now, sec)
	for ix := range t.gsis {
		if _, ok := norm[ix]; !ok {
			delete(t.gsis, ix)
		}
	}
	for ix, s := range norm {
		t.gsis[ix] = m.resource(t.gsis[ix], name, ix, s, now, sec)
	}
	return nil
}

// resource creates or updates one table or index.
func (m *Model) resource(r *resource, tableName, index string, s ResourceSpec, now, sec int64) *resource {
	if r == nil {
		arn := m.c.arnPrefix + tableName
		if index != "" {
			arn += "/index/" + index
		}
		r = &resource{index: index, arn: arn, spec: s, top: topKeys{n: m.c.topKeys}}
		for d := range 2 {
			r.flow[d].sec = sec
			r.flow[d].limit.last = now
		}
		r.configure(&m.c, now, sec)
		// A new resource can serve one second of its rate at once; burst
		// accrues from there.
		for d := range 2 {
			r.flow[d].limit.tokens = r.flow[d].limit.rate
		}
		return r
	}
	r.advance(&m.c, now, sec)
	if r.spec.Mode == Provisioned && s.Mode == OnDemand {
		for d, c := range [2]float64{r.spec.ReadCapacity, r.spec.WriteCapacity} {
			r.flow[d].adapted = max(r.flow[d].adapted, c/2*m.c.scale)
		}
	}
	r.spec = s
	r.configure(&m.c, now, sec)
	return r
}

// Warm is what a table ("" index) or index can serve at once, in AWS
// units per second, as DescribeTable's WarmThroughput shows it: for an
// on-demand resource, the larger of its warm throughput and twice the
// peak it has adapted to (it rises automatically); for a provisioned
// one, its provisioned capacity. ok is false for an unknown table or
// index.
func (m *Model) Warm(tableName, index string) (readUnits, writeUnits float64, ok bool) {
	t := m.lookup(tableName)
	if t == nil {
		return 0, 0, false
	}
	now, sec := m.clock()
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.base
	if index != "" {
		r = t.gsis[index]
	}
	if r == nil || t.dropped {
		return 0, 0, false
	}
	r.advance(&m.c, now, sec)
	if r.spec.Mode == Provisioned {
		return r.spec.ReadCapacity, r.spec.WriteCapacity, true
	}
	return max(r.spec.WarmRead, 2*r.flow[read].adapted/m.c.scale), max(r.spec.WarmWrite, 2*r.flow[write].adapted/m.c.scale), true
}

// Drop forgets a table (DeleteTable); admissions for it then pass.
func (m *Model) Drop(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tables[name]; t != nil {
		t.mu.Lock()
		t.dropped = true
		t.mu.Unlock()
		delete(m.tables, name)
	}
}

func (m *Model) lookup(name string) *table {
	m.mu.RLock()
	t := m.tables[name]
	m.mu.RUnlock()
	return t
}

// Request is one read or write to admit, in the units DynamoDB charges
// (ConsumedCapacity) for the resource it reads or writes.
type Request struct {
	// Table is the table name.
	Table string
	// Index, when set, charges Read and Write to that global secondary
	// index instead of the base table: a Query or Scan of the index.
	Index string
	// Hash is the 64-bit hash of the partition key that places the
	// request in the key space (for an index, of all its partition
	// attributes together).
	Hash uint64
	// Key is the partition key's text, kept (truncated) only for the
	// top throttled keys; it may be nil.
	Key []byte
	// Read and Write are the units charged to the table (or to Index).
	Read, Write float64
	// Indexes are the charges a base-table write makes on global
	// secondary indexes. A write that moves an index key charges two
	// partitions: the old entry's delete at the old key's hash and the
	// new entry's put at the new key's hash. Charges naming an index the
	// table does not have are ignored.
	Indexes []IndexCharge
}

// IndexCharge is a write's charge on one partition of one index.
type IndexCharge struct {
	Name  string
	Hash  uint64
	Key   []byte
	Write float64
	Read  float64
}

// Admit decides one request: nil means admitted and its units consumed;
// otherwise nothing was consumed and the Throttle says why. A base-table
// write is admitted only if the table and every index partition it
// touches can take it (all or nothing). Requests for tables never
// defined are admitted and not recorded.
func (m *Model) Admit(r Request) *Throttle {
	t := m.lookup(r.Table)
	if t == nil {
		return nil
	}
	now, sec := m.clock()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return nil
	}
	p := &t.scratch
	p.reset(now, sec)
	p.add(&m.c, t, 0, &r)
	if p.decide(&m.c) {
		return nil
	}
	return p.throttle(0)
}

// AdmitAll decides requests together, all or nothing (a transaction):
// it returns nil when all were admitted and consumed; otherwise nothing
// was consumed and the result has, for each request, its Throttle or nil
// if it was not at fault. Requests on the same partition add up.
func (m *Model) AdmitAll(rs []Request) []*Throttle {
	var ts []*table
	for i := range rs {
		t := m.lookup(rs[i].Table)
		if t == nil {
			continue
		}
		dup := false
		for _, x := range ts {
			dup = dup || x == t
		}
		if !dup {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	now, sec := m.clock()
	for _, t := range ts {
		t.mu.Lock()
	}
	defer func() {
		for i := len(ts) - 1; i >= 0; i-- {
			ts[i].mu.Unlock()
		}
	}()
	p, _ := m.plans.Get().(*plan)
	if p == nil {
		p = &plan{}
	}
	defer m.plans.Put(p)
	p.reset(now, sec)
	for i := range rs {
		for _, t := range ts {
			if t.name == rs[i].Table && !t.dropped {
				p.add(&m.c, t, i, &rs[i])
			}
		}
	}
	if p.decide(&m.c) {
		return nil
	}
	out := make([]*Throttle, len(rs))
	for i := range rs {
		out[i] = p.throttle(i)
	}
	return out
}
