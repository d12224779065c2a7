package capacity

import (
	"slices"
	"strconv"
)

// Capacity is what one table or index consumed, split into read and write
// units. CapacityUnits on the wire is their sum.
type Capacity struct {
	Read  float64
	Write float64
}

// Units returns read + write units (the wire's CapacityUnits).
func (c Capacity) Units() float64 { return c.Read + c.Write }

// Add returns the sum of c and o.
func (c Capacity) Add(o Capacity) Capacity {
	return Capacity{Read: c.Read + o.Read, Write: c.Write + o.Write}
}

// Consumed is the ConsumedCapacity of one operation on one table: the base
// table's own charge and each secondary index's. An index the operation did
// not touch is absent from its map, never present with zero.
type Consumed struct {
	TableName string
	Table     Capacity
	GSIs      map[string]Capacity
	LSIs      map[string]Capacity
	// Txn marks a transactional result, whose wire shape repeats the units
	// in ReadCapacityUnits / WriteCapacityUnits at every level.
	Txn bool
}

// Total returns the table's charge plus every index's.
func (c Consumed) Total() Capacity {
	t := c.Table
	for _, v := range c.GSIs {
		t = t.Add(v)
	}
	for _, v := range c.LSIs {
		t = t.Add(v)
	}
	return t
}

// Units returns the total capacity units (the wire's CapacityUnits).
func (c Consumed) Units() float64 { return c.Total().Units() }

// Add adds o's charges to c, index by index: the sum of the steps of a
// multi-step operation. The table name is kept from c (or taken from o when
// c has none), so Add also totals charges across tables; see PerTable to
// keep tables apart.
func (c *Consumed) Add(o Consumed) {
	if c.TableName == "" {
		c.TableName = o.TableName
	}
	c.Table = c.Table.Add(o.Table)
	c.GSIs = addMap(c.GSIs, o.GSIs)
	c.LSIs = addMap(c.LSIs, o.LSIs)
	c.Txn = c.Txn || o.Txn
}

func addMap(dst, src map[string]Capacity) map[string]Capacity {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]Capacity, len(src))
	}
	for k, v := range src {
		dst[k] = dst[k].Add(v)
	}
	return dst
}

// charge adds units to the table or to the named index.
func (c *Consumed) charge(ix *Index, local bool, u Capacity) {
	switch {
	case ix == nil:
		c.Table = c.Table.Add(u)
	case local:
		if c.LSIs == nil {
			c.LSIs = map[string]Capacity{}
		}
		c.LSIs[ix.Name] = c.LSIs[ix.Name].Add(u)
	default:
		if c.GSIs == nil {
			c.GSIs = map[string]Capacity{}
		}
		c.GSIs[ix.Name] = c.GSIs[ix.Name].Add(u)
	}
}

// PerTable is the list form of ConsumedCapacity returned by batch and
// transactional operations: one entry per table, in order of first use.
type PerTable []Consumed

// Add merges c into the entry of its table, or appends it.
func (p PerTable) Add(c Consumed) PerTable {
	for i := range p {
		if p[i].TableName == c.TableName {
			p[i].Add(c)
			return p
		}
	}
	// Copy the maps so that later merges do not write into c's.
	var n Consumed
	n.Add(c)
	return append(p, n)
}

// Total returns the charges of all tables added together.
func (p PerTable) Total() Capacity {
	var t Capacity
	for _, c := range p {
		t = t.Add(c.Total())
	}
	return t
}

// Level is the ReturnConsumedCapacity setting a response answers.
type Level uint8

const (
	// LevelTotal returns the aggregate only.
	LevelTotal Level = iota
	// LevelIndexes adds the table and each index touched.
	LevelIndexes
)

// MarshalJSON encodes c as DynamoDB's ConsumedCapacity at the INDEXES level.
func (c Consumed) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil, LevelIndexes), nil }

// AppendJSON appends c in DynamoDB's wire shape:
//
//	{"TableName":"T","CapacityUnits":3.0,"Table":{"CapacityUnits":2.0},
//	 "GlobalSecondaryIndexes":{"G1":{"CapacityUnits":1.0}}}
//
// CapacityUnits is always present; transactional results repeat the units
// as WriteCapacityUnits or ReadCapacityUnits (whichever is non-zero) at
// every level. At LevelTotal only the aggregate is written. Numbers are
// written as DynamoDB does, with a decimal point (3.0, 0.5). Index names
// are sorted, so the output is deterministic.
func (c Consumed) AppendJSON(dst []byte, level Level) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = strconv.AppendQuote(dst, c.TableName)
	dst = append(dst, ',')
	dst = c.appendUnits(dst, c.Total())
	if level == LevelIndexes {
		// A read served by an index alone (a GSI Query) leaves the table
		// out rather than reporting it at zero [INF, see 6.3].
		if c.Table != (Capacity{}) || len(c.GSIs)+len(c.LSIs) == 0 {
			dst = append(dst, `,"Table":{`...)
			dst = c.appendUnits(dst, c.Table)
			dst = append(dst, '}')
		}
		dst = c.appendIndexes(dst, "LocalSecondaryIndexes", c.LSIs)
		dst = c.appendIndexes(dst, "GlobalSecondaryIndexes", c.GSIs)
	}
	return append(dst, '}')
}

func (c Consumed) appendIndexes(dst []byte, field string, m map[string]Capacity) []byte {
	if len(m) == 0 {
		return dst
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	dst = append(dst, `,"`...)
	dst = append(dst, field...)
	dst = append(dst, `":{`...)
	for i, k := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, k)
		dst = append(dst, `:{`...)
		dst = c.appendUnits(dst, m[k])
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func (c Consumed) appendUnits(dst []byte, u Capacity) []byte {
	dst = append(dst, `"CapacityUnits":`...)
	dst = appendWireNumber(dst, u.Units())
	if c.Txn {
		if u.Read != 0 {
			dst = append(dst, `,"ReadCapacityUnits":`...)
			dst = appendWireNumber(dst, u.Read)
		}
		if u.Write != 0 {
			dst = append(dst, `,"WriteCapacityUnits":`...)
			dst = appendWireNumber(dst, u.Write)
		}
	}
	return dst
}

// appendWireNumber writes f the way DynamoDB's responses do: always with a
// fraction (3.0, 0.5).
func appendWireNumber(dst []byte, f float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
	for _, b := range dst[start:] {
		if b == '.' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

// AppendJSON appends the list form, [{...},{...}].
func (p PerTable) AppendJSON(dst []byte, level Level) []byte {
	dst = append(dst, '[')
	for i, c := range p {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = c.AppendJSON(dst, level)
	}
	return append(dst, ']')
}
