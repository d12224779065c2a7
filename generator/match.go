package generator

import "github.com/cardapio/cardapio/catalog"

// mayMatch reports whether some key rendered from template a could equal
// (prefix: start with) some key rendered from template b. A placeholder
// stands for one or more characters other than the separator, which is
// what the generated key builders allow. It decides which entities a
// key condition can return.
func mayMatch(a, b *catalog.KeyTemplate, sep string, prefix bool) bool {
	ta, tb := tokens(a, sep), tokens(b, sep)
	memo := map[[2]int]bool{}
	seen := map[[2]int]bool{}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		k := [2]int{i, j}
		if seen[k] {
			return memo[k]
		}
		seen[k] = true
		r := false
		switch {
		case j == len(tb) && (prefix || i == len(ta)):
			r = true
		case i < len(ta) && ta[i].star:
			r = match(i+1, j) || j < len(tb) && tb[j].any(sep) && match(i, j+1)
		case j < len(tb) && tb[j].star:
			r = match(i, j+1) || i < len(ta) && ta[i].any(sep) && match(i+1, j)
		case i < len(ta) && j < len(tb):
			r = ta[i].meets(tb[j], sep) && match(i+1, j+1)
		}
		memo[k] = r
		return r
	}
	return match(0, 0)
}

// tok is one character of a template, or a placeholder's character
// class: one (wild) or any number (star) of non-separator characters.
type tok struct {
	c    byte
	wild bool
	star bool
}

func tokens(t *catalog.KeyTemplate, sep string) []tok {
	var out []tok
	for _, p := range t.Parts {
		if p.Attr == "" {
			for i := 0; i < len(p.Literal); i++ {
				out = append(out, tok{c: p.Literal[i]})
			}
			continue
		}
		out = append(out, tok{wild: true}, tok{star: true})
	}
	return out
}

// any reports whether a token can stand for some non-separator character.
func (t tok) any(sep string) bool {
	return t.wild || t.star || !isSep(t.c, sep)
}

func (t tok) meets(u tok, sep string) bool {
	switch {
	case t.wild && u.wild:
		return true
	case t.wild:
		return !isSep(u.c, sep)
	case u.wild:
		return !isSep(t.c, sep)
	}
	return t.c == u.c
}

func isSep(c byte, sep string) bool {
	return sep != "" && c == sep[0]
}
