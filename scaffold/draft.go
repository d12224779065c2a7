package scaffold

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/input"
)

// Pattern is one question of the table as an access pattern of the
// draft.
type Pattern struct {
	ID          string
	Line        int // in the table
	Question    string
	AskedBy     []string // empty: nobody named, a TODO
	Shape       Shape
	ShapeText   string // the cell as written, kept as the velocity's note
	Consistency string // eventual, strong, exact
	IfWrong     string
	Outside     *Outside // the question goes outside the table
}

// Outside is where a question goes instead of the table, and why.
type Outside struct {
	GoesTo string // s3ExportAthena, searchEngine, stream, elsewhere
	Why    string
}

// Draft is a model started from a question table, or an empty skeleton.
type Draft struct {
	Name     string
	Source   string // the table's file, "" for a skeleton
	Patterns []Pattern
}

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// CheckName says whether name is a model's name the format takes.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return input.Errorf("--name %q: a model's name is a letter, then letters, digits, '_' or '-', at most 64 characters", clip(name, 80))
	}
	return nil
}

// NameFrom makes a model's name out of a file's name (rides-questions.md
// gives rides-questions), or "model" when nothing of it fits.
func NameFrom(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var b strings.Builder
	for _, r := range fold(base) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9' && b.Len() > 0, (r == '-' || r == '_') && b.Len() > 0:
			b.WriteRune(r)
		case r == ' ' && b.Len() > 0:
			b.WriteByte('-')
		}
		if b.Len() == 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "model"
	}
	return b.String()
}

var idRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`)

// FromTable turns a question table into a draft: one access pattern per
// row, keyed by the row's ID (or AP01, AP02... in the table's order when
// it has none or one the format does not take).
func FromTable(name string, t *Table) (*Draft, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	d := &Draft{Name: name, Source: t.Name}
	seen := map[string]int{}
	for i, r := range t.Rows {
		id := strings.TrimSpace(r.Cells[ColID])
		if !idRE.MatchString(id) {
			id = fmt.Sprintf("AP%02d", i+1)
		}
		if at, dup := seen[id]; dup {
			return nil, tableErr(t.Name, r.Line, "the ID %s is the one of line %d: each question needs its own", id, at)
		}
		seen[id] = r.Line
		p := Pattern{ID: id, Line: r.Line, Question: r.Cells[ColQuestion], IfWrong: r.Cells[ColIfWrong]}
		p.AskedBy = actors(r.Cells[ColAskedBy])
		p.ShapeText = r.Cells[ColShape]
		p.Shape = ParseShape(p.ShapeText)
		if lat := r.Cells[ColLatency]; lat != "" {
			if l := ParseShape("< " + lat).Latency; l != "" {
				p.Shape.Latency = l
			}
		}
		p.Consistency = consistency(r.Cells[ColConsistency], p.Shape.Consistency)
		p.Outside = outside(r)
		d.Patterns = append(d.Patterns, p)
	}
	return d, nil
}

// actors splits an "asked by" cell into names: commas, semicolons,
// slashes, "and" and "e" separate them.
func actors(cell string) []string {
	var out []string
	for _, a := range actorSep.Split(cell, maxActors+1) {
		if a = strings.TrimSpace(a); a != "" && len(out) < maxActors {
			out = append(out, a)
		}
	}
	return out
}

var actorSep = regexp.MustCompile(`\s*(?:[,;/+&]|\band\b|\be\b)\s*`)

// consistency reads the consistency column, else what the shape says,
// else eventual.
func consistency(cell, fromShape string) string {
	f := fold(cell)
	switch {
	case exactRE.MatchString(f):
		return "exact"
	case strongRE.MatchString(f):
		return "strong"
	case fromShape != "":
		return fromShape
	}
	return "eventual"
}

// The rule for the questions that go outside the table, said in init's
// help and output: a row that says so (NOT in DynamoDB, fora do
// DynamoDB), or a question whose words are those of an aggregation over
// everything (a report, a dashboard, aging, roll rate...) or of a search
// over free text (full-text, free filters...). DynamoDB answers questions
// with a key; the others are a Scan.
var (
	saysOutside = regexp.MustCompile(`\b(not in dynamodb|nao no dynamodb|fora do dynamodb|not in the table|fora da tabela|outside the table|outside dynamodb|not dynamodb)\b`)
	analytical  = regexp.MustCompile(`\b(reports?|relatorios?|dashboards?|aging|roll rate|analytics?|analytical|analitic[oa]s?|kpis?|indicadores|regulatory|regulatori[oa]s?|accounting|contab\w*|cohorts?|coortes?|churn|average|media de|sum of|soma de|total of all|totals by|totais por)\b`)
	freeText    = regexp.MustCompile(`\b(full[- ]text|free[- ]text|texto livre|busca textual|busca livre|free filters?|filtros livres|any field|qualquer campo|fuzzy|keyword search|palavras?[- ]chave)\b`)
	goesAthena  = regexp.MustCompile(`\b(athena|s3|export|lakehouse|redshift|data lake|warehouse|bi)\b`)
	goesSearch  = regexp.MustCompile(`\b(opensearch|elasticsearch|search engine|motor de busca)\b`)
	goesStream  = regexp.MustCompile(`\b(stream|kinesis|streams)\b`)
)

// OutsideRule is the rule, in words, for the output and the help.
const OutsideRule = `a question goes outside the table when its row says so (NOT in DynamoDB, fora do DynamoDB) or when its words are those of an aggregation over everything (report, relatório, dashboard, aging, roll rate, analytics, KPI, average, sum of...: S3 export and Athena) or of a free-text search (full-text, free filters, any field: a search engine)`

func outside(r Row) *Outside {
	q := fold(r.Cells[ColQuestion])
	said := fold(r.Cells[ColShape] + " " + r.Cells[ColConsistency] + " " + r.Cells[ColLatency])
	if saysOutside.MatchString(said) || saysOutside.MatchString(q) {
		all := said + " " + q
		o := &Outside{GoesTo: "elsewhere", Why: "the workshop's table says it is not answered by DynamoDB; TODO: say where it goes and why"}
		switch {
		case goesSearch.MatchString(all):
			o.GoesTo = "searchEngine"
		case goesAthena.MatchString(all):
			o.GoesTo = "s3ExportAthena"
		case goesStream.MatchString(all):
			o.GoesTo = "stream"
		}
		if o.GoesTo != "elsewhere" {
			o.Why = "the workshop's table says it is not answered by DynamoDB"
		}
		return o
	}
	if m := freeText.FindString(q); m != "" {
		return &Outside{GoesTo: "searchEngine", Why: "marked by cardapio init: the question asks for " + strconv.Quote(m) + ", a search over free text, which DynamoDB answers only with a Scan; a search engine fed by the table's stream answers it. TODO: confirm, or design a key that answers it"}
	}
	if m := analytical.FindString(q); m != "" {
		return &Outside{GoesTo: "s3ExportAthena", Why: "marked by cardapio init: the question names " + strconv.Quote(m) + ", an aggregation over all the data, which DynamoDB answers only with a Scan; the S3 export and Athena answer it without touching the table. TODO: confirm, or design a key that answers it"}
	}
	return nil
}

// Pending are the access patterns the draft leaves for the team to
// design: each has neither an answer nor a place outside the table, so
// check gives one error for each until it has.
func (d *Draft) Pending() []string {
	var ids []string
	for _, p := range d.Patterns {
		if p.Outside == nil {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// Outsiders are the access patterns marked as going outside the table.
func (d *Draft) Outsiders() []string {
	var ids []string
	for _, p := range d.Patterns {
		if p.Outside != nil {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// Unrated are the access patterns whose rate the table does not give in
// a form the format takes: each has a TODO decision.
func (d *Draft) Unrated() []string {
	var ids []string
	for _, p := range d.Patterns {
		if !p.Shape.Velocity() && p.Outside == nil {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// Expected sorts what check found in the draft: the errors it expects
// (one "no structure that answers it" for each pending question), the
// others, and the pending questions check did not find (both lists are
// empty unless init wrote something it did not mean to).
func (d *Draft) Expected(errs catalog.ErrorList) (expected, other catalog.ErrorList, missing []string) {
	pending := map[string]bool{}
	for _, id := range d.Pending() {
		pending[id] = true
	}
	found := map[string]bool{}
	for _, e := range errs {
		id, ok := strings.CutPrefix(e.Path, "accessPatterns.")
		if ok && pending[id] && strings.HasSuffix(e.Msg, "has no structure that answers it") {
			expected = append(expected, e)
			found[id] = true
			continue
		}
		other = append(other, e)
	}
	for _, id := range d.Pending() {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	return expected, other, missing
}
