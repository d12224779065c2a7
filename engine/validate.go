package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
)

// setNames are the words DynamoDB's messages use for the set types.
func setWord(t attr.Type) string {
	switch t {
	case attr.SS:
		return "string"
	case attr.NS:
		return "number"
	}
	return "binary"
}

// normalizeValue checks a value as DynamoDB does on write (numbers valid,
// sets non-empty and without duplicates) and returns it with numbers in
// their canonical text, as DynamoDB stores and returns them.
func normalizeValue(v attr.Value) (attr.Value, error) {
	switch v.Type {
	case attr.S, attr.B, attr.BOOL, attr.NULL:
		return v, nil
	case attr.N:
		if err := attr.ValidNumber(v.Str); err != nil {
			return v, validationf("%s", err.Error())
		}
		if canonical(v.Str) {
			return v, nil
		}
		c, err := attr.CanonicalNumber(v.Str)
		if err != nil {
			return v, validationf("%s", err.Error())
		}
		v.Str = c
		return v, nil
	case attr.SS, attr.NS, attr.BS:
		if len(v.Set) == 0 {
			return v, emptySet(v.Type)
		}
		seen := make(map[string]struct{}, len(v.Set))
		var out []string
		for i, m := range v.Set {
			key := m
			if v.Type == attr.NS {
				c, err := attr.CanonicalNumber(m)
				if err != nil {
					return v, validationf("%s", err.Error())
				}
				key = c
				if c != m && out == nil {
					out = append(make([]string, 0, len(v.Set)), v.Set[:i]...)
				}
			}
			if _, dup := seen[key]; dup {
				return v, invalidParam("Input collection %s contains duplicates.", setListing(v))
			}
			seen[key] = struct{}{}
			if out != nil {
				out = append(out, key)
			}
		}
		if out != nil {
			v.Set = out
		}
		return v, nil
	case attr.L:
		var out []attr.Value
		for i, e := range v.List {
			n, err := normalizeValue(e)
			if err != nil {
				return v, err
			}
			if out == nil && !sameValue(n, e) {
				out = append([]attr.Value(nil), v.List...)
			}
			if out != nil {
				out[i] = n
			}
		}
		if out != nil {
			v.List = out
		}
		return v, nil
	case attr.M:
		m, err := normalizeItem(v.Map)
		if err != nil {
			return v, err
		}
		v.Map = m
		return v, nil
	}
	return v, validationf("Supplied AttributeValue is empty, must contain exactly one of the supported datatypes")
}

// canonical reports whether the text of a valid number is already in the
// form DynamoDB returns (plain decimal, no superfluous zeros or sign), so
// that the common case needs no new string:
// -?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?, and not -0.
func canonical(s string) bool {
	i := 0
	neg := i < len(s) && s[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[start:i]
	if intPart == "" || len(intPart) > 1 && intPart[0] == '0' {
		return false
	}
	if i == len(s) {
		return !(neg && intPart == "0")
	}
	if s[i] != '.' {
		return false
	}
	i++
	if i == len(s) || s[len(s)-1] == '0' {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// emptySet words the rejection of an empty set as DynamoDB does, which
// differs for binary sets.
func emptySet(t attr.Type) *Error {
	if t == attr.BS {
		return invalidParam("Binary sets should not be empty")
	}
	return invalidParam("An %s set  may not be empty", setWord(t))
}

// sameValue reports whether normalisation left e untouched (only number
// texts and containers of them can change).
func sameValue(a, b attr.Value) bool {
	switch a.Type {
	case attr.N:
		return a.Str == b.Str
	case attr.L, attr.M, attr.NS:
		return false
	}
	return true
}

func setListing(v attr.Value) string {
	return "[" + strings.Join(v.Set, ", ") + "]"
}

// normalizeItem applies normalizeValue to every attribute; the input is
// not modified.
func normalizeItem(it attr.Item) (attr.Item, error) {
	var out attr.Item
	for i, f := range it {
		n, err := normalizeValue(f.Value)
		if err != nil {
			return nil, err
		}
		if out == nil && !sameValue(n, f.Value) {
			out = append(attr.Item(nil), it...)
		}
		if out != nil {
			out[i].Value = n
		}
	}
	if out == nil {
		return it, nil
	}
	return out, nil
}

// normalizeValues checks ExpressionAttributeValues as DynamoDB does and
// puts their numbers in canonical form; the map given is not modified.
func normalizeValues(values map[string]attr.Value) (map[string]attr.Value, error) {
	var out map[string]attr.Value
	for _, k := range sortedKeys(values) {
		v := values[k]
		n, err := normalizeValue(v)
		if err != nil {
			msg := err.Error()
			if e, ok := err.(*Error); ok {
				msg = e.Message
			}
			return nil, validationf("ExpressionAttributeValues contains invalid value: %s for key %s", msg, k)
		}
		if !sameValue(n, v) {
			if out == nil {
				out = make(map[string]attr.Value, len(values))
				for k2, v2 := range values {
					out[k2] = v2
				}
			}
			out[k] = n
		}
	}
	if out == nil {
		return values, nil
	}
	return out, nil
}

// checkKeyValue rejects an empty key value.
func checkKeyValue(name string, v attr.Value) error {
	if v.Str == "" {
		word := "string"
		if v.Type == attr.B {
			word = "binary"
		}
		return validationf("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s", word, name)
	}
	return nil
}

// checkItemKeys checks the table key and every index key of an item to be
// written: table keys present, typed as declared and non-empty; index key
// attributes, when present, typed as declared and non-empty.
func (t *table) checkItemKeys(it attr.Item) error {
	for _, k := range t.keyAttrs() {
		v, ok := it.Get(k.name)
		if !ok {
			return invalidParam("Missing the key %s in the item", k.name)
		}
		if v.Type != k.typ {
			return invalidParam("Type mismatch for key %s expected: %s actual: %s", k.name, k.typ, v.Type)
		}
		if err := checkKeyValue(k.name, v); err != nil {
			return err
		}
	}
	for _, ix := range t.indexes() {
		for _, side := range [2][]keyAttr{ix.hash, ix.rng} {
			for _, k := range side {
				v, ok := it.Get(k.name)
				if !ok {
					continue
				}
				if v.Type != k.typ {
					return invalidParam("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.name, k.typ, v.Type, ix.name)
				}
				if v.Str == "" {
					word := "string"
					if v.Type == attr.B {
						word = "binary"
					}
					return validationf("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", word, ix.name, k.name)
				}
			}
		}
	}
	return nil
}

func (t *table) keyAttrs() []keyAttr {
	if t.rng == nil {
		return []keyAttr{t.hash}
	}
	return []keyAttr{t.hash, *t.rng}
}

// checkKey validates a Key parameter: exactly the table's key attributes,
// typed as declared, non-empty. It returns the key with numbers
// normalised.
func (t *table) checkKey(key attr.Item) (attr.Item, error) {
	if key == nil {
		return nil, validationf("1 validation error detected: Value null at 'key' failed to satisfy constraint: Member must not be null")
	}
	ks := t.keyAttrs()
	if len(key) != len(ks) {
		return nil, validationf("The provided key element does not match the schema")
	}
	for _, k := range ks {
		v, ok := key.Get(k.name)
		if !ok || v.Type != k.typ {
			return nil, validationf("The provided key element does not match the schema")
		}
		if err := checkKeyValue(k.name, v); err != nil {
			return nil, err
		}
	}
	if err := t.checkSize(key); err != nil {
		return nil, err
	}
	return normalizeItem(key)
}

// checkSize applies the item size and key size limits through capacity
// and words the failures as DynamoDB does.
func (t *table) checkSize(it attr.Item) error {
	err := t.rules.CheckItem(&t.desc, it)
	if err == nil {
		return nil
	}
	var le *capacity.LimitError
	if !errors.As(err, &le) {
		return invalidParam("%s", err.Error())
	}
	switch {
	case strings.HasPrefix(le.What, "partition key") || strings.Contains(le.What, "partition key"):
		return invalidParam("Size of hashkey has exceeded the maximum size limit of2048 bytes")
	case strings.Contains(le.What, "sort key"):
		return invalidParam("Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
	}
	return validationf("Item size has exceeded the maximum allowed size")
}

// constraints collects the member constraint violations DynamoDB reports
// before anything else, all at once: "2 validation errors detected: Value
// 'X' at 'returnValues' failed to satisfy constraint: ...; Value ...".
type constraints []string

func (c *constraints) add(format string, args ...any) {
	*c = append(*c, fmt.Sprintf(format, args...))
}

// enum checks an optional enumerated member.
func (c *constraints) enum(field, v string, allowed ...string) {
	if v == "" {
		return
	}
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.add("Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", v, field, strings.Join(allowed, ", "))
}

// table checks a TableName member of an item or query request, which may
// also be an ARN.
func (c *constraints) table(field, name string) {
	switch {
	case name == "":
		c.add("Value '' at '%s' failed to satisfy constraint: Member must have length greater than or equal to 1", field)
	case strings.HasPrefix(name, "arn:"):
		if len(name) > 1024 {
			c.add("Value '%s' at '%s' failed to satisfy constraint: Member must have length less than or equal to 1024", name, field)
		}
	default:
		if err := checkTableName(name, field); err != nil {
			c.add("%s", strings.TrimPrefix(err.(*Error).Message, "1 validation error detected: "))
		}
	}
}

// err returns the collected violations as one ValidationException.
func (c constraints) err() error {
	switch len(c) {
	case 0:
		return nil
	case 1:
		return validationf("1 validation error detected: %s", c[0])
	}
	return validationf("%d validation errors detected: %s", len(c), strings.Join(c, "; "))
}

// Enumerations shared by several requests, in DynamoDB's order.
var (
	enumReturnValues   = []string{"ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"}
	enumConsumed       = []string{"INDEXES", "TOTAL", "NONE"}
	enumMetrics        = []string{"SIZE", "NONE"}
	enumOnCheckFailure = []string{"ALL_OLD", "NONE"}
	enumSelect         = []string{"SPECIFIC_ATTRIBUTES", "COUNT", "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES"}
)

// writeConstraints checks the members common to PutItem, UpdateItem and
// DeleteItem.
func writeConstraints(table, rv, rcc, ricm, rvf string) error {
	var c constraints
	c.table("tableName", table)
	c.enum("returnValues", rv, enumReturnValues...)
	c.enum("returnConsumedCapacity", rcc, enumConsumed...)
	c.enum("returnItemCollectionMetrics", ricm, enumMetrics...)
	c.enum("returnValuesOnConditionCheckFailure", rvf, enumOnCheckFailure...)
	return c.err()
}
