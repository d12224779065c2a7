package engine

import (
	"context"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/throughput"
)

// Options configure an Engine. The zero value is usable.
type Options struct {
	// Region and Account appear in ARNs; defaults us-east-1 and
	// 000000000000.
	Region, Account string
	// Rules are the billing rules; default capacity.Default().
	Rules *capacity.Rules
	// Now is the clock, for TTL and idempotency windows; default time.Now.
	Now func() time.Time
	// Admit, when set, is asked before a write is applied and before a
	// read's result is returned, with what it costs on each partition it
	// touches. The admissions of one call are decided together, all or
	// nothing: a single-item write or read passes one, a transaction all
	// of its actions. An error refuses the request and is returned to
	// the caller as is (a *Error of type ProvisionedThroughputExceeded-
	// Exception or ThrottlingException with ThrottlingReasons). The
	// throughput model plugs in here.
	Admit func(ctx context.Context, reqs []Admission) error
	// OnSchema, when set, is told of every table created, updated or
	// deleted (deleted true), with the table's description, before any
	// request can reach the new definition; the throughput model defines
	// its partitions from it. It runs under the engine's locks and must
	// not call the Engine.
	OnSchema func(d *TableDescription, deleted bool)
	// Throughput, when set, is the throughput model requests are
	// admitted by (see throttle.go): tables and their GSIs are defined in
	// it as they are created, updated and deleted, and refused requests
	// fail with its throttling exceptions. Admit, when also set, is asked
	// first. The model's clock should be the engine's (Now).
	Throughput *throughput.Model
	// WarmRead and WarmWrite are the warm throughput, in units per
	// second, of on-demand tables and indexes created without one; 0
	// means DynamoDB's 12,000 and 4,000.
	WarmRead, WarmWrite int64
	// IndexLag, when positive, delays every change to a global secondary
	// index by that long after the base-table write, as DynamoDB's
	// asynchronous index propagation does: a Query or Scan of the index
	// sees the write only once the lag has passed (by Now). Base-table
	// reads, and local secondary indexes, are never delayed.
	IndexLag time.Duration
	// TTLSweep is how often expired items are deleted in the background
	// once StartTTL runs; default 10 s.
	TTLSweep time.Duration
	// Streams bound the tables' streams (retention, shard life, memory).
	Streams StreamOptions
}

// Admission is one request's cost on the partitions it touches.
type Admission struct {
	Table string
	// Index is set for a read (Query or Scan) of a global secondary
	// index. A local secondary index lives on its table's partitions:
	// its reads are admitted as the table's.
	Index string
	// Hash is the partition's position in the key space: the hash of the
	// partition key (of all partition attributes, for an index keyed on
	// several), the first 8 bytes of the stored keys.
	Hash uint64
	// Key is the encoded partition key (its text, for a string key),
	// shown for throttled keys in throughput reports; it may be nil.
	Key []byte
	// Read and Write are the units charged (ConsumedCapacity).
	Read, Write float64
	// Indexes are the charges a table write makes on its global
	// secondary indexes; a write that moves an index key charges the old
	// and the new partition separately.
	Indexes []IndexAdmission
}

// IndexAdmission is a write's charge on one partition of one index.
type IndexAdmission struct {
	Name  string
	Hash  uint64
	Key   []byte
	Write float64
}

// Engine is an in-memory DynamoDB. It is safe for concurrent use.
type Engine struct {
	opts  Options
	rules capacity.Rules

	mu     sync.RWMutex
	tables map[string]*table

	tokens tokenCache

	// streams are the tables' streams, kept past their tables' settings
	// for their retention; data is the data directory (nil: in memory)
	// and tableNos numbers tables in it.
	streams  streamSet
	data     *store
	tableNos atomic.Uint32
}

// New returns an empty engine.
func New(opts Options) *Engine {
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	if opts.Account == "" {
		opts.Account = "000000000000"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.TTLSweep <= 0 {
		opts.TTLSweep = 10 * time.Second
	}
	e := &Engine{opts: opts, tables: map[string]*table{}}
	if opts.Rules != nil {
		e.rules = *opts.Rules
	} else {
		e.rules = capacity.Default()
	}
	e.tokens.entries = map[string]tokenEntry{}
	return e
}

func (e *Engine) arn(name string) string {
	return "arn:aws:dynamodb:" + e.opts.Region + ":" + e.opts.Account + ":table/" + name
}

// tableName accepts a table name or a table ARN, as DynamoDB does.
func tableName(name string) string {
	if strings.HasPrefix(name, "arn:") {
		if i := strings.LastIndex(name, ":table/"); i >= 0 {
			return name[i+len(":table/"):]
		}
	}
	return name
}

// table returns the named table or ResourceNotFoundException.
func (e *Engine) table(name string) (*table, error) {
	if err := checkTableName(name, "tableName"); err != nil {
		return nil, err
	}
	e.mu.RLock()
	t := e.tables[tableName(name)]
	e.mu.RUnlock()
	if t == nil {
		return nil, tableNotFound()
	}
	return t, nil
}

// lockTables write-locks the named tables in name order, the one order
// every multi-table operation uses, so that two of them cannot deadlock.
// It returns the tables by name and the unlock function.
func (e *Engine) lockTables(names []string) (map[string]*table, func(), error) {
	names = append([]string(nil), names...)
	sort.Strings(names)
	out := make(map[string]*table, len(names))
	var locked []*table
	unlock := func() {
		for i := len(locked) - 1; i >= 0; i-- {
			locked[i].mu.Unlock()
		}
	}
	for _, n := range names {
		if _, ok := out[n]; ok {
			continue
		}
		t, err := e.table(n)
		if err != nil {
			unlock()
			return nil, nil, err
		}
		t.mu.Lock()
		if t.deleted {
			t.mu.Unlock()
			unlock()
			return nil, nil, tableNotFound()
		}
		locked = append(locked, t)
		out[n] = t
	}
	return out, unlock, nil
}

// lockSet write-locks tables already resolved, in name order, even if one
// was deleted meanwhile; it returns the unlock function.
func lockSet(tables map[string]*table) func() {
	names := sortedKeys(tables)
	for _, n := range names {
		tables[n].mu.Lock()
	}
	return func() {
		for i := len(names) - 1; i >= 0; i-- {
			tables[names[i]].mu.Unlock()
		}
	}
}

// admits reports whether requests are admitted by a hook or the model,
// so that their charges must be computed even when the caller did not ask
// for ConsumedCapacity.
func (e *Engine) admits() bool { return e.opts.Admit != nil || e.opts.Throughput != nil }

// Unmetered returns a context under which the engine admits every
// request without asking the admission hook or the throughput model, as
// DynamoDB's import from S3 writes a table without consuming its
// capacity: a load generator fills the tables with its dataset this way
// before the run that the limits are about. Capacity is still computed
// and reported.
func Unmetered(ctx context.Context) context.Context {
	return context.WithValue(ctx, unmeteredKey{}, true)
}

type unmeteredKey struct{}

func unmetered(ctx context.Context) bool { return ctx.Value(unmeteredKey{}) != nil }

// admitOne is admit for a single admission, without building a slice
// when only the model is asked (the common path of every read and
// write).
func (e *Engine) admitOne(ctx context.Context, a Admission) error {
	if unmetered(ctx) {
		return nil
	}
	if e.opts.Admit != nil {
		return e.admit(ctx, a)
	}
	if e.opts.Throughput == nil {
		return nil
	}
	if th := e.opts.Throughput.Admit(request(&a, nil)); th != nil {
		return throttleError(th)
	}
	return nil
}

// admit asks the admission hook, then the throughput model, if any; all
// of reqs are decided together.
func (e *Engine) admit(ctx context.Context, reqs ...Admission) error {
	if unmetered(ctx) {
		return nil
	}
	if e.opts.Admit != nil {
		if err := e.opts.Admit(ctx, reqs); err != nil {
			return err
		}
	}
	if e.opts.Throughput == nil || len(reqs) == 0 {
		return nil
	}
	if th := e.modelAdmit(reqs); th != nil {
		return throttleError(th)
	}
	return nil
}
