package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// KeyMode is how the key of an index with several partition or sort
// attributes is created: on those attributes (a target that has
// multi-attribute keys) or on the index's synthetic fallback. The tables
// a runner creates, the generated code's CreateTable requests and the
// CloudFormation template are all laid out from it (Model.Layout), so
// that they agree.
type KeyMode string

// Key modes.
const (
	// KeysNative keys an index on its attributes, up to four partition
	// and four sort attributes, as DynamoDB has had since November 2025
	// (and the embedded engine has).
	KeysNative KeyMode = "native"
	// KeysSynthetic keys an index of several key attributes on its
	// synthetic fallback (indexes.X.synthetic): one concatenated string
	// attribute per side, which every writer must maintain.
	KeysSynthetic KeyMode = "synthetic"
	// KeysAuto is for a target to choose: it probes the target and takes
	// native where it is accepted, synthetic otherwise.
	KeysAuto KeyMode = "auto"
)

// ParseKeyMode reads a --keys flag; "" is KeysAuto.
func ParseKeyMode(s string) (KeyMode, error) {
	switch k := KeyMode(s); k {
	case KeysNative, KeysSynthetic, KeysAuto:
		return k, nil
	case "":
		return KeysAuto, nil
	}
	return "", fmt.Errorf("--keys %q: want native, synthetic or auto", s)
}

// MultiKey reports whether the index has more than one attribute on a side
// of its key: only such an index is keyed differently by the key modes.
func (x *Index) MultiKey() bool { return len(x.Partition) > 1 || len(x.Sort) > 1 }

// KeyedSynthetic reports whether index x is keyed on its synthetic
// fallback under key mode k: a multi-attribute key that declares one.
func (x *Index) KeyedSynthetic(k KeyMode) bool {
	return k == KeysSynthetic && x.Synthetic != nil && x.MultiKey()
}

// CheckKeys says, before any table is created, whether the model's indexes
// can be keyed as k asks: with synthetic keys (a target without
// multi-attribute keys), every index of several key attributes needs its
// synthetic fallback. The errors are positioned at each index.
func (m *Model) CheckKeys(k KeyMode) error {
	if k != KeysSynthetic {
		return nil
	}
	var errs ErrorList
	for _, x := range m.Indexes {
		if x.Synthetic == nil && x.MultiKey() {
			pos, _ := m.Locate("indexes", x.Name)
			errs = append(errs, &Error{Pos: pos, Path: "indexes." + x.Name,
				Msg:  "a key of several attributes, and no synthetic fallback for a target without multi-attribute keys",
				Hint: "declare indexes." + x.Name + ".synthetic (partition and sort templates), or use a target with multi-attribute keys (--keys native)"})
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// TableLayout is a table's key layout as DynamoDB's CreateTable and
// CloudFormation declare it under one key mode: its attribute
// definitions, its key schema and its indexes'.
type TableLayout struct {
	Table *Table
	// Attributes are the key attributes of the table and its indexes,
	// sorted by name, each with its scalar type (S, N or B).
	Attributes []KeyAttribute
	Keys       []KeyElement
	// Global and Local are the table's indexes in the model's order.
	Global, Local []IndexLayout
}

// KeyAttribute is an attribute definition.
type KeyAttribute struct {
	Name string
	Type attr.Type
}

// KeyElement is one element of a key schema: the partition (hash) side,
// or the sort (range) side when Range is set.
type KeyElement struct {
	Name  string
	Range bool
}

// IndexLayout is an index's key schema and projection under a key mode.
type IndexLayout struct {
	Index *Index
	Keys  []KeyElement
	// Projection is ALL, KEYS_ONLY or INCLUDE, with NonKey the attributes
	// INCLUDE adds. An index keyed on its synthetic fallback projects its
	// natural key attributes, which are keys no longer, so that its
	// entries hold what they hold natively.
	Projection string
	NonKey     []string
}

// Layout lays out table t and its indexes under key mode k (KeysNative or
// KeysSynthetic): multi-attribute keys natively, or on the synthetic
// attributes where an index declares them. An index of several key
// attributes without a fallback keeps its attributes: Model.CheckKeys is
// where a target that cannot take them refuses the model.
func (m *Model) Layout(t *Table, k KeyMode) (TableLayout, error) {
	tl := TableLayout{Table: t}
	seen := map[string]bool{}
	// key appends an element to keys and defines its attribute, of the
	// model's type (S when the attribute is not declared, as a synthetic
	// key is not).
	key := func(keys *[]KeyElement, name string, sort bool, synthetic bool) error {
		*keys = append(*keys, KeyElement{name, sort})
		if seen[name] {
			return nil
		}
		typ := attr.S
		if a := m.Attribute(name); a != nil && !synthetic {
			typ = a.Type
		}
		if !typ.IsScalar() {
			return fmt.Errorf("table %s: key attribute %s is %s; keys are S, N or B", t.Name, name, typ)
		}
		seen[name] = true
		tl.Attributes = append(tl.Attributes, KeyAttribute{name, typ})
		return nil
	}
	for i, a := range t.KeyAttributes() {
		if err := key(&tl.Keys, a, i == 1, false); err != nil {
			return TableLayout{}, err
		}
	}
	for _, x := range t.Indexes {
		il := IndexLayout{Index: x, Projection: x.Projection.Type}
		if il.Projection == "" {
			il.Projection = "ALL"
		}
		if il.Projection == "INCLUDE" {
			il.NonKey = slices.Clone(x.Projection.Attributes)
		}
		if x.KeyedSynthetic(k) {
			if il.Projection != "ALL" {
				il.Projection = "INCLUDE"
				for _, a := range x.KeyAttributes() {
					if a != t.PartitionKey && a != t.SortKey && !slices.Contains(il.NonKey, a) {
						il.NonKey = append(il.NonKey, a)
					}
				}
			}
			s := x.Synthetic
			if err := key(&il.Keys, s.Partition.Attribute, false, true); err != nil {
				return TableLayout{}, err
			}
			if s.Sort != nil {
				if err := key(&il.Keys, s.Sort.Attribute, true, true); err != nil {
					return TableLayout{}, err
				}
			}
		} else {
			for _, a := range x.Partition {
				if err := key(&il.Keys, a, false, false); err != nil {
					return TableLayout{}, err
				}
			}
			for _, a := range x.Sort {
				if err := key(&il.Keys, a, true, false); err != nil {
					return TableLayout{}, err
				}
			}
		}
		if x.Local {
			tl.Local = append(tl.Local, il)
		} else {
			tl.Global = append(tl.Global, il)
		}
	}
	slices.SortFunc(tl.Attributes, func(a, b KeyAttribute) int { return strings.Compare(a.Name, b.Name) })
	return tl, nil
}
