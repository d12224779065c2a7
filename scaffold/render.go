package scaffold

import (
	"fmt"
	"strconv"
	"strings"
)

// quote writes s as a YAML double-quoted scalar. Every character that is
// not printable (controls, line and paragraph separators, the byte-order
// mark) is escaped, so no text from the table can end the scalar, start
// a line, a comment, an anchor or a tag: Go's escapes (\n, \t, \xXX,
// \uXXXX, \UXXXXXXXX, \", \\) are all YAML's too. Invalid UTF-8 becomes
// U+FFFD before quoting.
func quote(s string) string {
	return strconv.Quote(strings.ToValidUTF8(s, "\uFFFD"))
}

// flow writes a list of strings as a YAML flow sequence of quoted
// scalars.
func flow(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = quote(x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// YAML writes the draft as a commented model.yaml. Everything taken from
// the table is a quoted scalar (quote); comments hold only init's own
// words.
func (d *Draft) YAML() []byte {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	if d.Source == "" {
		d.skeleton(&b)
		return []byte(b.String())
	}
	w("# A draft model, started by cardapio init from the workshop's table of\n")
	w("# questions. Each question is an access pattern with its rate; each TODO\n")
	w("# is a design decision the table does not make. Until every question has\n")
	w("# its answer (the table or index and the key that answer it),\n")
	w("# cardapio check gives one error for each: that list is the work left.\n")
	w("# The format: docs/model-format.md.\n")
	w("formatVersion: 2\n")
	w("name: %s\n", quote(d.Name))
	w("description: %s\n", quote("TODO: what the system does. Started from the question table "+d.Source+"."))
	w("separator: \"#\"\n")
	unrated := d.Unrated()
	if len(unrated) > 0 {
		w("\n# Decisions the team owes: a rate for each question whose table row gives\n")
		w("# none the format takes (the peak gate and cost need one).\n")
		w("decisions:\n")
		for _, p := range d.Patterns {
			if p.Shape.Velocity() || p.Outside != nil {
				continue
			}
			why := "the table gives no rate"
			switch {
			case p.Shape.Rejected != "":
				why = "the table says " + strconv.Quote(p.ShapeText) + ": " + p.Shape.Rejected
			case p.ShapeText != "":
				why = "the table says " + strconv.Quote(p.ShapeText) + ", which gives no count per unit of time"
			}
			w("  %s:\n", decisionName(p.ID))
			w("    decision: %s\n", quote("TODO: the peak rate of "+p.ID+" (velocity: steady, burst or peak)"))
			w("    why: %s\n", quote(why))
		}
	}
	w("\ntables:\n")
	w("  # TODO: one table is the usual start (single-table design); its name is\n")
	w("  # the model's. Generic keys PK and SK hold every entity's key templates.\n")
	w("  %s:\n", quote(d.Name))
	w("    partitionKey: PK\n")
	w("    sortKey: SK\n")
	w("    billing: {mode: onDemand}\n")
	d.placeholder(&b)
	w("\naccessPatterns:\n")
	for _, p := range d.Patterns {
		d.pattern(&b, p)
	}
	return []byte(b.String())
}

// decisionName is the decision key of an access pattern's missing rate
// (a decision's name takes no '.').
func decisionName(id string) string {
	return "rate-" + strings.ReplaceAll(id, ".", "-")
}

// placeholder writes the dictionary and the one entity a draft needs to
// load: the team replaces it with the entities the questions read.
func (d *Draft) placeholder(b *strings.Builder) {
	b.WriteString(`
attributes:
  PK: {type: S, description: "partition key: each entity's key template fills it"}
  SK: {type: S, description: "sort key: each entity's key template fills it"}
  id: {type: S, description: "TODO: the identifier of ITEM; the dictionary grows with the entities"}

entities:
  # TODO: one entity per kind of item the questions read or write, each with
  # its key templates (from the general to the specific, as an address is
  # written) and a sample. ITEM is a placeholder so that the draft loads.
  ITEM:
    description: "TODO: rename and describe, or remove once the real entities exist"
    key: {PK: "ITEM#{id}", SK: "ITEM"}
    attributes: {id: key}
    samples:
      typical: {id: "item-1"}
`)
}

// pattern writes one access pattern: the question, who asks, the rate,
// the consistency, and either the TODO of its answer or where it goes.
func (d *Draft) pattern(b *strings.Builder, p Pattern) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	w("\n")
	switch {
	case p.Outside != nil:
		w("  # Outside the table: see notAnswered.why. TODO: confirm where it goes.\n")
	default:
		w("  # TODO: design the structure that answers %s: an answer with the table\n", p.ID)
		w("  # or index, the operation and the key condition (or notAnswered, with\n")
		w("  # where it goes instead).\n")
		switch p.Consistency {
		case "exact":
			w("  # exact: only the base table answers it, by the condition of the write\n")
			w("  # that acts on it or a strongly consistent read; never an index.\n")
		case "strong":
			w("  # strong: the base table (or a local index) with consistentRead: true;\n")
			w("  # never a global index.\n")
		}
	}
	w("  %s:\n", p.ID)
	w("    question: %s\n", quote(p.Question))
	if len(p.AskedBy) == 0 {
		w("    askedBy: [\"TODO\"]   # TODO: who asks it (a screen, an API, a flow)\n")
	} else {
		w("    askedBy: %s\n", flow(p.AskedBy))
	}
	if s := p.Shape; s.Velocity() {
		w("    velocity:\n")
		if s.Steady != nil {
			w("      steady: {count: %s, per: %s}\n", plain(s.Steady.Count), s.Steady.Per)
		}
		if s.Burst != nil {
			w("      burst: {volume: %s, window: %s", plain(s.Burst.Volume), s.Burst.Window)
			if s.Burst.Every != "" {
				w(", every: %s", s.Burst.Every)
			}
			w("}\n")
		}
		if s.Peak != nil {
			w("      peak: {count: %s, per: %s}\n", plain(s.Peak.Count), s.Peak.Per)
		}
		w("      note: %s\n", quote(p.ShapeText))
	} else if p.Outside == nil {
		w("    # velocity: TODO (decisions.%s)\n", decisionName(p.ID))
	}
	if p.Shape.Latency != "" {
		w("    latency: %s\n", p.Shape.Latency)
	}
	w("    consistency: %s\n", p.Consistency)
	if p.IfWrong != "" {
		w("    ifWrong: %s\n", quote(p.IfWrong))
	}
	if p.Outside != nil {
		w("    notAnswered:\n")
		w("      goesTo: %s\n", p.Outside.GoesTo)
		w("      why: %s\n", quote(p.Outside.Why))
	}
}

// skeleton writes an empty model that checks: one table, one entity, the
// read by its key, the operation that runs it with its budget.
func (d *Draft) skeleton(b *strings.Builder) {
	fmt.Fprintf(b, `# A new model, started by cardapio init. It checks as it is: one table,
# one entity, one question and the operation that runs it, with its budget.
# Replace each TODO with the design; the format: docs/model-format.md.
# A workshop's table of questions starts a model with its access patterns:
# cardapio init QUESTIONS.md.
formatVersion: 2
name: %s
description: "TODO: what the system does, and for whom"
separator: "#"

tables:
  # TODO: one table is the usual start (single-table design).
  %s:
    partitionKey: PK
    sortKey: SK
    billing: {mode: onDemand}

attributes:
  PK: {type: S, description: "partition key: each entity's key template fills it"}
  SK: {type: S, description: "sort key: each entity's key template fills it"}
  id: {type: S, description: "TODO: the identifier of an item"}
  title: {type: S, description: "TODO: what the item says"}

entities:
  # TODO: one entity per kind of item, with its key templates and samples.
  ITEM:
    description: "TODO: what one item is"
    key: {PK: "ITEM#{id}", SK: "ITEM"}
    attributes: {id: key, title: required}
    samples:
      typical: {id: "item-1", title: "the first item"}

accessPatterns:
  # TODO: the workshop's questions, each with who asks, its rate and the
  # structure that answers it.
  AP01:
    question: "TODO: one item, by its id"
    askedBy: ["TODO: who asks"]
    velocity:
      steady: {count: 10, per: second}
      note: "TODO: the peak, not the average"
    consistency: eventual
    answer:
      table: %s
      operation: GetItem
      key:
        PK: {eq: "ITEM#{id}"}
        SK: {eq: "ITEM"}

operations:
  GetItem:
    description: "TODO: read one item"
    serves: [AP01]
    params:
      id: {sample: "item-1"}
    volume: {perMonth: 1000000, peakPerSecond: 10}
    steps:
      - id: get
        pattern: AP01
        get:
          entity: ITEM
          sample: typical
    budgets:
      found: {rru: 0.5, reasoning: "an eventually consistent read of an item under 4 KB"}
`, quote(d.Name), quote(d.Name), quote(d.Name))
}
