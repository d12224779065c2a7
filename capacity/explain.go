package capacity

import (
	"strconv"

	"github.com/cardapio/cardapio/attr"
)

// Part is one line of an item's size breakdown: an attribute, a map entry
// or a list element, with what its bytes are made of.
type Part struct {
	Depth      int    // 0 for a top-level attribute
	Name       string // attribute name, map key, or "[i]" for a list element
	Type       attr.Type
	NameBytes  int // UTF-8 bytes of the name; 0 for a list element
	ValueBytes int
	// Element is the 1 byte every list or map element adds to its
	// container; 0 at the top level.
	Element int
	Note    string // how ValueBytes was reached
}

// Size returns the bytes the part adds to its container or item.
func (p Part) Size() int { return p.NameBytes + p.ValueBytes + p.Element }

// Breakdown explains ItemSize attribute by attribute, depth first, nested
// maps and lists included. Containers list at most maxChildren elements
// (0 for all); a part named "..." stands for the rest, with their total.
func (r Rules) Breakdown(it attr.Item, maxChildren int) []Part {
	var out []Part
	for i := range it {
		out = r.breakdown(out, 0, it[i].Name, len(it[i].Name), 0, &it[i].Value, maxChildren)
	}
	return out
}

func (r Rules) breakdown(out []Part, depth int, name string, nameBytes, element int, v *attr.Value, maxChildren int) []Part {
	p := Part{Depth: depth, Name: name, Type: v.Type, NameBytes: nameBytes, ValueBytes: r.size(v), Element: element}
	switch v.Type {
	case attr.S:
		p.Note = "UTF-8 bytes"
	case attr.B:
		p.Note = "raw bytes"
	case attr.N:
		p.Note = r.numberNote(v.Str)
	case attr.BOOL, attr.NULL:
		p.Note = "1 byte"
	case attr.SS, attr.NS, attr.BS:
		p.Note = strconv.Itoa(len(v.Set)) + " members, summed, no overhead"
	case attr.L:
		p.Note = "3 + " + strconv.Itoa(len(v.List)) + " elements x 1 + their values"
	case attr.M:
		p.Note = "3 + " + strconv.Itoa(len(v.Map)) + " elements x 1 + their names and values"
	}
	out = append(out, p)
	switch v.Type {
	case attr.L:
		rest, n := 0, 0
		for i := range v.List {
			if maxChildren > 0 && i >= maxChildren {
				rest += 1 + r.size(&v.List[i])
				n++
				continue
			}
			out = r.breakdown(out, depth+1, "["+strconv.Itoa(i)+"]", 0, 1, &v.List[i], maxChildren)
		}
		out = more(out, depth+1, n, rest)
	case attr.M:
		rest, n := 0, 0
		for i := range v.Map {
			f := &v.Map[i]
			if maxChildren > 0 && i >= maxChildren {
				rest += 1 + len(f.Name) + r.size(&f.Value)
				n++
				continue
			}
			out = r.breakdown(out, depth+1, f.Name, len(f.Name), 1, &f.Value, maxChildren)
		}
		out = more(out, depth+1, n, rest)
	}
	return out
}

func more(out []Part, depth, n, bytes int) []Part {
	if n == 0 {
		return out
	}
	return append(out, Part{Depth: depth, Name: "...", ValueBytes: bytes, Note: strconv.Itoa(n) + " more elements"})
}

// numberNote shows the arithmetic of a number's size.
func (r Rules) numberNote(text string) string {
	intSig, fracSig, neg, zero := attr.SignificantDigits(text)
	if zero || intSig+fracSig == 0 {
		return "zero: 1 byte"
	}
	if r.Numbers == NumberDigitPairs {
		s := "1 + base-100 digit pairs"
		if neg {
			s += " + 1 (negative)"
		}
		return s
	}
	s := "1 + ceil(" + strconv.Itoa(intSig) + "/2) + ceil(" + strconv.Itoa(fracSig) + "/2)"
	if neg {
		s += " + 1 (negative)"
	}
	return s
}
