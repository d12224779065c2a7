// Package scaffold starts a model: from the access-pattern workshop's
// table of questions (ID, question, asked by, rate and shape, as a
// Markdown or CSV table with English or Portuguese headers), or as an
// empty skeleton. It writes the questions as access patterns with their
// rates carried into the format's velocity, marks the questions that go
// outside the table, and leaves a TODO wherever a design decision is
// needed. The table's text reaches the model only as quoted scalars.
package scaffold

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/cardapio/cardapio/internal/input"
)

// Bounds of a question table: a workshop lists tens of questions, so
// these leave room and keep every loop and allocation small.
const (
	MaxTableBytes = 1 << 20 // the file
	MaxRows       = 500     // questions
	MaxColumns    = 32
	MaxCellBytes  = 1000 // one cell's text
	maxActors     = 20   // names in one "asked by" cell
)

// Column is what a column of the table holds.
type Column int

// The columns init reads; any other column is ignored (and said so).
const (
	ColNone Column = iota
	ColID
	ColQuestion
	ColAskedBy
	ColShape
	ColConsistency
	ColLatency
	ColIfWrong
)

var columnNames = [...]string{"", "ID", "question", "asked by", "rate/shape", "consistency", "latency", "if wrong"}

func (c Column) String() string { return columnNames[c] }

// Row is one question of the table, its cells by column, with the line it
// was read from.
type Row struct {
	Line  int
	Cells map[Column]string
}

// Table is a question table as read.
type Table struct {
	Name    string   // the file, for positions
	Rows    []Row    // in the table's order
	Ignored []string // headers of the columns no rule reads
}

// header reads a header cell as a column. Headers are compared folded
// (lower case, accents and Markdown emphasis removed), in English or
// Portuguese; the first rule that matches wins.
func header(h string) Column {
	f := fold(h)
	f = strings.Trim(f, " *_`:")
	switch f {
	case "id", "#", "ap", "code", "codigo", "cod", "ref":
		return ColID
	}
	rules := []struct {
		col   Column
		words []string
	}{
		{ColAskedBy, []string{"asked by", "who asks", "quem pergunta", "perguntado por", "quem", "who", "actor", "ator", "owner", "dono", "solicitante", "requester"}},
		{ColConsistency, []string{"consist"}},
		{ColLatency, []string{"latenc", "tempo de resposta", "response time", "sla"}},
		{ColIfWrong, []string{"wrong", "errad", "se errar", "impact", "cost if", "custo se", "custo de negocio", "business cost", "risco", "risk"}},
		{ColShape, []string{"veloc", "shape", "rate", "forma", "taxa", "volume", "freq", "ritmo", "pico", "peak", "throughput", "vazao"}},
		{ColQuestion, []string{"question", "pergunta", "questao", "access pattern", "padrao de acesso", "padrao", "query", "consulta"}},
	}
	for _, r := range rules {
		for _, w := range r.words {
			if strings.Contains(f, w) {
				return r.col
			}
		}
	}
	return ColNone
}

// fold lowers s and strips its accents, for comparing words.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// tableErr is a positioned error in the table: bad input, exit 2.
func tableErr(name string, line int, format string, a ...any) error {
	return input.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
}

// Parse reads a question table: CSV when the name ends in .csv or .tsv
// (or the text holds no Markdown table), the first Markdown table whose
// header names a question column otherwise. Errors are bad input
// (input.Error), positioned at their line.
func Parse(name string, data []byte) (*Table, error) {
	if len(data) > MaxTableBytes {
		return nil, input.Errorf("%s: %d bytes: a question table is read up to %d KiB", name, len(data), MaxTableBytes>>10)
	}
	if !utf8.Valid(data) {
		return nil, input.Errorf("%s: not UTF-8 text", name)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".csv"):
		return parseCSV(name, data, 0)
	case strings.HasSuffix(lower, ".tsv"):
		return parseCSV(name, data, '\t')
	}
	t, found, err := parseMarkdown(name, data)
	if err != nil || found {
		return t, err
	}
	return parseCSV(name, data, 0)
}

var (
	mdSep = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
)

// mdCells splits a Markdown table line into its cells: pipes split,
// `\|` is a pipe inside a cell, the outer pipes are optional.
func mdCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			b.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// parseMarkdown reads the first table whose header has a question column;
// found is false when the text has none.
func parseMarkdown(name string, data []byte) (*Table, bool, error) {
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !strings.Contains(lines[i], "|") || !mdSep.MatchString(lines[i+1]) || !strings.Contains(lines[i+1], "-") {
			continue
		}
		heads := mdCells(lines[i])
		if !hasQuestion(heads) {
			continue
		}
		var records [][]string
		var at []int
		for j := i + 2; j < len(lines) && strings.Contains(lines[j], "|"); j++ {
			records = append(records, mdCells(lines[j]))
			at = append(at, j+1)
			if len(records) > MaxRows {
				break
			}
		}
		t, err := build(name, i+1, heads, records, at)
		return t, true, err
	}
	return nil, false, nil
}

func hasQuestion(heads []string) bool {
	for _, h := range heads {
		if header(h) == ColQuestion {
			return true
		}
	}
	return false
}

// parseCSV reads comma-, semicolon- (spreadsheets in Portuguese) or
// tab-separated values; the delimiter is the one of the header line when
// not given.
func parseCSV(name string, data []byte, comma rune) (*Table, error) {
	if comma == 0 {
		first, _, _ := strings.Cut(string(data), "\n")
		comma = ','
		if strings.Count(first, ";") > strings.Count(first, ",") {
			comma = ';'
		}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var records [][]string
	var at []int
	heads, headLine := []string(nil), 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, input.Errorf("%s:%d:%d: %v", name, pe.Line, pe.Column, pe.Err)
			}
			return nil, input.Errorf("%s: %v", name, err)
		}
		line, _ := r.FieldPos(0)
		if blank(rec) {
			continue
		}
		if heads == nil {
			heads, headLine = rec, line
			if !hasQuestion(heads) {
				return nil, tableErr(name, line, "no question column in the header (Question or Pergunta); a question table is a Markdown or CSV table with the columns ID, question, asked by and rate/shape")
			}
			continue
		}
		records = append(records, rec)
		at = append(at, line)
		if len(records) > MaxRows {
			break
		}
	}
	if heads == nil {
		return nil, input.Errorf("%s: no table: a question table is a Markdown or CSV table with the columns ID, question, asked by and rate/shape", name)
	}
	return build(name, headLine, heads, records, at)
}

func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// build maps the header onto columns and reads the rows, bounded.
func build(name string, headLine int, heads []string, records [][]string, at []int) (*Table, error) {
	if len(heads) > MaxColumns {
		return nil, tableErr(name, headLine, "%d columns: a question table has at most %d", len(heads), MaxColumns)
	}
	t := &Table{Name: name}
	cols := make([]Column, len(heads))
	seen := map[Column]int{}
	for i, h := range heads {
		c := header(h)
		if c != ColNone {
			if _, dup := seen[c]; dup {
				return nil, tableErr(name, headLine, "two %s columns (%d and %d)", c, seen[c]+1, i+1)
			}
			seen[c] = i
		} else if strings.TrimSpace(h) != "" {
			t.Ignored = append(t.Ignored, clip(strings.TrimSpace(h), 40))
		}
		cols[i] = c
	}
	if len(records) > MaxRows {
		return nil, tableErr(name, at[MaxRows], "more than %d questions: a workshop's table is split into models before that", MaxRows)
	}
	for k, rec := range records {
		if blank(rec) {
			continue
		}
		if len(rec) > MaxColumns {
			return nil, tableErr(name, at[k], "%d cells: a question table has at most %d columns", len(rec), MaxColumns)
		}
		row := Row{Line: at[k], Cells: map[Column]string{}}
		for i, cell := range rec {
			if i >= len(cols) || cols[i] == ColNone {
				continue
			}
			if len(cell) > MaxCellBytes {
				return nil, tableErr(name, at[k], "the %s cell has %d bytes: a cell is read up to %d", cols[i], len(cell), MaxCellBytes)
			}
			row.Cells[cols[i]] = strings.TrimSpace(cell)
		}
		if row.Cells[ColQuestion] == "" {
			return nil, tableErr(name, at[k], "the question is empty")
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil, tableErr(name, headLine, "the table has no questions")
	}
	return t, nil
}

// clip cuts s to at most n runes, for messages.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}
