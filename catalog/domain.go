package catalog

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cardapio/cardapio/attr"
)

// Domain is the set of values an attribute, or an element or member of
// one, may take beyond its type: the bounds a sample, an operation's
// parameter, a value in an expression and a generated item are all held
// to. The zero Domain allows every value of the type.
type Domain struct {
	// Enum lists the allowed values: strings of an S, canonical numbers
	// of an N.
	Enum []string
	// Min and Max bound an N (inclusive), Integer makes it whole.
	Min, Max *float64
	Integer  bool
	// MinLength and MaxLength bound the characters of an S (Unicode code
	// points, not bytes); Pattern is a regular expression (RE2) the whole
	// value matches.
	MinLength, MaxLength *int
	Pattern              *Pattern
	// MinItems and MaxItems bound the elements of an L or a set, or the
	// members of an M.
	MinItems, MaxItems *int
	// Items is the domain of every element of an L or a set; Fields are
	// the members of an M, sorted by name: when set, a member not listed
	// is refused.
	Items  *Member
	Fields []*Member
	// Instant is the exact text form of an instant, nil when any RFC 3339
	// text is accepted.
	Instant *InstantFormat

	min, max *big.Rat
}

// Member is the domain of an element of a list or set, or of a member of
// a map.
type Member struct {
	Name     string // the member's name; "" for list elements
	Type     attr.Type
	Unit     string
	Optional bool // a map member that may be missing
	Domain
	label string // how messages name it (lineItems's elements, qty)
}

// Pattern is a compiled regular expression the whole value must match.
type Pattern struct {
	Text string
	re   *regexp.Regexp
}

// MatchString reports whether the whole of s matches.
func (p *Pattern) MatchString(s string) bool { return p.re.MatchString(s) }

// Precisions of instants: the number of fractional digits.
var precisions = map[string]int{"s": 0, "ms": 3, "us": 6, "ns": 9}

// InstantFormat is the one text form an instant takes: RFC 3339 with a
// fixed offset and a fixed number of fractional digits, so that the text
// order of two instants is their time order (what a key needs).
type InstantFormat struct {
	Offset    string // Z, or a fixed offset such as -03:00
	Precision string // s, ms, us or ns
	zone      *time.Location
}

// Format writes t in the format.
func (f *InstantFormat) Format(t time.Time) string {
	return string(f.AppendFormat(nil, t))
}

// AppendFormat appends t in the format to dst: a generator writing
// millions of instants does so without allocating.
func (f *InstantFormat) AppendFormat(dst []byte, t time.Time) []byte {
	layout := "2006-01-02T15:04:05"
	switch precisions[f.Precision] {
	case 3:
		layout += ".000"
	case 6:
		layout += ".000000"
	case 9:
		layout += ".000000000"
	}
	if f.Offset == "Z" {
		return append(t.In(time.UTC).AppendFormat(dst, layout), 'Z')
	}
	return t.In(f.zone).AppendFormat(dst, layout+"-07:00")
}

// Resolution is the smallest step the format writes: reading back what
// Format wrote gives t truncated to it.
func (f *InstantFormat) Resolution() time.Duration {
	switch precisions[f.Precision] {
	case 3:
		return time.Millisecond
	case 6:
		return time.Microsecond
	case 9:
		return 1
	}
	return time.Second
}

// Example is a sample instant in the format.
func (f *InstantFormat) Example() string {
	return f.Format(time.Date(2026, 9, 24, 3, 7, 1, 0, time.UTC))
}

// Describe says the format in words.
func (f *InstantFormat) Describe() string {
	zone := "UTC"
	if f.Offset != "Z" {
		zone = "offset " + f.Offset
	}
	prec := map[string]string{"s": "whole seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}[f.Precision]
	return fmt.Sprintf("%s with %s, such as %s", zone, prec, f.Example())
}

func (f *InstantFormat) check(s string) error {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("%q is not an instant such as %s", s, f.Example())
	}
	if f.Format(t) != s {
		return fmt.Errorf("%q is not written in the instant format: %s", s, f.Describe())
	}
	return nil
}

func parseInstantFormat(offset, precision string) (*InstantFormat, error) {
	f := &InstantFormat{Offset: offset, Precision: precision, zone: time.UTC}
	if _, ok := precisions[precision]; !ok {
		return nil, fmt.Errorf("precision %q is not s, ms, us or ns", precision)
	}
	if offset != "Z" {
		t, err := time.Parse("-07:00", offset)
		if err != nil {
			return nil, fmt.Errorf("offset %q is not Z or ±HH:MM", offset)
		}
		_, secs := t.Zone()
		f.zone = time.FixedZone(offset, secs)
	}
	return f, nil
}

// Check reports whether v is a value of the attribute: its type, the form
// its unit asks (civil dates, instants) and its domain. The error names
// the value and the rule it breaks, never the attribute's path.
func (a *Attribute) Check(v attr.Value) error {
	return checkValue(a.Name, a.Type, a.Unit, &a.Domain, v)
}

// Check reports whether v is a value of the element or member.
func (mb *Member) Check(v attr.Value) error {
	name := mb.label
	if name == "" {
		name = mb.Name
	}
	if name == "" {
		name = "the element"
	}
	return checkValue(name, mb.Type, mb.Unit, &mb.Domain, v)
}

// CheckItem checks an item of the entity: every attribute a known value
// of the dictionary, carried by the entity and of its domain; the
// required ones present; the presence rules (when, unless) kept; the key
// attributes equal to what the templates render from the item. It is
// what the dataset generator holds every generated item to, and what the
// catalog holds the samples to. Key-only attributes are not stored, so
// an item need not carry them.
func (e *Entity) CheckItem(it attr.Item) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	keys := map[string]bool{}
	if e.Table != nil {
		for _, k := range e.Table.KeyAttributes() {
			keys[k] = true
		}
	}
	for _, f := range it {
		if keys[f.Name] {
			continue
		}
		if e.Table != nil && f.Name == e.Table.Discriminator {
			if f.Value.Type != attr.S || f.Value.Str != e.TypeValue {
				add("%s: an item of %s has %s %q", f.Name, e.Name, f.Name, e.TypeValue)
			}
			continue
		}
		ea := e.attr(f.Name)
		if ea == nil || ea.Presence == KeyOnly || ea.Attribute == nil {
			add("%s: %s does not store %s", f.Name, e.Name, f.Name)
			continue
		}
		if err := ea.Attribute.Check(f.Value); err != nil {
			add("%s: %v", f.Name, err)
		}
	}
	errs = append(errs, e.presenceErrors(it)...)
	if len(e.Key) > 0 {
		values := map[string]attr.Value{}
		for _, f := range it {
			values[f.Name] = f.Value
		}
		for _, k := range e.Key {
			got, ok := it.Get(k.Attribute)
			if !ok {
				add("%s: the item has no %s", k.Attribute, k.Attribute)
				continue
			}
			if k.Natural() {
				if a := e.attrDef(k.Attribute); a != nil {
					if err := a.Check(got); err != nil {
						add("%s: %v", k.Attribute, err)
					}
				}
				continue
			}
			if want, err := k.Value(values, ""); err == nil && !attr.Equal(got, want) {
				add("%s: %q is not what its template %s renders from the item (%q)", k.Attribute, got.Str, k.Template.Text, want.Str)
			}
		}
	}
	return errs
}

// presenceErrors checks the required attributes and the presence rules.
func (e *Entity) presenceErrors(it attr.Item) []error {
	var errs []error
	for _, ea := range e.Attributes {
		if ea.Presence == KeyOnly {
			continue
		}
		_, has := it.Get(ea.Name)
		switch {
		case has && !ea.Allows(it):
			errs = append(errs, fmt.Errorf("%s: present, but %s", ea.Name, ea.ruleText(it)))
		case !has && ea.Needs(it):
			if len(ea.When) > 0 {
				errs = append(errs, fmt.Errorf("%s: missing: it is required while %s", ea.Name, condText(ea.When)))
			} else {
				errs = append(errs, fmt.Errorf("%s: missing: it is required", ea.Name))
			}
		}
	}
	return errs
}

// ruleText says why a rule refuses the attribute on the item.
func (ea *EntityAttr) ruleText(it attr.Item) string {
	if len(ea.When) > 0 && !Holds(ea.When, it) {
		return fmt.Sprintf("it exists only while %s (%s)", condText(ea.When), itemText(ea.When, it))
	}
	return fmt.Sprintf("it is absent while %s (%s)", condText(ea.Unless), itemText(ea.Unless, it))
}

// condText writes conditions as a reader says them: status is PLACED or
// PAID, and priority is 1.
func condText(conds []Condition) string {
	var parts []string
	for _, c := range conds {
		vs := make([]string, len(c.Values))
		for i, v := range c.Values {
			vs[i] = valueText(v)
		}
		parts = append(parts, c.Attribute+" is "+orList(vs))
	}
	return strings.Join(parts, ", and ")
}

// itemText writes what the item holds for the attributes of conditions.
func itemText(conds []Condition, it attr.Item) string {
	var parts []string
	for _, c := range conds {
		if v, ok := it.Get(c.Attribute); ok {
			parts = append(parts, c.Attribute+" is "+valueText(v))
		} else {
			parts = append(parts, "it has no "+c.Attribute)
		}
	}
	return "here " + strings.Join(parts, ", ")
}

func orList(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// valueText writes a scalar as a model writes it.
func valueText(v attr.Value) string {
	switch v.Type {
	case attr.S, attr.N:
		return v.Str
	case attr.BOOL:
		return strconv.FormatBool(v.Bool)
	}
	return "a " + v.Type.String()
}

// attrDef returns the dictionary entry of an attribute the entity
// carries, its table keys included.
func (e *Entity) attrDef(name string) *Attribute {
	if ea := e.attr(name); ea != nil {
		return ea.Attribute
	}
	return e.keyDefs[name]
}

// attr returns the entity's attribute entry.
func (e *Entity) attr(name string) *EntityAttr {
	for i := range e.Attributes {
		if e.Attributes[i].Name == name {
			return &e.Attributes[i]
		}
	}
	return nil
}

// checkValue holds v to a type, a unit and a domain.
func checkValue(name string, t attr.Type, unit string, d *Domain, v attr.Value) error {
	if v.Type != t {
		return fmt.Errorf("expected %s, got %s", typeArticle(t), typeArticle(v.Type))
	}
	switch t {
	case attr.S:
		if d.Instant == nil {
			if err := checkUnit(unit, v.Str); err != nil {
				return err
			}
		}
		return d.checkString(name, v.Str)
	case attr.N:
		return d.checkNumber(name, v.Str)
	case attr.L:
		if err := d.checkCount(name, len(v.List), "elements"); err != nil {
			return err
		}
		if d.Items != nil {
			for i, e := range v.List {
				if err := d.Items.Check(e); err != nil {
					return fmt.Errorf("element %d: %w", i, err)
				}
			}
		}
	case attr.SS, attr.NS, attr.BS:
		if err := d.checkCount(name, len(v.Set), "members"); err != nil {
			return err
		}
		if d.Items != nil {
			elem := map[attr.Type]attr.Type{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[t]
			for _, m := range v.Set {
				mv := attr.Value{Type: elem, Str: m}
				if err := d.Items.Check(mv); err != nil {
					return fmt.Errorf("member %q: %w", m, err)
				}
			}
		}
	case attr.M:
		if err := d.checkCount(name, len(v.Map), "members"); err != nil {
			return err
		}
		return d.checkFields(name, v.Map)
	}
	return nil
}

func (d *Domain) checkFields(name string, m attr.Item) error {
	if len(d.Fields) == 0 {
		return nil
	}
	var known []string
	for _, f := range d.Fields {
		known = append(known, f.Name)
		v, ok := m.Get(f.Name)
		if !ok {
			if !f.Optional {
				return fmt.Errorf("lacks its member %s", f.Name)
			}
			continue
		}
		if err := f.Check(v); err != nil {
			return fmt.Errorf("member %s: %w", f.Name, err)
		}
	}
	for _, f := range m {
		if !contains(known, f.Name) {
			if h := nearest(f.Name, known); h != "" {
				return fmt.Errorf("%s is not a member of %s (did you mean %q?)", f.Name, name, h)
			}
			return fmt.Errorf("%s is not a member of %s (its members are %s)", f.Name, name, strings.Join(known, ", "))
		}
	}
	return nil
}

func (d *Domain) checkCount(name string, n int, what string) error {
	if d.MinItems != nil && n < *d.MinItems {
		return fmt.Errorf("%d %s, fewer than the %d %s needs", n, what, *d.MinItems, name)
	}
	if d.MaxItems != nil && n > *d.MaxItems {
		return fmt.Errorf("%d %s, more than the %d %s allows", n, what, *d.MaxItems, name)
	}
	return nil
}

// checkUnit holds a string to the form of its unit.
func checkUnit(unit, s string) error {
	switch unit {
	case UnitCivilDate:
		if !civilDate.MatchString(s) {
			return fmt.Errorf("%q is not a civil date YYYY-MM-DD", s)
		}
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return fmt.Errorf("%q is not a valid date", s)
		}
	case UnitInstant:
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			return fmt.Errorf("%q is not an instant such as 2026-09-23T03:12:44Z", s)
		}
	}
	return nil
}

func (d *Domain) checkString(name, s string) error {
	if len(d.Enum) > 0 {
		return enumError(name, d.Enum, s)
	}
	if d.Instant != nil {
		if err := d.Instant.check(s); err != nil {
			return err
		}
	}
	n := utf8.RuneCountInString(s)
	if d.MinLength != nil && n < *d.MinLength {
		return fmt.Errorf("%q has %d characters, fewer than the %d %s needs", s, n, *d.MinLength, name)
	}
	if d.MaxLength != nil && n > *d.MaxLength {
		return fmt.Errorf("%q has %d characters, more than the %d %s allows", short(s), n, *d.MaxLength, name)
	}
	if d.Pattern != nil && !d.Pattern.MatchString(s) {
		return fmt.Errorf("%q does not match the pattern of %s: %s", short(s), name, d.Pattern.Text)
	}
	return nil
}

// short cuts a long value for a message.
func short(s string) string {
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	r := []rune(s)
	return string(r[:57]) + "..."
}

// enumError reports a value outside an enum, or nil.
func enumError(name string, enum []string, s string) error {
	for _, e := range enum {
		if e == s {
			return nil
		}
	}
	h := nearest(s, enum)
	if h != "" {
		return fmt.Errorf("%q is not a value of %s (did you mean %q?)", s, name, h)
	}
	vs := make([]string, len(enum))
	for i, e := range enum {
		vs[i] = e
		if e == "" || strings.IndexFunc(e, func(r rune) bool { return !unicode.IsGraphic(r) || r == ' ' || r == ',' }) >= 0 {
			vs[i] = strconv.Quote(e) // a value a reader could not see or tell apart
		}
	}
	return fmt.Errorf("%q is not a value of %s; expected one of %s", s, name, strings.Join(vs, ", "))
}

func (d *Domain) checkNumber(name, s string) error {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return fmt.Errorf("%q is not a number", s)
	}
	if len(d.Enum) > 0 {
		for _, e := range d.Enum {
			if er, ok := new(big.Rat).SetString(e); ok && er.Cmp(r) == 0 {
				return nil
			}
		}
		return fmt.Errorf("%s is not a value of %s; expected one of %s", s, name, strings.Join(d.Enum, ", "))
	}
	if d.Integer && !r.IsInt() {
		return fmt.Errorf("%s is not a whole number, which %s holds", s, name)
	}
	if d.min != nil && r.Cmp(d.min) < 0 {
		return fmt.Errorf("%s is below the minimum %s of %s", s, ratText(d.min), name)
	}
	if d.max != nil && r.Cmp(d.max) > 0 {
		return fmt.Errorf("%s is above the maximum %s of %s", s, ratText(d.max), name)
	}
	return nil
}

// Distinct returns the number of distinct values the attribute takes at
// the declared scale: its cardinality, the size of its enum, the modulo
// of a hashMod, the width of a whole-number range. ok is false when
// nothing says.
func (a *Attribute) Distinct() (n int64, ok bool) {
	switch {
	case a.Cardinality > 0:
		return a.Cardinality, true
	case len(a.Enum) > 0:
		return int64(len(a.Enum)), true
	case a.Computed != nil && a.Computed.Kind == KindHashMod && a.Computed.Modulo > 0:
		return int64(a.Computed.Modulo), true
	case a.Type == attr.N && a.Integer && a.min != nil && a.max != nil:
		w := new(big.Rat).Sub(a.max, a.min)
		if w.IsInt() && w.Num().IsInt64() && w.Num().Int64() < 1<<40 {
			return w.Num().Int64() + 1, true
		}
	}
	return 0, false
}
