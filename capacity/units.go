package capacity

import (
	"strconv"

	"github.com/cardapio/cardapio/internal/digits"
)

// Unit sizes: a write unit covers 1 KB, a read unit 4 KB (binary KB).
const (
	WriteUnitBytes = 1024
	ReadUnitBytes  = 4096
)

// Consistency is the kind of a read, which sets its price.
type Consistency uint8

const (
	// Eventual reads cost half a strong read; GSIs offer only these.
	Eventual Consistency = iota
	// Strong reads cost one unit per 4 KB.
	Strong
	// Transactional reads (TransactGetItems) cost twice a strong read.
	Transactional
)

// String names the consistency.
func (c Consistency) String() string {
	switch c {
	case Strong:
		return "strong"
	case Transactional:
		return "transactional"
	}
	return "eventual"
}

// WriteUnits returns the write units of writing bytes once:
// ceil(bytes/1024), at least 1.
func WriteUnits(bytes int) float64 {
	return float64(blocks(bytes, WriteUnitBytes))
}

// ReadUnits returns the read units of reading bytes in one request:
// ceil(bytes/4096) (at least 1) for a strong read, half that for an
// eventual one, double for a transactional one.
func ReadUnits(bytes int, c Consistency) float64 {
	u := float64(blocks(bytes, ReadUnitBytes))
	switch c {
	case Eventual:
		return u / 2
	case Transactional:
		return u * 2
	}
	return u
}

// blocks is ceil(bytes/unit) with a minimum of 1.
func blocks(bytes, unit int) int {
	if bytes <= unit {
		return 1
	}
	return (bytes + unit - 1) / unit
}

// group writes n with thousands separators: 1047 -> "1,047".
func group(n int) string { return digits.Group(strconv.Itoa(n)) }

// units formats a unit count the short way: 2, 0.5, 2.5.
func units(u float64) string { return strconv.FormatFloat(u, 'f', -1, 64) }

// sizeNote says where bytes sit against the unit boundary, the reason a
// figure is what it is: "1,047 B, 23 B over 1 KB" or "1,000 B, fits 1 KB".
func sizeNote(bytes, unit int) string {
	n := blocks(bytes, unit)
	kb := n * unit / 1024
	if n == 1 {
		return group(bytes) + " B, fits " + strconv.Itoa(kb) + " KB"
	}
	prev := (n - 1) * unit
	return group(bytes) + " B, " + group(bytes-prev) + " B over " + strconv.Itoa(prev/1024) + " KB"
}

// ItemUnits is what reading and writing one item of SizeBytes costs: the
// figures `cardapio capacity item` prints and the MCP server returns
// (their JSON names are part of both contracts).
type ItemUnits struct {
	SizeBytes          int     `json:"sizeBytes"`
	WriteUnits         float64 `json:"writeUnits"`
	ReadUnitsStrong    float64 `json:"readUnitsStrong"`
	ReadUnitsEventual  float64 `json:"readUnitsEventual"`
	TransactWriteUnits float64 `json:"transactWriteUnits"`
	TransactReadUnits  float64 `json:"transactReadUnits"`
}

// UnitsOf returns an item's units from its size: a transactional write
// costs twice a standard one.
func UnitsOf(size int) ItemUnits {
	w := WriteUnits(size)
	return ItemUnits{
		SizeBytes:          size,
		WriteUnits:         w,
		ReadUnitsStrong:    ReadUnits(size, Strong),
		ReadUnitsEventual:  ReadUnits(size, Eventual),
		TransactWriteUnits: 2 * w,
		TransactReadUnits:  ReadUnits(size, Transactional),
	}
}
