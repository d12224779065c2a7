package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// decodeAny decodes a JSON value keeping numbers as text. Scalars, which
// are nearly all values, take a short path without a Decoder.
func decodeAny(raw json.RawMessage) (any, error) {
	if len(raw) > 0 {
		switch c := raw[0]; {
		case c == '"':
			var s string
			err := json.Unmarshal(raw, &s)
			return s, err
		case c == '-' || c >= '0' && c <= '9':
			return json.Number(raw), nil
		case string(raw) == "true":
			return true, nil
		case string(raw) == "false":
			return false, nil
		case string(raw) == "null":
			return nil, nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

var (
	civilDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	numberRe  = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
)

func kindWord(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	case nil:
		return "nothing (null)"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return "a value"
}

// typedValue converts a plain YAML value into an attribute value of type
// t and, when a is given, holds it to the attribute's unit and domain.
func typedValue(v any, t attr.Type, a *Attribute) (attr.Value, error) {
	var d *Domain
	if a != nil {
		d = &a.Domain
	}
	tv, err := convert(v, t, d)
	if err != nil || a == nil {
		return tv, err
	}
	return tv, a.Check(tv)
}

// convert turns a plain YAML value into a value of type t; the elements
// and members of lists and maps take the types their domain declares, or
// are inferred (strings S, numbers N, booleans BOOL).
func convert(v any, t attr.Type, d *Domain) (attr.Value, error) {
	bad := func() (attr.Value, error) {
		return attr.Value{}, fmt.Errorf("expected %s for %s attribute, got %s", typeWant(t), typeArticle(t), kindWord(v))
	}
	switch t {
	case attr.S:
		s, ok := v.(string)
		if !ok {
			if n, isNum := v.(json.Number); isNum {
				return attr.Value{}, fmt.Errorf("expected a string for an S attribute, got the number %s (quote it: \"%s\")", n, n)
			}
			return bad()
		}
		return attr.Str(s), nil
	case attr.N:
		switch x := v.(type) {
		case json.Number:
			if err := checkNumber(string(x)); err != nil {
				return attr.Value{}, err
			}
			return attr.Num(string(x)), nil
		case string:
			if err := checkNumber(x); err != nil {
				return bad()
			}
			return attr.Num(x), nil
		}
		return bad()
	case attr.B:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return attr.Value{}, fmt.Errorf("binary values are written in base64; %q is not base64", s)
		}
		return attr.Bin(b), nil
	case attr.BOOL:
		b, ok := v.(bool)
		if !ok {
			return bad()
		}
		return attr.Bool(b), nil
	case attr.NULL:
		if v != nil {
			return bad()
		}
		return attr.Null(), nil
	case attr.M:
		m, ok := v.(map[string]any)
		if !ok {
			return bad()
		}
		if d == nil || len(d.Fields) == 0 {
			return inferValue(m)
		}
		it := make(attr.Item, 0, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			var mv attr.Value
			var err error
			if f := fieldOf(d, k); f != nil {
				mv, err = convert(m[k], f.Type, &f.Domain)
			} else {
				mv, err = inferValue(m[k])
			}
			if err != nil {
				return attr.Value{}, fmt.Errorf("member %s: %w", k, err)
			}
			it = append(it, attr.Field{Name: k, Value: mv})
		}
		return attr.MapOf(it), nil
	case attr.L:
		l, ok := v.([]any)
		if !ok {
			return bad()
		}
		if d == nil || d.Items == nil {
			return inferValue(l)
		}
		out := make([]attr.Value, 0, len(l))
		for i, e := range l {
			ev, err := convert(e, d.Items.Type, &d.Items.Domain)
			if err != nil {
				return attr.Value{}, fmt.Errorf("element %d: %w", i, err)
			}
			out = append(out, ev)
		}
		return attr.ListOf(out...), nil
	case attr.SS, attr.NS, attr.BS:
		l, ok := v.([]any)
		if !ok || len(l) == 0 {
			if ok {
				return attr.Value{}, fmt.Errorf("a set cannot be empty")
			}
			return bad()
		}
		elem := map[attr.Type]attr.Type{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[t]
		seen := map[string]bool{}
		var members []string
		for _, e := range l {
			ev, err := convert(e, elem, nil)
			if err != nil {
				return attr.Value{}, fmt.Errorf("set member: %w", err)
			}
			key := ev.Str
			if elem == attr.N {
				key = canonNumber(key)
			}
			if seen[key] {
				return attr.Value{}, fmt.Errorf("set member %q appears twice", ev.Str)
			}
			seen[key] = true
			members = append(members, ev.Str)
		}
		return attr.Value{Type: t, Set: members}, nil
	}
	return bad()
}

// typeArticle writes a type tag with its article, as read aloud ("an S",
// "a BOOL").
func typeArticle(t attr.Type) string {
	if s := t.String(); s != "" && strings.ContainsRune("AEFHILMNORSX", rune(s[0])) && s != "BOOL" && s != "BS" {
		return "an " + s
	}
	return "a " + t.String()
}

func typeWant(t attr.Type) string {
	switch t {
	case attr.S:
		return "a string"
	case attr.N:
		return "a number"
	case attr.B:
		return "base64 text"
	case attr.BOOL:
		return "true or false"
	case attr.NULL:
		return "null"
	case attr.M:
		return "a mapping"
	}
	return "a list"
}

func checkNumber(s string) error {
	if !numberRe.MatchString(s) {
		return fmt.Errorf("%q is not a number", s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return fmt.Errorf("%q is not a number", s)
	}
	digits := strings.TrimLeft(strings.ReplaceAll(strings.TrimLeft(strings.SplitN(strings.ToLower(s), "e", 2)[0], "-"), ".", ""), "0")
	digits = strings.TrimRight(digits, "0")
	if len(digits) > 38 {
		return fmt.Errorf("%s has more than 38 significant digits", s)
	}
	_ = r
	return nil
}

func canonNumber(s string) string {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return s
	}
	return r.RatString()
}

// checkString holds a string to an S attribute's unit and domain.
func checkString(a *Attribute, s string) error {
	return checkValue(a.Name, attr.S, a.Unit, &a.Domain, attr.Str(s))
}

// fieldOf returns the declared member of a map domain.
func fieldOf(d *Domain, name string) *Member {
	for _, f := range d.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// inferValue converts a value whose type is not declared (map members,
// list elements): strings are S, numbers N, booleans BOOL, null NULL.
func inferValue(v any) (attr.Value, error) {
	switch x := v.(type) {
	case string:
		return attr.Str(x), nil
	case json.Number:
		if err := checkNumber(string(x)); err != nil {
			return attr.Value{}, err
		}
		return attr.Num(string(x)), nil
	case bool:
		return attr.Bool(x), nil
	case nil:
		return attr.Null(), nil
	case []any:
		out := make([]attr.Value, 0, len(x))
		for _, e := range x {
			ev, err := inferValue(e)
			if err != nil {
				return attr.Value{}, err
			}
			out = append(out, ev)
		}
		return attr.ListOf(out...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var it attr.Item
		for _, k := range keys {
			ev, err := inferValue(x[k])
			if err != nil {
				return attr.Value{}, err
			}
			it = append(it, attr.Field{Name: k, Value: ev})
		}
		return attr.MapOf(it), nil
	}
	return attr.Value{}, fmt.Errorf("unsupported value")
}

var wholePlaceholder = regexp.MustCompile(`^\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// parseOperand reads an expression value or key value: "{p}" alone is the
// parameter p, another string is a template, anything else a literal.
func parseOperand(raw json.RawMessage) (Operand, error) {
	v, err := decodeAny(raw)
	if err != nil {
		return Operand{}, err
	}
	return operandOf(v)
}

func operandOf(v any) (Operand, error) {
	return operandAt(v, 0)
}

// operandAt reads a value at a nesting depth: strings are parameters or
// templates at every depth; a list or map holding one becomes a composite
// operand, any other list or map a literal. Inside a list or map a string
// without placeholders is a string constant, as at the top.
func operandAt(v any, depth int) (Operand, error) {
	switch x := v.(type) {
	case string:
		if m := wholePlaceholder.FindStringSubmatch(x); m != nil {
			return Operand{Param: m[1]}, nil
		}
		t, err := ParseTemplate(x)
		if err != nil {
			return Operand{}, err
		}
		if depth > 0 && t.IsConstant() {
			lv := attr.Str(x)
			return Operand{Literal: &lv}, nil
		}
		return Operand{Template: t}, nil
	case []any:
		if hasPlaceholder(x) {
			o := Operand{IsList: true, List: make([]Operand, 0, len(x))}
			for i, e := range x {
				eo, err := operandAt(e, depth+1)
				if err != nil {
					return Operand{}, fmt.Errorf("element %d: %w", i, err)
				}
				o.List = append(o.List, eo)
			}
			return o, nil
		}
	case map[string]any:
		if hasPlaceholder(x) {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			o := Operand{IsMap: true, Map: make([]Assign, 0, len(x))}
			for _, k := range keys {
				eo, err := operandAt(x[k], depth+1)
				if err != nil {
					return Operand{}, fmt.Errorf("member %s: %w", k, err)
				}
				o.Map = append(o.Map, Assign{k, eo})
			}
			return o, nil
		}
	}
	lv, err := inferValue(v)
	if err != nil {
		return Operand{}, err
	}
	return Operand{Literal: &lv}, nil
}

// hasPlaceholder reports whether a list or map holds, at any depth, a
// string with a placeholder (or a brace, which is then reported as a
// template error where it stands).
func hasPlaceholder(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.ContainsAny(x, "{}")
	case []any:
		for _, e := range x {
			if hasPlaceholder(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasPlaceholder(e) {
				return true
			}
		}
	}
	return false
}

// parseDuration reads 50ms, 2s, 20m, 8h, 30d.
func parseDuration(s string) (time.Duration, error) {
	if strings.HasSuffix(s, "d") {
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "d"), 64)
		if err != nil {
			return 0, err
		}
		d := f * float64(24*time.Hour)
		if !(math.Abs(d) < math.MaxInt64) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return time.Duration(d), nil
	}
	return time.ParseDuration(s)
}
