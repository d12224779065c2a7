package catalog

import "reflect"

// Equal reports whether two models have the same meaning: everything but
// the source name, the warnings' positions and the document's formatting.
func (m *Model) Equal(o *Model) bool {
	a, b := *m, *o
	a.Source, b.Source = "", ""
	a.doc, b.doc = nil, nil
	a.Warnings, b.Warnings = nil, nil
	if len(m.Warnings) != len(o.Warnings) {
		return false
	}
	for i := range m.Warnings {
		x, y := m.Warnings[i], o.Warnings[i]
		if x.Code != y.Code || x.Path != y.Path || x.Msg != y.Msg || x.Accepted != y.Accepted {
			return false
		}
	}
	return reflect.DeepEqual(a, b)
}
