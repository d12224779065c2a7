package expr

import (
	"slices"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Update is a parsed update expression.
type Update struct {
	sets []setAction
	// setOrder applies the SET actions by path, so that elements appended
	// to one list land in the order of their indexes, as on DynamoDB.
	setOrder []int
	removes  []Path
	adds     []valueAction
	deletes  []valueAction
	attrs    []string
}

type setAction struct {
	path Path
	val  operand
}

type valueAction struct {
	path Path
	val  attr.Value
	ph   string
}

// Attrs returns the top-level attributes the update writes, sorted, so an
// engine can refuse updates of key attributes before applying anything.
func (u *Update) Attrs() []string { return u.attrs }

// Reads returns the top-level attributes the values of SET actions read
// (a = a + :one, if_not_exists, list_append), sorted, so that a model can
// check that they exist.
func (u *Update) Reads() []string {
	var out []string
	for i := range u.sets {
		u.sets[i].val.attrs(&out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Paths returns every document path the update writes, in the order of
// the expression: SET, REMOVE, ADD and DELETE actions as written.
func (u *Update) Paths() []Path {
	var out []Path
	for _, s := range u.sets {
		out = append(out, s.path)
	}
	out = append(out, u.removes...)
	for _, a := range u.adds {
		out = append(out, a.path)
	}
	for _, d := range u.deletes {
		out = append(out, d.path)
	}
	return out
}

// Update parses an UpdateExpression.
func (s *Scope) Update(src string) (*Update, error) {
	var p parser
	if err := s.start(&p, UpdateKind, src); err != nil {
		return nil, err
	}
	u := &Update{}
	var seen [4]bool
	var paths []Path
	for p.ok() {
		sec := -1
		for i, kw := range [...]string{"SET", "REMOVE", "ADD", "DELETE"} {
			if p.isKeyword(kw) {
				sec = i
			}
		}
		if sec < 0 {
			p.fail()
			break
		}
		if seen[sec] {
			p.note(eSection, "The %q section can only be used once in an update expression;", strings.ToUpper(p.text()))
		}
		seen[sec] = true
		p.next()
		for p.ok() {
			path := p.updatePath()
			if !p.ok() {
				break
			}
			paths = append(paths, path)
			switch sec {
			case 0:
				if !p.expect(tEq) {
					break
				}
				u.sets = append(u.sets, setAction{path, p.setValue()})
			case 1:
				u.removes = append(u.removes, path)
			case 2, 3:
				if p.tok.kind != tValue {
					p.fail()
					break
				}
				ph := p.text()
				v := p.value()
				op := "ADD"
				if sec == 3 {
					op = "DELETE"
				}
				if v.Type != attr.Invalid && !v.Type.IsSet() && !(sec == 2 && v.Type == attr.N) {
					p.note(eOperands, "Incorrect operand type for operator or function; operator: %s, operand type: %s", op, typeWord(v.Type))
				}
				if sec == 2 {
					u.adds = append(u.adds, valueAction{path, v, ph})
				} else {
					u.deletes = append(u.deletes, valueAction{path, v, ph})
				}
			}
			if !p.ok() || p.tok.kind != tComma {
				break
			}
			p.next()
		}
		if p.ok() && p.tok.kind == tEOF {
			break
		}
	}
	p.notePaths(paths)
	if err := p.finish(); err != nil {
		return nil, err
	}
	for _, path := range paths {
		if !slices.Contains(u.attrs, path.Attr()) {
			u.attrs = append(u.attrs, path.Attr())
		}
	}
	slices.Sort(u.attrs)
	u.setOrder = make([]int, len(u.sets))
	for i := range u.setOrder {
		u.setOrder[i] = i
	}
	slices.SortStableFunc(u.setOrder, func(i, j int) int { return comparePaths(u.sets[i].path, u.sets[j].path) })
	return u, nil
}

// updatePath parses the target path of an action.
func (p *parser) updatePath() Path {
	if p.tok.kind != tWord && p.tok.kind != tName {
		p.fail()
		return nil
	}
	return p.path()
}

// setValue parses operand [ + | - operand ].
func (p *parser) setValue() operand {
	left := p.setOperand()
	if !p.ok() || p.tok.kind != tPlus && p.tok.kind != tMinus {
		return left
	}
	k, name := oPlus, "+"
	if p.tok.kind == tMinus {
		k, name = oMinus, "-"
	}
	p.next()
	right := p.setOperand()
	for _, o := range [...]operand{left, right} {
		if t, ok := staticType(o); ok && t != attr.N {
			p.wrongType(name, t)
		}
	}
	return operand{kind: k, args: []operand{left, right}}
}

// setOperand parses an operand of SET, where parentheses may also hold
// an arithmetic value: SET a = (a + :x).
func (p *parser) setOperand() operand {
	if p.tok.kind != tLParen {
		return p.operand()
	}
	var o operand
	p.parens(func() { o = p.setValue() })
	return o
}

// updateFunction checks if_not_exists and list_append.
func (p *parser) updateFunction(name string, args []operand) operand {
	if !p.countArgs(name, args, 2) {
		return operand{kind: oBad}
	}
	if name == "if_not_exists" {
		p.needPath(name, args[0])
		return operand{kind: oIfNotExists, args: args}
	}
	for _, a := range args {
		if t, ok := staticType(a); ok && t != attr.L {
			p.wrongType(name, t)
		}
	}
	return operand{kind: oListAppend, args: args}
}

// Apply returns the item the update makes of it; it itself is never
// changed. A nil item stands for an item that does not exist yet (the
// engine adds the key attributes). Errors are DynamoDB's: paths whose
// parent is missing or of the wrong type, operands of the wrong type,
// operands that refer to missing attributes, number overflow.
func (u *Update) Apply(it attr.Item) (attr.Item, error) {
	// Every operand refers to the item as it was before the update.
	vals := make([]attr.Value, len(u.sets))
	for i, s := range u.sets {
		v, err := s.val.compute(it)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	out := it
	var err error
	for _, i := range u.setOrder {
		if out, err = setPath(out, u.sets[i].path, vals[i]); err != nil {
			return nil, err
		}
	}
	if len(u.removes) > 0 {
		// Indexes refer to the list before any removal: remove the
		// highest first so the others do not shift.
		rm := slices.Clone(u.removes)
		slices.SortFunc(rm, func(a, b Path) int { return -comparePaths(a, b) })
		for _, path := range rm {
			if out, err = removePath(out, path); err != nil {
				return nil, err
			}
		}
	}
	for _, a := range u.adds {
		old, ok := a.path.Get(it)
		v := a.val
		if ok {
			if v, err = add(old, a.val); err != nil {
				return nil, err
			}
		}
		if out, err = setPath(out, a.path, v); err != nil {
			return nil, err
		}
	}
	for _, d := range u.deletes {
		old, ok := d.path.Get(it)
		if !ok {
			if !hasParent(out, d.path) {
				return nil, &Error{Msg: msgInvalidPath}
			}
			continue
		}
		if old.Type != d.val.Type {
			return nil, &Error{Msg: msgOperandType}
		}
		v := minus(old, d.val)
		if len(v.Set) == 0 {
			out, err = removePath(out, d.path)
		} else {
			out, err = setPath(out, d.path, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compute evaluates a SET operand.
func (o *operand) compute(it attr.Item) (attr.Value, error) {
	switch o.kind {
	case oPath:
		v, ok := o.path.Get(it)
		if !ok {
			return attr.Value{}, &Error{Msg: msgMissingValue}
		}
		return v, nil
	case oValue:
		return o.val, nil
	case oIfNotExists:
		if v, ok := o.args[0].path.Get(it); ok {
			return v, nil
		}
		return o.args[1].compute(it)
	case oListAppend:
		a, b, err := o.pair(it, attr.L)
		if err != nil {
			return attr.Value{}, err
		}
		l := make([]attr.Value, 0, len(a.List)+len(b.List))
		return attr.ListOf(append(append(l, a.List...), b.List...)...), nil
	case oPlus, oMinus:
		a, b, err := o.pair(it, attr.N)
		if err != nil {
			return attr.Value{}, err
		}
		var s string
		if o.kind == oPlus {
			s, err = attr.AddNumbers(a.Str, b.Str)
		} else {
			s, err = attr.SubNumbers(a.Str, b.Str)
		}
		if err != nil {
			return attr.Value{}, &Error{Msg: err.Error()}
		}
		return attr.Num(s), nil
	}
	return attr.Value{}, &Error{Msg: msgOperandType}
}

// pair computes the two operands of a function or operator, which must
// both be of type t.
func (o *operand) pair(it attr.Item, t attr.Type) (a, b attr.Value, err error) {
	if a, err = o.args[0].compute(it); err != nil {
		return a, b, err
	}
	if b, err = o.args[1].compute(it); err != nil {
		return a, b, err
	}
	if a.Type != t || b.Type != t {
		return a, b, &Error{Msg: msgOperandType}
	}
	return a, b, nil
}

// add is ADD on an existing value: a sum of numbers or a union of sets.
func add(old, v attr.Value) (attr.Value, error) {
	if old.Type != v.Type {
		return attr.Value{}, &Error{Msg: msgOperandType}
	}
	if v.Type == attr.N {
		s, err := attr.AddNumbers(old.Str, v.Str)
		if err != nil {
			return attr.Value{}, &Error{Msg: err.Error()}
		}
		return attr.Num(s), nil
	}
	set := slices.Clone(old.Set)
	for _, m := range v.Set {
		if !hasMember(set, m, v.Type == attr.NS) {
			set = append(set, m)
		}
	}
	return attr.Value{Type: v.Type, Set: set}, nil
}

// minus is DELETE: the members of old not in v.
func minus(old, v attr.Value) attr.Value {
	set := make([]string, 0, len(old.Set))
	for _, m := range old.Set {
		if !hasMember(v.Set, m, v.Type == attr.NS) {
			set = append(set, m)
		}
	}
	return attr.Value{Type: old.Type, Set: set}
}

// comparePaths orders paths step by step, indexes numerically.
func comparePaths(a, b Path) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.IsIndex() && y.IsIndex() {
			if x.Index != y.Index {
				return x.Index - y.Index
			}
			continue
		}
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		if x.IsIndex() != y.IsIndex() {
			if x.IsIndex() {
				return 1
			}
			return -1
		}
	}
	return len(a) - len(b)
}

// setPath returns it with the value at path replaced by v. The parent of
// the target must exist with the right type; an index past the end of a
// list appends.
func setPath(it attr.Item, path Path, v attr.Value) (attr.Item, error) {
	if len(path) == 1 {
		return it.With(path[0].Name, v), nil
	}
	cur, ok := it.Get(path[0].Name)
	if !ok {
		return nil, &Error{Msg: msgInvalidPath}
	}
	nv, err := setIn(cur, path[1:], v)
	if err != nil {
		return nil, err
	}
	return it.With(path[0].Name, nv), nil
}

func setIn(cur attr.Value, steps []Step, v attr.Value) (attr.Value, error) {
	s := steps[0]
	if s.IsIndex() {
		if cur.Type != attr.L {
			return attr.Value{}, &Error{Msg: msgInvalidPath}
		}
		if len(steps) == 1 {
			l := slices.Clone(cur.List)
			if s.Index < len(l) {
				l[s.Index] = v
			} else {
				l = append(l, v)
			}
			return attr.ListOf(l...), nil
		}
		if s.Index >= len(cur.List) {
			return attr.Value{}, &Error{Msg: msgInvalidPath}
		}
		nv, err := setIn(cur.List[s.Index], steps[1:], v)
		if err != nil {
			return attr.Value{}, err
		}
		l := slices.Clone(cur.List)
		l[s.Index] = nv
		return attr.ListOf(l...), nil
	}
	if cur.Type != attr.M {
		return attr.Value{}, &Error{Msg: msgInvalidPath}
	}
	if len(steps) == 1 {
		return attr.MapOf(cur.Map.With(s.Name, v)), nil
	}
	child, ok := cur.Map.Get(s.Name)
	if !ok {
		return attr.Value{}, &Error{Msg: msgInvalidPath}
	}
	nv, err := setIn(child, steps[1:], v)
	if err != nil {
		return attr.Value{}, err
	}
	return attr.MapOf(cur.Map.With(s.Name, nv)), nil
}

// hasParent reports whether the container that path's last step goes
// into exists with the right type: a map for a key, a list for an index.
func hasParent(it attr.Item, path Path) bool {
	if len(path) == 1 {
		return true
	}
	v, ok := path[:len(path)-1].Get(it)
	if path[len(path)-1].IsIndex() {
		return ok && v.Type == attr.L
	}
	return ok && v.Type == attr.M
}

// removePath returns it without the value at path. Removing a missing
// key or index changes nothing, but its container must exist, as on
// DynamoDB; removing a list element shifts the later ones down.
func removePath(it attr.Item, path Path) (attr.Item, error) {
	if len(path) == 1 {
		return it.Without(path[0].Name), nil
	}
	cur, ok := it.Get(path[0].Name)
	if !ok {
		return nil, &Error{Msg: msgInvalidPath}
	}
	nv, changed, err := removeIn(cur, path[1:])
	if err != nil || !changed {
		return it, err
	}
	return it.With(path[0].Name, nv), nil
}

func removeIn(cur attr.Value, steps []Step) (attr.Value, bool, error) {
	s := steps[0]
	if s.IsIndex() {
		if cur.Type != attr.L {
			return cur, false, &Error{Msg: msgInvalidPath}
		}
		if s.Index >= len(cur.List) {
			if len(steps) > 1 {
				return cur, false, &Error{Msg: msgInvalidPath}
			}
			return cur, false, nil
		}
		if len(steps) == 1 {
			l := make([]attr.Value, 0, len(cur.List)-1)
			l = append(append(l, cur.List[:s.Index]...), cur.List[s.Index+1:]...)
			return attr.ListOf(l...), true, nil
		}
		nv, changed, err := removeIn(cur.List[s.Index], steps[1:])
		if err != nil || !changed {
			return cur, false, err
		}
		l := slices.Clone(cur.List)
		l[s.Index] = nv
		return attr.ListOf(l...), true, nil
	}
	if cur.Type != attr.M {
		return cur, false, &Error{Msg: msgInvalidPath}
	}
	child, ok := cur.Map.Get(s.Name)
	if !ok {
		if len(steps) > 1 {
			return cur, false, &Error{Msg: msgInvalidPath}
		}
		return cur, false, nil
	}
	if len(steps) == 1 {
		return attr.MapOf(cur.Map.Without(s.Name)), true, nil
	}
	nv, changed, err := removeIn(child, steps[1:])
	if err != nil || !changed {
		return cur, false, err
	}
	return attr.MapOf(cur.Map.With(s.Name, nv)), true, nil
}
