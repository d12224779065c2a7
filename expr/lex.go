package expr

import "unicode/utf8"

type tokKind uint8

const (
	tEOF   tokKind = iota
	tWord          // attribute name, keyword, function name or digits
	tName          // #placeholder
	tValue         // :placeholder
	tLParen
	tRParen
	tLBrack
	tRBrack
	tComma
	tDot
	tEq
	tNe
	tLt
	tLe
	tGt
	tGe
	tPlus
	tMinus
	tBad // any other character
)

// token is a lexeme of the source: its kind and byte range.
type token struct {
	kind       tokKind
	start, end int
}

// single maps the one-byte punctuation tokens; tBad (zero is tEOF, so
// every entry is set explicitly) marks the others.
var single = func() (t [128]tokKind) {
	for i := range t {
		t[i] = tBad
	}
	for c, k := range map[byte]tokKind{'(': tLParen, ')': tRParen, '[': tLBrack, ']': tRBrack, ',': tComma, '.': tDot, '=': tEq, '+': tPlus, '-': tMinus} {
		t[c] = k
	}
	return t
}()

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// lex returns the token starting at or after pos. Lexing on demand rather
// than into a slice keeps parsing short expressions allocation-free.
func lex(src string, pos int) token {
	for pos < len(src) && (src[pos] == ' ' || src[pos] == '\t' || src[pos] == '\n' || src[pos] == '\r') {
		pos++
	}
	if pos >= len(src) {
		return token{tEOF, len(src), len(src)}
	}
	c := src[pos]
	one := func(k tokKind) token { return token{k, pos, pos + 1} }
	switch {
	case isWordByte(c):
		end := pos + 1
		for end < len(src) && isWordByte(src[end]) {
			end++
		}
		return token{tWord, pos, end}
	case c == '#' || c == ':':
		end := pos + 1
		for end < len(src) && isWordByte(src[end]) {
			end++
		}
		if end == pos+1 {
			return one(tBad)
		}
		if c == '#' {
			return token{tName, pos, end}
		}
		return token{tValue, pos, end}
	case c < 128 && single[c] != tBad:
		return one(single[c])
	case c == '<':
		if pos+1 < len(src) && src[pos+1] == '=' {
			return token{tLe, pos, pos + 2}
		}
		if pos+1 < len(src) && src[pos+1] == '>' {
			return token{tNe, pos, pos + 2}
		}
		return one(tLt)
	case c == '>':
		if pos+1 < len(src) && src[pos+1] == '=' {
			return token{tGe, pos, pos + 2}
		}
		return one(tGt)
	}
	_, n := utf8.DecodeRuneInString(src[pos:])
	return token{tBad, pos, pos + n}
}
