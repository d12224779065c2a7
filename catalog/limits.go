package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

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
	if opts.ItemSize != nil {
		r.checkLists(m, opts.ItemSize)
	}
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

// maxRunsPerSecond bounds a load: no load asks for more than a million
// arrivals a second, which no runner could send and whose schedule would
// be counted without end. A scenario's span is bounded by MaxSpan.
const maxRunsPerSecond = 1e6

// scenarioDuration reads a duration of a scenario (its length, a window,
// an offset), refusing one past MaxSpan.
func scenarioDuration(s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err == nil && d > MaxSpan {
		err = fmt.Errorf("%s is over a week", s)
	}
	return d, err
}

// checkRate refuses a load shape whose rate passes maxRunsPerSecond at
// any point (ptr is the field that gave the rate).
func (r *resolver) checkRate(ptr string, s *Shape) {
	if s == nil {
		return
	}
	for _, pt := range s.Points {
		if !(pt.PerSecond <= maxRunsPerSecond) {
			r.errAt(ptr, false, "lower the rate, or model the load at a scale the runner can send", "the load asks for %.4g arrivals a second, over the %.0f a scenario's load may ask for", pt.PerSecond, maxRunsPerSecond)
			return
		}
	}
}

// checkLists refuses a dataset list whose count, read literally (a
// number, or the high end of [low, high]), makes a list of elements like
// its samples' larger than an item may be: every item of the entity
// would be over DynamoDB's limit, and the generator would write
// hundreds of kilobytes an item before any check saw one.
func (r *resolver) checkLists(m *Model, size func(attr.Item) int) {
	if m.Dataset == nil {
		return
	}
	for _, en := range slices.Sorted(maps.Keys(m.Dataset.Entities)) {
		er := m.Dataset.Entities[en]
		for _, an := range slices.Sorted(maps.Keys(er.Rules)) {
			rl := er.Rules[an]
			if rl == nil || rl.Kind != RuleList || rl.Count == nil || er.Entity == nil {
				continue
			}
			n, ok := literalCount(*rl.Count)
			elem, found := sampleElement(er.Entity, an)
			if !ok || !found {
				continue
			}
			// An element weighs its value and one byte more in a list:
			// the byte of the name x.
			each := size(attr.Item{{Name: "x", Value: elem}})
			if total := n * float64(each); total > maxItemBytes {
				r.errAt(p("dataset", "entities", en, "attributes", an, "list", "count"), false, "lower the count, or move the elements to items of their own",
					"a list of %.0f elements like %s's samples' (%d bytes each) is %.0f bytes, over DynamoDB's item limit of %d", n, an, each, total, maxItemBytes)
			}
		}
	}
}

// literalCount returns the most elements a list count can give when it
// is a number or a range of numbers.
func literalCount(op SynthOperand) (float64, bool) {
	if len(op.Range) == 2 {
		return literalCount(op.Range[1])
	}
	if op.Literal == nil || op.Literal.Type != attr.N {
		return 0, false
	}
	x, err := strconv.ParseFloat(op.Literal.Str, 64)
	return x, err == nil
}

// sampleElement returns the first element of a list attribute in e's
// samples.
func sampleElement(e *Entity, name string) (attr.Value, bool) {
	for _, s := range e.Samples {
		if v, ok := s.Item.Get(name); ok && v.Type == attr.L && len(v.List) > 0 {
			return v.List[0], true
		}
	}
	return attr.Value{}, false
}
