package engine

import (
	"encoding/binary"

	"github.com/cardapio/cardapio/attr"
)

// Keys are stored as byte strings whose byte order is DynamoDB's order, so
// that the B-trees compare with bytes.Compare and a sort-key condition
// becomes a byte range:
//
//	table key = be64(hash(partition part)) partition-part sort-part
//	index key = be64(hash(partition parts)) partition-parts sort-parts table-parts
//
// Partitions therefore follow each other in hash order (as a Scan returns
// them, and as parallel Scan segments and the throughput model split
// them) and items within a partition in sort-key order. Every part is
// self-delimiting, so multi-attribute keys simply concatenate parts.
//
// A part encodes one scalar value:
//
//	S, B  the bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x01
//	N     0x02 for zero; positive: 0x03, be16(exponent+bias), one byte
//	      per digit (1..10), 0x00; negative: 0x01 and the complement of
//	      the positive form so that larger magnitudes sort first.
const expBias = 0x8000

// appendPart appends the order-preserving encoding of the scalar v. The
// number must already be valid (items are validated before storing).
func appendPart(dst []byte, v attr.Value) []byte {
	switch v.Type {
	case attr.N:
		n, err := attr.ParseNumber(v.Str)
		if err != nil || n.IsZero() {
			return append(dst, 0x02)
		}
		neg := n.Negative()
		var mask byte
		lead := byte(0x03)
		if neg {
			mask, lead = 0xFF, 0x01
		}
		e := uint16(n.Exp() + expBias)
		dst = append(dst, lead, byte(e>>8)^mask, byte(e)^mask)
		for _, d := range []byte(n.Digits()) {
			dst = append(dst, (d-'0'+1)^mask)
		}
		return append(dst, mask)
	default:
		for i := 0; i < len(v.Str); i++ {
			c := v.Str[i]
			if c == 0 {
				dst = append(dst, 0, 0xFF)
				continue
			}
			dst = append(dst, c)
		}
		return append(dst, 0, 1)
	}
}

// appendPrefixPart appends the escaped bytes of s without the terminator:
// every S or B part starting with s starts with these bytes.
func appendPrefixPart(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0, 0xFF)
			continue
		}
		dst = append(dst, s[i])
	}
	return dst
}

// hashParts spreads partitions over the key space: FNV-1a over the encoded
// partition parts, finished with a 64-bit mixer so that the high bits
// (which order partitions and split Scan segments) are uniform.
func hashParts(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// PartitionHash is where a partition key lands in the key space of a
// table or index of the engine (and of its throughput model): the hash of
// its values, the table's partition key or an index's partition
// attributes in order, each a scalar (S, N or B). Simulations that place
// keys without storing items (the planner) use it, so that they put every
// key on the partition the engine would.
func PartitionHash(values ...attr.Value) uint64 {
	var parts []byte
	for _, v := range values {
		parts = appendPart(parts, v)
	}
	return hashParts(parts)
}

// appendHashed appends be64(hash(parts)) followed by parts.
func appendHashed(dst, parts []byte) []byte {
	dst = binary.BigEndian.AppendUint64(dst, hashParts(parts))
	return append(dst, parts...)
}

// successor returns the smallest byte string greater than every string
// having prefix p, or nil when there is none (p is all 0xFF).
func successor(p []byte) []byte {
	s := append([]byte(nil), p...)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 0xFF {
			s[i]++
			return s[:i+1]
		}
	}
	return nil
}
