package loadgen

import (
	"context"
	"testing"

	"github.com/cardapio/cardapio/attr"
)

// A run of trees that each hold one subject finds subject k by
// generating tree lo+k alone; it must find the very subject the walk
// over the whole run finds, for some 400 subjects of every load (every
// subject of a smaller load), on both examples.
func TestOneTreeFindsTheSameSubject(t *testing.T) {
	for _, c := range existingCases {
		t.Run(c.name, func(t *testing.T) {
			m, f := c.load(t)
			_, url := serveCounted(t)
			ones, checked := 0, 0
			numbered = func(r *runner) {
				for _, l := range r.loads {
					if l.index == nil {
						continue
					}
					for _, ch := range l.index.chunks {
						if ch.one {
							ones++
						}
					}
					step := max(1, l.index.total/400)
					for j := int64(0); j < l.index.total; j += step {
						fast, err := r.subject(l, j)
						if err != nil {
							t.Fatal(err)
						}
						ch, _, _ := l.index.find(j)
						slow := &subjectIndex{chunks: []subjectChunk{ch}, total: ch.before + int64(ch.n)}
						slow.chunks[0].one = false
						walked := &loadRun{idx: l.idx, name: l.name, plan: l.plan, largest: l.largest, index: slow}
						want, err := r.subject(walked, j)
						if err != nil {
							t.Fatal(err)
						}
						if !sameContext(want, fast) {
							t.Fatalf("load %s subject %d: the walk over the run found %v, the one tree %v", l.name, j, want.Items, fast.Items)
						}
						checked++
					}
				}
			}
			t.Cleanup(func() { numbered = nil })
			o := c.options(f, url)
			o.TablePrefix = "one-"
			if _, err := Run(context.Background(), m, o); err != nil {
				t.Fatal(err)
			}
			if ones == 0 || checked == 0 {
				t.Fatalf("%d runs of one tree a subject, %d subjects checked; want some of each", ones, checked)
			}
			t.Logf("%d subjects checked, %d runs of one tree a subject", checked, ones)
		})
	}
}

// sameContext says two contexts hold the same items of the same
// entities, from the same tree.
func sameContext(a, b *Context) bool {
	if a.block != b.block || a.row != b.row || len(a.Items) != len(b.Items) {
		return false
	}
	for i, it := range a.Items {
		o := b.Items[i]
		if it.Entity != o.Entity || !attr.EqualItems(it.Item, o.Item) || !attr.EqualItems(it.Key, o.Key) {
			return false
		}
	}
	return true
}
