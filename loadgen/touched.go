package loadgen

import (
	"context"
	"fmt"
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

// touched is what a run touched.
type touched struct {
	mu    sync.Mutex
	trees map[[2]int64]bool               // block, root index
	keys  map[string]map[string]attr.Item // model table -> key text -> table key
}

func newTouched() *touched {
	return &touched{trees: map[[2]int64]bool{}, keys: map[string]map[string]attr.Item{}}
}

func (t *touched) addKey(tb *catalog.Table, key attr.Item) {
	if len(key) != len(tb.KeyAttributes()) {
		return
	}
	m := t.keys[tb.Name]
	if m == nil {
		m = map[string]attr.Item{}
		t.keys[tb.Name] = m
	}
	m[keyString(key)] = key
}

// context records an arrival's context: its tree and its items.
func (t *touched) context(c *Context) {
	if t == nil || c == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.tree {
		t.trees[[2]int64{int64(c.block), c.row}] = true
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
	trees := make([][2]int64, 0, len(t.trees))
	for k := range t.trees {
		trees = append(trees, k)
	}
	sort.Slice(trees, func(i, j int) bool {
		return trees[i][0] < trees[j][0] || trees[i][0] == trees[j][0] && trees[i][1] < trees[j][1]
	})
	gn := r.subs.pop.NewGenerator(func(n *dataset.Node, it attr.Item) {
		if tb := n.Entity.Table; tb != nil && want[n.Entity] {
			// The generator reuses its memory: the key is copied.
			t.addKey(tb, cloneItem(tableKey(n.Entity, it)))
		}
	})
	for _, k := range trees {
		b := r.subs.blocks[k[0]]
		if err := gn.Tree(b.Root, k[1]); err != nil {
			return err
		}
	}
	return nil
}

// count is how many items the record holds, and how many trees.
func (t *touched) count() (items, trees int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range t.keys {
		items += len(m)
	}
	return items, len(t.trees)
}

// tableKeys returns a table's recorded keys, in order.
func (t *touched) tableKeys(table string) []attr.Item {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.keys[table]
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]attr.Item, len(ks))
	for i, k := range ks {
		out[i] = m[k]
	}
	return out
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
