package catalog

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a model file; Line and Col start at 1.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Error is one problem in a model, at a position, with the path of the
// offending field (indexes.GSI1.partition[2]) and at most one hint.
type Error struct {
	Pos  Pos
	Path string
	Msg  string
	Hint string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Pos.String())
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("\nhint: ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// MaxErrors caps how many errors an ErrorList prints.
const MaxErrors = 20

// ErrorList is every error found in a model, sorted by position. It is
// the error Load and Parse return for a bad model, so callers can tell a
// bad model (errors.As) from a failure to read the file.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxErrors {
			fmt.Fprintf(&b, "\n(and %d more errors)", len(l)-MaxErrors)
			return b.String()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return l[i].Msg < l[j].Msg
	})
}

// dedup drops errors repeated at the same position with the same message.
func (l ErrorList) dedup() ErrorList {
	out := l[:0]
	for i, e := range l {
		if i > 0 && e.Pos == l[i-1].Pos && e.Msg == l[i-1].Msg && e.Path == l[i-1].Path {
			continue
		}
		out = append(out, e)
	}
	return out
}

// Finding is a review warning: the model is valid, but a reviewer would
// question it. Accepted findings were acknowledged in review.accept with a
// reason and do not fail a strict check.
type Finding struct {
	Pos      Pos
	Path     string
	Code     string
	Msg      string
	Hint     string
	Accepted string // the reason, when the model accepts the finding
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s [%s]", f.Pos, f.Path, f.Msg, f.Code)
	if f.Hint != "" {
		s += "\nhint: " + f.Hint
	}
	return s
}

// nearest returns the candidate closest to s, when it is close enough to
// be the name s was meant to be: a typo, a transposition, a missing or
// extra letter. The distance allowed grows with the name (a third of its
// letters, at least one), and some letters must survive it: "to" is not a
// misspelt "PK", nor "A" a misspelt "B", though each is one or two edits
// away. Letter case is free.
func nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	n := utf8.RuneCountInString(s)
	limit := max(1, n/3)
	if best == "" || bestD > limit || bestD >= n || bestD >= utf8.RuneCountInString(best) || bestD == 0 && best == s {
		return ""
	}
	return best
}

func didYouMean(s string, candidates []string) string {
	if n := nearest(s, candidates); n != "" {
		return fmt.Sprintf("did you mean %q?", n)
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours ("nmae" is
// one edit from "name") each count one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 200 || len(rb) > 200 {
		return 1 << 20
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
