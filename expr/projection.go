package expr

import (
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Projection is a parsed projection expression.
type Projection struct {
	paths []Path
	root  *ptree
	attrs []string
}

// ptree merges the projected paths: a leaf keeps the whole value, inner
// nodes keep the named keys or listed indexes below them.
type ptree struct {
	leaf  bool
	names []pname // sorted by name
	index []pindex
}

type pname struct {
	name string
	t    *ptree
}

type pindex struct {
	index int
	t     *ptree
}

// Projection parses a ProjectionExpression: document paths separated by
// commas.
func (s *Scope) Projection(src string) (*Projection, error) {
	var p parser
	if err := s.start(&p, ProjectionKind, src); err != nil {
		return nil, err
	}
	var paths []Path
	for p.ok() {
		paths = append(paths, p.updatePath())
		if !p.ok() || p.tok.kind != tComma {
			break
		}
		p.next()
	}
	p.expectEOF()
	if p.ok() {
		p.notePaths(paths)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	pr := &Projection{paths: paths, root: &ptree{}}
	for _, path := range paths {
		pr.root.add(path)
		if !slices.Contains(pr.attrs, path.Attr()) {
			pr.attrs = append(pr.attrs, path.Attr())
		}
	}
	slices.Sort(pr.attrs)
	return pr, nil
}

// notePaths records the first overlap or conflict among paths.
func (p *parser) notePaths(paths []Path) {
	err := checkPaths(p.kind, paths)
	if err == nil {
		return
	}
	msg := strings.TrimPrefix(err.Msg, "Invalid "+p.kind.String()+": ")
	if strings.Contains(msg, "overlap") {
		p.note(eOverlap, "%s", msg)
	} else {
		p.note(eConflict, "%s", msg)
	}
}

func (t *ptree) add(path Path) {
	for _, s := range path {
		var next *ptree
		if s.IsIndex() {
			i, found := slices.BinarySearchFunc(t.index, s.Index, func(x pindex, k int) int { return x.index - k })
			if !found {
				t.index = slices.Insert(t.index, i, pindex{s.Index, &ptree{}})
			}
			next = t.index[i].t
		} else {
			i, found := slices.BinarySearchFunc(t.names, s.Name, func(x pname, k string) int { return strings.Compare(x.name, k) })
			if !found {
				t.names = slices.Insert(t.names, i, pname{s.Name, &ptree{}})
			}
			next = t.names[i].t
		}
		t = next
	}
	t.leaf = true
}

// Paths returns the projected paths as written.
func (pr *Projection) Paths() []Path { return pr.paths }

// Attrs returns the top-level attributes the projection reads, sorted.
func (pr *Projection) Attrs() []string { return pr.attrs }

// Apply returns the projection of it, keeping the nesting: a map keeps
// only the projected keys, a list only the projected elements, in index
// order. Paths that lead nowhere contribute nothing, and containers left
// with nothing are left out.
func (pr *Projection) Apply(it attr.Item) attr.Item {
	out := make(attr.Item, 0, len(pr.root.names))
	return pr.root.pick(it, out)
}

func (t *ptree) pick(m attr.Item, out attr.Item) attr.Item {
	for _, n := range t.names {
		v, ok := m.Get(n.name)
		if !ok {
			continue
		}
		if v, ok = n.t.project(v); ok {
			out = append(out, attr.Field{Name: n.name, Value: v})
		}
	}
	return out
}

func (t *ptree) project(v attr.Value) (attr.Value, bool) {
	switch {
	case t.leaf:
		return v, true
	case len(t.names) > 0 && v.Type == attr.M:
		m := t.pick(v.Map, nil)
		return attr.MapOf(m), len(m) > 0
	case len(t.index) > 0 && v.Type == attr.L:
		var l []attr.Value
		for _, x := range t.index {
			if x.index >= len(v.List) {
				break
			}
			if e, ok := x.t.project(v.List[x.index]); ok {
				l = append(l, e)
			}
		}
		return attr.ListOf(l...), len(l) > 0
	}
	return attr.Value{}, false
}
