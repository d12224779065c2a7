package expr

// A Use is one expression attribute value and what the expression does
// with it: the path it is assigned to or compared with. A model checks a
// value against the domain of that path's attribute (a status assigned
// IN_PROGRES where the enum says IN_PROGRESS) without evaluating
// anything.
type Use struct {
	Value string // the placeholder, ":claimed"
	Path  Path   // the path it is assigned to or compared with
	How   UseKind
}

// UseKind is what an expression does with a value.
type UseKind uint8

// What a value can be to a path.
const (
	// Assigned: the path takes the value (SET p = :v, SET p =
	// if_not_exists(p, :v)).
	Assigned UseKind = iota
	// Equal: the path is compared equal or unequal to the value (=, <>,
	// IN); a value outside the path's domain makes the comparison
	// constant.
	Equal
	// Ordered: the path is compared in order with the value (<, <=, >,
	// >=, BETWEEN); bounds outside the domain are legitimate.
	Ordered
	// Elements: the value's elements join the path (list_append, ADD to
	// a set) or leave it (DELETE).
	Elements
	// Prefix: begins_with(path, value).
	Prefix
	// Member: contains(path, value), an element or a substring of it.
	Member
	// Amount: the value is added to or subtracted from the path's number
	// (SET p = p + :v, ADD p :v).
	Amount
)

// Uses returns what the update does with each of its values, in the
// order of the expression.
func (u *Update) Uses() []Use {
	var out []Use
	for _, s := range u.sets {
		setUses(s.path, s.val, &out)
	}
	for _, a := range u.adds {
		how := Elements
		if a.val.Type.String() == "N" {
			how = Amount
		}
		out = append(out, Use{a.ph, a.path, how})
	}
	for _, d := range u.deletes {
		out = append(out, Use{d.ph, d.path, Elements})
	}
	return out
}

func setUses(path Path, o operand, out *[]Use) {
	switch o.kind {
	case oValue:
		*out = append(*out, Use{o.ph, path, Assigned})
	case oIfNotExists:
		if len(o.args) == 2 {
			setUses(path, o.args[1], out)
		}
	case oListAppend:
		for _, a := range o.args {
			if a.kind == oValue {
				*out = append(*out, Use{a.ph, path, Elements})
			}
		}
	case oPlus, oMinus:
		for _, a := range o.args {
			if a.kind == oValue {
				*out = append(*out, Use{a.ph, path, Amount})
			}
		}
	}
}

// Uses returns the values the condition compares with paths, in the
// order of the expression. Values compared with anything but a path (a
// size, another value) are left out.
func (c *Condition) Uses() []Use {
	var out []Use
	c.root.uses(&out)
	return out
}

func (n *node) uses(out *[]Use) {
	if n == nil {
		return
	}
	n.left.uses(out)
	n.right.uses(out)
	pathOf := func(o operand) (Path, bool) {
		if o.kind == oPath {
			return o.path, true
		}
		return nil, false
	}
	pair := func(a, b operand, how UseKind) {
		if p, ok := pathOf(a); ok && b.kind == oValue {
			*out = append(*out, Use{b.ph, p, how})
		} else if p, ok := pathOf(b); ok && a.kind == oValue {
			*out = append(*out, Use{a.ph, p, how})
		}
	}
	switch n.op {
	case nCmp:
		if len(n.args) == 2 {
			how := Ordered
			if n.cmp == cEq || n.cmp == cNe {
				how = Equal
			}
			pair(n.args[0], n.args[1], how)
		}
	case nBetween:
		if len(n.args) == 3 {
			if p, ok := pathOf(n.args[0]); ok {
				for _, v := range n.args[1:] {
					if v.kind == oValue {
						*out = append(*out, Use{v.ph, p, Ordered})
					}
				}
			}
		}
	case nIn:
		if len(n.args) > 0 {
			if p, ok := pathOf(n.args[0]); ok {
				for _, v := range n.args[1:] {
					if v.kind == oValue {
						*out = append(*out, Use{v.ph, p, Equal})
					}
				}
			}
		}
	case nBeginsWith, nContains:
		if len(n.args) == 2 {
			how := Prefix
			if n.op == nContains {
				how = Member
			}
			if p, ok := pathOf(n.args[0]); ok && n.args[1].kind == oValue {
				*out = append(*out, Use{n.args[1].ph, p, how})
			}
		}
	}
}
