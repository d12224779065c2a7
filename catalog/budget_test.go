package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// TestReferenceBudgetsHonest recomputes every budget variant of the
// reference model from its samples with the capacity rules and checks that
// the declared budgets hold: the arithmetic written in the model is the
// arithmetic of the billing rules.
func TestReferenceBudgetsHonest(t *testing.T) {
	m, err := catalog.Load("../model.yaml")
	require.NoError(t, err)
	r := capacity.Default()
	tables := map[*catalog.Table]*capacity.Table{}
	for _, tb := range m.Tables {
		ct := &capacity.Table{Name: tb.Name, PK: tb.PartitionKey, SK: tb.SortKey}
		for _, x := range tb.Indexes {
			ix := capacity.Index{Name: x.Name, PK: x.Partition, SK: x.Sort, Include: x.Projection.Attributes}
			switch x.Projection.Type {
			case "KEYS_ONLY":
				ix.Projection = capacity.ProjectKeysOnly
			case "INCLUDE":
				ix.Projection = capacity.ProjectInclude
			}
			if x.Local {
				ct.LSIs = append(ct.LSIs, ix)
			} else {
				ct.GSIs = append(ct.GSIs, ix)
			}
		}
		tables[tb] = ct
	}
	sample := func(e *catalog.Entity, name string) attr.Item {
		it, ok := e.Sample(name)
		require.True(t, ok, "%s.%s", e.Name, name)
		return it
	}
	kinds := map[catalog.StepKind]capacity.WriteKind{catalog.Put: capacity.Put, catalog.Update: capacity.Update, catalog.Delete: capacity.Delete, catalog.ConditionCheck: capacity.ConditionCheck}
	for _, op := range m.Operations {
		for _, b := range op.Budgets {
			var used capacity.Capacity
			stopped := false
			write := func(s *catalog.Step, txn, failed bool) {
				q := s.Request
				before, after, _ := b.SamplesFor(s)
				c := r.Write(tables[q.Table], capacity.WriteOp{Kind: kinds[s.Kind], Before: sample(q.Entity, before), After: sample(q.Entity, after), Txn: txn, Failed: failed})
				used = used.Add(c.Total())
			}
			for _, s := range op.Steps {
				if stopped || !s.In(b.Name) {
					continue
				}
				switch s.Kind {
				case catalog.Get:
					_, _, name := b.SamplesFor(s)
					size := 0
					if it := sample(s.Request.Entity, name); it != nil {
						size = r.ItemSize(it)
					}
					cons := capacity.Eventual
					if s.Request.ConsistentRead {
						cons = capacity.Strong
					}
					c, err := r.Read(tables[s.Request.Table], capacity.ReadOp{Kind: capacity.GetItem, Consistency: cons, Bytes: size})
					require.NoError(t, err)
					used = used.Add(c.Total())
				case catalog.Query:
					q := s.Request
					bytes := 0
					for _, mt := range q.Matches {
						it := sample(mt.Entity, mt.Sample)
						size := r.ItemSize(it)
						if q.Index != nil {
							size = r.ItemSize(q.Index.Entry(it))
						}
						bytes += size * mt.Count
					}
					op := capacity.ReadOp{Kind: capacity.Page, Bytes: bytes}
					if q.Index != nil {
						op.Index = q.Index.Name
					}
					c, err := r.Read(tables[q.Table], op)
					require.NoError(t, err)
					n := 1.0
					if q.Shards != nil && q.Shards.FanOut == "all" {
						n = float64(q.Index.Shards.Count)
					}
					used = used.Add(capacity.Capacity{Read: c.Total().Read * n})
				case catalog.Transaction:
					failed := false
					for _, it := range s.Items {
						failed = failed || it.ID == b.FailedStep
					}
					for _, it := range s.Items {
						if it.In(b.Name) {
							write(it, true, failed)
						}
					}
					stopped = failed
				default:
					failed := s.ID == b.FailedStep
					write(s, false, failed)
					stopped = failed
				}
			}
			if b.WRU != nil {
				assert.LessOrEqual(t, used.Write, *b.WRU, "%s/%s: %v WRU over the budget", op.Name, b.Name, used.Write)
			}
			if b.RRU != nil {
				assert.LessOrEqual(t, used.Read, *b.RRU, "%s/%s: %v RRU over the budget", op.Name, b.Name, used.Read)
			}
			t.Logf("%-24s %-16s wru %5.1f / %-5v rru %6.1f / %v", op.Name, b.Name, used.Write, fmtp(b.WRU), used.Read, fmtp(b.RRU))
		}
	}
}

func fmtp(p *float64) any {
	if p == nil {
		return "-"
	}
	return *p
}
