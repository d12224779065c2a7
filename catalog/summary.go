package catalog

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// Map is the "no loose lines" picture of a model: every question with the
// structure that answers it, and every structure with the questions it
// serves. A loose line is a question without a structure (and without a
// declared destination off the table) or a structure without a question.
type Map struct {
	Patterns   []PatternLine   `json:"patterns"`
	Structures []StructureLine `json:"structures"`
}

// PatternLine is one access pattern and how it is answered.
type PatternLine struct {
	ID          string   `json:"id"`
	Question    string   `json:"question"`
	Consistency string   `json:"consistency"`
	Structure   string   `json:"structure,omitempty"` // table or index name; "" when not answered by the table
	Kind        string   `json:"kind"`                // table, gsi, lsi, or elsewhere
	Call        string   `json:"call,omitempty"`      // GetItem, Query, PutItem, UpdateItem
	Key         string   `json:"key,omitempty"`       // the key condition, in DynamoDB's words
	Order       string   `json:"order,omitempty"`
	PageSize    int      `json:"pageSize,omitempty"`
	Shards      string   `json:"shards,omitempty"`
	GoesTo      string   `json:"goesTo,omitempty"` // where a question not answered by the table goes
	Operations  []string `json:"operations,omitempty"`
	Loose       bool     `json:"loose"`
}

// StructureLine is one table or index and the questions it serves.
type StructureLine struct {
	Name      string   `json:"name"`
	Alias     string   `json:"alias,omitempty"`
	Kind      string   `json:"kind"` // table, gsi, lsi
	Key       string   `json:"key"`
	Shards    int      `json:"shards,omitempty"`
	Questions []string `json:"questions"`
	Loose     bool     `json:"loose"`
}

// Destinations of questions not answered by the table, in words.
var goesToWords = map[string]string{
	"s3ExportAthena": "S3 export + Athena",
	"searchEngine":   "search engine fed by the stream",
	"stream":         "stream consumers",
	"elsewhere":      "elsewhere",
}

// Map builds the question/structure map of the model.
func (m *Model) Map() Map {
	var out Map
	serves := map[string][]string{}
	for _, ap := range m.AccessPatterns {
		pl := PatternLine{ID: ap.ID, Question: ap.Question, Consistency: ap.Consistency}
		for _, o := range ap.Operations {
			pl.Operations = append(pl.Operations, o.Name)
		}
		switch {
		case ap.NotAnswered != nil:
			pl.Kind = "elsewhere"
			pl.GoesTo = goesToWords[ap.NotAnswered.GoesTo]
		case ap.Answer != nil:
			a := ap.Answer
			pl.Structure = a.Structure()
			pl.Kind = "table"
			if a.Index != nil {
				pl.Kind = "gsi"
				if a.Index.Local {
					pl.Kind = "lsi"
				}
			}
			pl.Call = a.Operation
			if a.ConsistentRead {
				pl.Call += " (strongly consistent)"
			}
			pl.Key = KeyConditionText(a.Key)
			pl.Order = a.Order
			pl.PageSize = a.PageSize
			if a.Shards != nil && a.Index != nil && a.Index.Shards != nil {
				if a.Shards.FanOut == "all" {
					pl.Shards = fmt.Sprintf("all %d shards of %s, one query each", a.Index.Shards.Count, a.Index.Shards.Attribute)
				} else {
					pl.Shards = fmt.Sprintf("one of %d shards", a.Index.Shards.Count)
				}
			}
			serves[pl.Structure] = append(serves[pl.Structure], ap.ID)
		default:
			pl.Loose = true
		}
		out.Patterns = append(out.Patterns, pl)
	}
	for _, t := range m.Tables {
		key := t.PartitionKey
		if t.SortKey != "" {
			key += ", " + t.SortKey
		}
		qs := serves[t.Name]
		out.Structures = append(out.Structures, StructureLine{Name: t.Name, Kind: "table", Key: key, Questions: nonNil(qs), Loose: len(qs) == 0})
		for _, x := range t.Indexes {
			kind := "gsi"
			if x.Local {
				kind = "lsi"
			}
			key := strings.Join(x.Partition, " + ")
			if len(x.Sort) > 0 {
				key += ", " + strings.Join(x.Sort, " + ")
			}
			sl := StructureLine{Name: x.Name, Alias: x.Alias, Kind: kind, Key: key, Questions: nonNil(serves[x.Name])}
			if x.Shards != nil {
				sl.Shards = x.Shards.Count
			}
			sl.Loose = len(sl.Questions) == 0
			out.Structures = append(out.Structures, sl)
		}
	}
	for i := range out.Structures {
		sort.Strings(out.Structures[i].Questions)
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// KeyConditionText writes a key condition the way DynamoDB's
// KeyConditionExpression reads, with templates in place of values.
func KeyConditionText(conds []KeyCondition) string {
	var parts []string
	for _, c := range conds {
		vals := make([]string, len(c.Operands))
		for i, o := range c.Operands {
			vals[i] = operandText(o)
		}
		switch c.Op {
		case OpEq:
			parts = append(parts, fmt.Sprintf("%s = %s", c.Attribute, vals[0]))
		case OpBeginsWith:
			parts = append(parts, fmt.Sprintf("begins_with(%s, %s)", c.Attribute, vals[0]))
		case OpBetween:
			parts = append(parts, fmt.Sprintf("%s BETWEEN %s AND %s", c.Attribute, vals[0], vals[1]))
		default:
			op := map[string]string{OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">="}[c.Op]
			parts = append(parts, fmt.Sprintf("%s %s %s", c.Attribute, op, vals[0]))
		}
	}
	return strings.Join(parts, " AND ")
}

func operandText(o Operand) string {
	switch {
	case o.Param != "":
		return "{" + o.Param + "}"
	case o.Template != nil:
		return fmt.Sprintf("%q", o.Template.Text)
	case o.Literal != nil:
		switch o.Literal.Type {
		case attr.N:
			return o.Literal.Str
		case attr.S:
			return fmt.Sprintf("%q", o.Literal.Str)
		case attr.BOOL:
			return fmt.Sprint(o.Literal.Bool)
		}
		return o.Literal.Type.String()
	}
	return ""
}
