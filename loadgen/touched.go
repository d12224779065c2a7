package loadgen

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
)

// What a run touched: the trees of the population its subjects came from
// and the items its arrivals read or wrote, by key. Against tables that
// already hold a population (hundreds of millions of items) the
// invariants are checked on those alone, unless --check-all asks for the
// whole tables (a parallel scan whose cost is said before it starts):
// every item of a touched tree, generated again for its key (a tree
// holds what the model's sums join: an instalment and its settlements),
// and every item written, read again by key, strongly consistent. The
// record grows with the arrivals, not with the population.

// touched is what a run touched: the trees, and by model table the keys,
// each a set held in memory up to touchedHold records and spilled to disk
// past it, so that a long run's record is on disk, not in memory.
type touched struct {
	mu    sync.Mutex
	trees *spillSet            // block and root index, 16 bytes
	keys  map[string]*spillSet // model table -> keys in DynamoDB JSON
}

func newTouched() *touched {
	return &touched{trees: &spillSet{}, keys: map[string]*spillSet{}}
}

func (t *touched) addKey(tb *catalog.Table, key attr.Item) {
	if len(key) != len(tb.KeyAttributes()) {
		return
	}
	s := t.keys[tb.Name]
	if s == nil {
		s = &spillSet{}
		t.keys[tb.Name] = s
	}
	s.add(string(attr.AppendItemJSON(nil, key)))
}

// context records an arrival's context: its tree and its items.
func (t *touched) context(c *Context) {
	if t == nil || c == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.tree {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], uint64(c.block))
		binary.BigEndian.PutUint64(b[8:], uint64(c.row))
		t.trees.add(string(b[:]))
	}
	for _, ci := range c.Items {
		if tb := ci.Entity.Table; tb != nil {
			t.addKey(tb, ci.Key)
		}
	}
}

// writes records the items the write steps of an operation address,
// from the values the arrival ended with.
func (t *touched) writes(op *catalog.Operation, values map[string]attr.Value) {
	if t == nil || op == nil || values == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var walk func(ss []*catalog.Step)
	walk = func(ss []*catalog.Step) {
		for _, st := range ss {
			walk(st.Items)
			r := st.Request
			if r == nil || r.Entity == nil || r.Entity.Table == nil {
				continue
			}
			switch st.Kind {
			case catalog.Put, catalog.Update, catalog.Delete:
			default:
				continue
			}
			key, err := r.Entity.KeyOf(values)
			if err != nil {
				continue
			}
			t.addKey(r.Entity.Table, tableKey(r.Entity, key))
		}
	}
	walk(op.Steps)
}

// collect adds to the record the keys of every item of the touched trees
// whose entity want says, generating the trees again.
func (r *runner) collectTouched(want map[*catalog.Entity]bool) error {
	t := r.touched
	gn := r.subs.pop.NewGenerator(func(n *dataset.Node, it attr.Item) {
		if tb := n.Entity.Table; tb != nil && want[n.Entity] {
			t.addKey(tb, tableKey(n.Entity, it))
		}
	})
	return t.trees.each(func(rec string) error {
		if len(rec) != 16 {
			return fmt.Errorf("the touched trees: a bad record")
		}
		block, row := int64(binary.BigEndian.Uint64([]byte(rec[:8]))), int64(binary.BigEndian.Uint64([]byte(rec[8:])))
		if block < 0 || int(block) >= len(r.subs.blocks) {
			return fmt.Errorf("the touched trees: block %d out of range", block)
		}
		return gn.Tree(r.subs.blocks[block].Root, row)
	})
}

// count is how many items the record holds, and how many trees.
func (t *touched) count() (items, trees int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.keys {
		n, err := s.count()
		if err != nil {
			return 0, 0, err
		}
		items += int(n)
	}
	n, err := t.trees.count()
	return items, int(n), err
}

// tableKeys hands f a table's recorded keys, each once, a chunk at a
// time: in order when the record was held in memory, in order within
// each bucket of the spill otherwise.
func (t *touched) tableKeys(table string, f func([]attr.Item) error) error {
	t.mu.Lock()
	s := t.keys[table]
	t.mu.Unlock()
	if s == nil {
		return nil
	}
	const chunk = 10_000
	var keys []attr.Item
	err := s.each(func(rec string) error {
		it, err := attr.DecodeItem([]byte(rec))
		if err != nil {
			return err
		}
		keys = append(keys, it)
		if len(keys) == chunk {
			err = f(keys)
			keys = nil
		}
		return err
	})
	if err == nil && len(keys) > 0 {
		err = f(keys)
	}
	return err
}

// close removes what the record spilled.
func (t *touched) close() {
	if t == nil {
		return
	}
	t.trees.close()
	for _, s := range t.keys {
		s.close()
	}
}

// touchedHold is how many records a set of the touched record holds in
// memory before it spills them (a var, for the tests).
var touchedHold = 200_000

// spillSet is a set of records held in memory up to touchedHold, then
// appended to a temporary file (repeats and all); each reads the records
// back once each, a hash-partitioned bucket at a time.
type spillSet struct {
	mem map[string]struct{}
	f   *os.File
	w   *bufio.Writer
	n   int64 // records in the file
	err error
}

func (s *spillSet) add(rec string) {
	if s.mem == nil {
		s.mem = map[string]struct{}{}
	}
	s.mem[rec] = struct{}{}
	if len(s.mem) >= touchedHold {
		s.flush()
	}
}

// flush appends the records held to the file.
func (s *spillSet) flush() {
	if s.err != nil || len(s.mem) == 0 {
		return
	}
	if s.f == nil {
		if s.f, s.err = os.CreateTemp("", "cardapio-touched-*"); s.err != nil {
			return
		}
		s.w = bufio.NewWriterSize(s.f, 64<<10)
	}
	var n [binary.MaxVarintLen64]byte
	for rec := range s.mem {
		if _, s.err = s.w.Write(n[:binary.PutUvarint(n[:], uint64(len(rec)))]); s.err != nil {
			return
		}
		if _, s.err = s.w.WriteString(rec); s.err != nil {
			return
		}
		s.n++
	}
	clear(s.mem)
}

// each hands f every record once: sorted when they never left memory,
// else bucket by bucket, sorted within each.
func (s *spillSet) each(f func(rec string) error) error {
	if s == nil {
		return nil
	}
	if s.f == nil {
		return eachSorted(s.mem, f)
	}
	s.flush()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return fmt.Errorf("the touched record: %w", s.err)
	}
	nb := int(min(max((s.n+int64(touchedHold)-1)/int64(touchedHold), 1), ledgerMaxBuckets))
	b, err := newBuckets(nb)
	if err != nil {
		return err
	}
	defer b.close()
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 64<<10)
	for {
		l, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			break
		}
		rec := make([]byte, l)
		if err != nil || l > 1<<20 {
			return fmt.Errorf("the touched record: unreadable")
		}
		if _, err := io.ReadFull(r, rec); err != nil {
			return fmt.Errorf("the touched record: unreadable")
		}
		b.put(string(rec), rec)
	}
	for i := range nb {
		seen := map[string]struct{}{}
		if err := b.read(i, func(fs [][]byte) error {
			seen[string(fs[0])] = struct{}{}
			return nil
		}); err != nil {
			return err
		}
		if err := eachSorted(seen, f); err != nil {
			return err
		}
	}
	return nil
}

// eachSorted hands f a set's records in order.
func eachSorted(set map[string]struct{}, f func(rec string) error) error {
	recs := make([]string, 0, len(set))
	for rec := range set {
		recs = append(recs, rec)
	}
	sort.Strings(recs)
	for _, rec := range recs {
		if err := f(rec); err != nil {
			return err
		}
	}
	return nil
}

// count is how many records the set holds, each once.
func (s *spillSet) count() (int64, error) {
	if s == nil {
		return 0, nil
	}
	if s.f == nil {
		return int64(len(s.mem)), nil
	}
	var n int64
	err := s.each(func(string) error { n++; return nil })
	return n, err
}

func (s *spillSet) close() {
	if s == nil || s.f == nil {
		return
	}
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
	s.f = nil
}

// readWorkers is how many requests the invariants' read keeps in flight.
const readWorkers = 16

// getKeys reads the items of the given keys of a table, strongly
// consistent, 100 a BatchGetItem, handing each to f (from one goroutine
// at a time); a key without an item is skipped.
func getKeys(ctx context.Context, tg *endpoint.Target, name string, keys []attr.Item, f func(attr.Item)) error {
	var mu sync.Mutex
	var first error
	next := make(chan []attr.Item)
	var wg sync.WaitGroup
	for range readWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for batch := range next {
				err := getBatch(ctx, tg, name, batch, func(it attr.Item) {
					mu.Lock()
					f(it)
					mu.Unlock()
				})
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for len(keys) > 0 && ctx.Err() == nil {
		n := min(100, len(keys))
		next <- keys[:n]
		keys = keys[n:]
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// getBatch reads up to 100 keys, sending again what the target leaves
// unprocessed.
func getBatch(ctx context.Context, tg *endpoint.Target, name string, keys []attr.Item, f func(attr.Item)) error {
	ka := types.KeysAndAttributes{ConsistentRead: aws.Bool(true)}
	for _, k := range keys {
		ka.Keys = append(ka.Keys, attr.ToSDKItem(k))
	}
	in := map[string]types.KeysAndAttributes{name: ka}
	return endpoint.RetryUnprocessed(ctx, func() (int, error) {
		out, err := tg.Client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: in})
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", name, err)
		}
		for _, raw := range out.Responses[name] {
			it, err := attr.FromSDKItem(raw)
			if err != nil {
				return 0, err
			}
			f(it)
		}
		in = out.UnprocessedKeys
		return len(in[name].Keys), nil
	})
}

// scanSegments is how many segments the whole tables' read (--check-all)
// scans in parallel.
const scanSegments = 8

// scanParallel reads every item of a table in scanSegments parallel
// segments, strongly consistent, handing each to f (from one goroutine
// at a time).
func scanParallel(ctx context.Context, tg *endpoint.Target, name string, f func(attr.Item)) error {
	var mu sync.Mutex
	errs := make([]error, scanSegments)
	var wg sync.WaitGroup
	for seg := range scanSegments {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var start map[string]types.AttributeValue
			for ctx.Err() == nil {
				out, err := tg.Client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start,
					Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(scanSegments)})
				if err != nil {
					errs[seg] = err
					return
				}
				for _, raw := range out.Items {
					it, err := attr.FromSDKItem(raw)
					if err != nil {
						errs[seg] = err
						return
					}
					mu.Lock()
					f(it)
					mu.Unlock()
				}
				if len(out.LastEvaluatedKey) == 0 {
					return
				}
				start = out.LastEvaluatedKey
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// scanCost says what reading the whole tables costs, before it starts:
// their items and bytes as the target describes them, and the read units
// of a strongly consistent scan (a unit a 4 KB).
func scanCost(ctx context.Context, tg *endpoint.Target, names []string) string {
	var items, bytes int64
	for _, n := range names {
		out, err := tg.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(n)})
		if err != nil || out.Table == nil {
			continue
		}
		items += aws.ToInt64(out.Table.ItemCount)
		bytes += aws.ToInt64(out.Table.TableSizeBytes)
	}
	rru := float64(bytes) / 4096
	return fmt.Sprintf("%d items, %.1f MB as the target describes them (it may lag by hours on AWS): about %.0f RRU, US$ %.4f on demand",
		items, float64(bytes)/1e6, rru, capacity.DefaultPrices().OnDemand(0, rru, capacity.Standard))
}
