package catalog

import (
	"maps"
	"slices"

	"github.com/cardapio/cardapio/attr"
)

// DynamoDB's size limits that a sample item can break (capacity-rules.md
// 1.6). They are errors, not review findings: DynamoDB refuses such an
// item, so the model describes data that cannot exist.
const (
	maxItemBytes         = 409600 // 400 KB, names included
	maxPartitionKeyBytes = 2048
	maxSortKeyBytes      = 1024
)

// checkLimits reports samples over the item size limit (when opts can
// size an item) and key values over the key size limits: the table's
// keys, and the keys of indexes keyed on one attribute.
func (r *resolver) checkLimits(m *Model, opts Options) {
	for _, e := range m.Entities {
		for _, s := range e.Samples {
			ptr := p("entities", e.Name, "samples", s.Name)
			if opts.ItemSize != nil {
				if n := opts.ItemSize(s.Item); n > maxItemBytes {
					r.errAt(ptr, true, "move large attributes to sibling items or to S3", "sample %s of %s is %d bytes, over DynamoDB's item limit of %d", s.Name, e.Name, n, maxItemBytes)
				}
			}
			// A value that is a key in several places obeys the tightest limit.
			keys := map[string]int{}
			key := func(name string, limit int) {
				if cur, ok := keys[name]; !ok || limit < cur {
					keys[name] = limit
				}
			}
			if e.Table != nil {
				key(e.Table.PartitionKey, maxPartitionKeyBytes)
				if e.Table.SortKey != "" {
					key(e.Table.SortKey, maxSortKeyBytes)
				}
			}
			for _, x := range e.Indexes {
				if len(x.Partition) == 1 {
					key(x.Partition[0], maxPartitionKeyBytes)
				}
				if len(x.Sort) == 1 {
					key(x.Sort[0], maxSortKeyBytes)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(keys)) {
				v, ok := s.Item.Get(name)
				if !ok || v.Type != attr.S && v.Type != attr.B {
					continue
				}
				if limit := keys[name]; len(v.Str) > limit {
					r.errAt(ptr+"/"+escapePtr(name), true, "", "key attribute %s of sample %s is %d bytes, over DynamoDB's limit of %d for this key", name, s.Name, len(v.Str), limit)
				}
			}
		}
	}
}
