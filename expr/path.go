package expr

import (
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Step is one element of a document path: a map key (or, first, an
// attribute name) or a list index.
type Step struct {
	Name  string // the key; "" for an index step
	Index int    // the list index, or -1 for a name step
}

// IsIndex reports whether the step indexes a list.
func (s Step) IsIndex() bool { return s.Index >= 0 }

// Path is a document path such as a.b[2].c, with placeholders resolved.
// Its first step is always a name: the top-level attribute.
type Path []Step

// Attr returns the top-level attribute the path starts at.
func (p Path) Attr() string { return p[0].Name }

// String renders the path as written in expressions, e.g. a.b[2].c.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		if s.IsIndex() {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Name)
	}
	return b.String()
}

// listing renders the path as DynamoDB's messages do: [a, b, [2], c].
func (p Path) listing() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		if s.IsIndex() {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		} else {
			b.WriteString(s.Name)
		}
	}
	b.WriteByte(']')
	return b.String()
}

func (p Path) equal(q Path) bool {
	if len(p) != len(q) {
		return false
	}
	for i := range p {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Get returns the value the path designates in it. A missing attribute,
// key or index, or a step into a value of the wrong type, finds nothing.
func (p Path) Get(it attr.Item) (attr.Value, bool) {
	v, ok := it.Get(p[0].Name)
	if !ok {
		return attr.Value{}, false
	}
	for _, s := range p[1:] {
		if s.IsIndex() {
			if v.Type != attr.L || s.Index >= len(v.List) {
				return attr.Value{}, false
			}
			v = v.List[s.Index]
			continue
		}
		if v.Type != attr.M {
			return attr.Value{}, false
		}
		if v, ok = v.Map.Get(s.Name); !ok {
			return attr.Value{}, false
		}
	}
	return v, true
}

// clash compares two paths of one update or projection: overlap when one
// is a prefix of the other (or they are equal), conflict when they
// diverge in kind (a key against an index) at the same depth.
func clash(kind Kind, a, b Path) *Error {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i].IsIndex() != b[i].IsIndex() {
			return kind.errorf("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a.listing(), b.listing())
		}
		if a[i] != b[i] {
			return nil
		}
	}
	return kind.errorf("Two document paths overlap with each other; must remove or rewrite one of these paths; path one: %s, path two: %s", a.listing(), b.listing())
}

// checkPaths reports the first overlap or conflict among paths, comparing
// each with those before it; overlaps are reported before conflicts.
func checkPaths(kind Kind, paths []Path) *Error {
	var conflict *Error
	for i := range paths {
		for j := 0; j < i; j++ {
			if err := clash(kind, paths[j], paths[i]); err != nil {
				if strings.Contains(err.Msg, "overlap") {
					return err
				}
				if conflict == nil {
					conflict = err
				}
			}
		}
	}
	return conflict
}
