package catalog

import "strconv"

// Locate returns the position in the model's file of the value at path,
// given as keys of mappings and indexes of sequences ("operations",
// "ApplySettlement", "budgets", "cures", "wru"): where its key is written
// for a mapping entry, where it starts for a list element. When the path
// goes deeper than the document (a budget that declares no rru), the
// deepest existing value is returned and ok is false; a model built
// without a document locates nothing.
//
// Reports use it to point at the line a reviewer should read: the budget
// an operation exceeds, the index whose projection copies an attribute,
// the entity whose item crossed a size boundary.
func (m *Model) Locate(path ...string) (pos Pos, ok bool) {
	if m == nil || m.doc == nil {
		return Pos{}, false
	}
	n := m.doc
	pos = Pos{File: m.Source, Line: 1, Col: 1}
	for _, key := range path {
		var next *tnode
		switch n.kind {
		case 'm':
			next = n.get(key)
		case 'l':
			if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(n.items) {
				next = n.items[i]
			}
		}
		if next == nil {
			return pos, false
		}
		n = next
		pos = n.keyPos
		if pos.Line == 0 {
			pos = n.pos
		}
	}
	pos.File = m.Source
	return pos, true
}
