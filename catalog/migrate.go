package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// FormatVersion is the version of the model format this package writes
// and reads best. Version 1 is read too, as long as it uses none of the
// scale fields version 2 replaced; Migrate rewrites one that does.
const FormatVersion = 2

// v1Scale describes the fields of formatVersion 1's scale section. That
// section spoke the words of one business (contracts, debtors, tenants,
// buckets); version 2 says the same things generically: populations on
// entities, skews and value shares on attributes, a business unit, named
// peaks. Only the migration reads these names: they are the old format's,
// not any model's.
var v1Scale = map[string]string{
	"contracts":                             "Active contracts",
	"debtors":                               "Distinct debtors (debtor collections)",
	"instalmentsPerContract":                "Average instalments per contract",
	"delinquentShare":                       "Share of contracts in collection",
	"buckets":                               "Share of delinquent contracts in bucket",
	"tenants":                               "Tenants",
	"eventsPerInstalment":                   "Average audit events per instalment",
	"contactsPerDelinquentContractPerMonth": "Contact attempts per contract in collection per month",
	"smsShare":                              "Share of contact attempts sent by SMS",
	"promisesPerDay":                        "Pending promises due per day",
	"settlementsPerDay":                     "Settlements per ordinary day",
	"bucketMovesPerMonth":                   "Contracts changing bucket per month",
	"paydays":                               "Days that drive peaks",
}

// isV1ScaleField reports whether name is a field of formatVersion 1's
// scale that version 2 replaced.
func isV1ScaleField(name string) bool {
	_, ok := v1Scale[name]
	return ok && name != "storageGB" && name != "history"
}

// Migrate rewrites a model of an older format version as the current one,
// changing only what the new version changed and keeping every other byte
// (comments, blank lines, quoting, folded text) as it is. From version 1:
// formatVersion becomes 2; scale.contracts becomes scale.businessUnit
// {name: contracts, count: N}; scale.paydays becomes scale.peaks (each
// peakFactor a factor); the other business-specific counts and shares of
// scale move to figures (scale-debtors, scale-tenants...) with their
// comments, since only the model's author knows which entity or attribute
// they describe: notes say how to re-express each. A model already at the
// current version comes back unchanged with a note.
func Migrate(name string, data []byte) (out []byte, notes []string, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("migrate %s: not a model (a mapping with formatVersion, name, tables...)", name)
	}
	root := doc.Content[0]
	fv := mapValue(root, "formatVersion")
	switch {
	case fv == nil:
		return nil, nil, fmt.Errorf("migrate %s: no formatVersion", name)
	case fv.Value == strconv.Itoa(FormatVersion):
		return data, []string{fmt.Sprintf("%s is already at formatVersion %d", name, FormatVersion)}, nil
	case fv.Value != "1":
		return nil, nil, fmt.Errorf("migrate %s: formatVersion %s is not one this version knows (1 or %d)", name, fv.Value, FormatVersion)
	}
	t := newText(data)
	t.replaceAt(fv.Line, fv.Column, len(fv.Value), strconv.Itoa(FormatVersion))
	notes = append(notes, fmt.Sprintf("formatVersion 1 -> %d", FormatVersion))
	m := &migration{t: t, root: root}
	if err := m.scale(); err != nil {
		return nil, nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	notes = append(notes, m.notes...)
	return t.bytes(), notes, nil
}

// migration is one model's upgrade in progress.
type migration struct {
	t       *text
	root    *yaml.Node
	notes   []string
	figures []string // the text of new figure entries, indented under figures
}

func (m *migration) scale() error {
	key, val := mapEntry(m.root, "scale")
	if key == nil {
		return nil
	}
	if val.Kind != yaml.MappingNode {
		return nil // the schema reports it
	}
	if val.Style&yaml.FlowStyle != 0 || val.Line == key.Line {
		return m.flowScale(key, val)
	}
	start, end := m.t.blockSpan(m.root, key)
	var body []string
	first := true
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, v := val.Content[i], val.Content[i+1]
		es, ee := m.t.entrySpan(val, i, end)
		if first {
			body = append(body, m.t.lines[start-1:es-1]...) // the scale line and what precedes the first entry
			first = false
		}
		lines := append([]string{}, m.t.lines[es-1:ee]...)
		rel := func(n *yaml.Node) int { return n.Line - es }
		switch {
		case k.Value == "contracts" && v.Kind == yaml.ScalarNode:
			i := rel(k)
			l := lines[i]
			indent := l[:runeOffset(l, k.Column)]
			rest := l[runeOffset(l, v.Column)+len(v.Value):]
			lines[i] = fmt.Sprintf("%sbusinessUnit: {name: contracts, count: %s}%s", indent, v.Value, rest)
			m.notes = append(m.notes, fmt.Sprintf("scale.contracts -> scale.businessUnit {name: contracts, count: %s}: better, {name: contracts, entity: E} counts the population of the entity E", v.Value))
			body = append(body, lines...)
		case k.Value == "paydays":
			renames := []rename{{k, "peaks"}}
			if v.Kind == yaml.MappingNode {
				for j := 1; j < len(v.Content); j += 2 {
					if pk, _ := mapEntry(v.Content[j], "peakFactor"); pk != nil {
						renames = append(renames, rename{pk, "factor"})
					}
				}
			}
			renameKeys(lines, es, renames)
			m.notes = append(m.notes, "scale.paydays -> scale.peaks (peakFactor -> factor): refer to them by name from volumes (peaks), rates (peaks) and scenarios (peak)")
			body = append(body, lines...)
		case isV1ScaleField(k.Value):
			m.moveToFigures(k, v, lines, rel(k))
		default:
			body = append(body, lines...)
		}
	}
	if first {
		body = append(body, m.t.lines[start-1:end]...)
	}
	m.t.replaceLines(start, end, body)
	return m.insertFigures()
}

// rename is a key to write under another name.
type rename struct {
	key *yaml.Node
	to  string
}

// renameKeys renames keys in lines (whose first is line first of the
// file), right to left on each line so that columns stay valid.
func renameKeys(lines []string, first int, rs []rename) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].key.Line != rs[j].key.Line {
			return rs[i].key.Line < rs[j].key.Line
		}
		return rs[i].key.Column > rs[j].key.Column
	})
	for _, r := range rs {
		i := r.key.Line - first
		l := lines[i]
		at := runeOffset(l, r.key.Column)
		lines[i] = l[:at] + r.to + l[at+len(r.key.Value):]
	}
}

// flowScale rewrites a scale written on one line ({contracts: 1000}): it
// holds no comments, so it is written anew.
func (m *migration) flowScale(key, val *yaml.Node) error {
	var kept []string
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, v := val.Content[i], val.Content[i+1]
		switch {
		case k.Value == "contracts" && v.Kind == yaml.ScalarNode:
			kept = append(kept, fmt.Sprintf("businessUnit: {name: contracts, count: %s}", v.Value))
			m.notes = append(m.notes, fmt.Sprintf("scale.contracts -> scale.businessUnit {name: contracts, count: %s}", v.Value))
		case isV1ScaleField(k.Value):
			m.moveToFigures(k, v, nil, 0)
		default:
			text, err := flowText(v)
			if err != nil {
				return err
			}
			kept = append(kept, k.Value+": "+text)
		}
	}
	line := m.t.lines[key.Line-1]
	endLine, endCol := lastPos(val)
	if endLine != key.Line {
		return errors.New("scale spans several lines in flow style: write it in block style first")
	}
	closing := strings.IndexByte(line[endCol-1:], '}')
	if closing < 0 {
		return errors.New("cannot find the end of scale's flow mapping")
	}
	tail := line[endCol-1+closing+1:]
	m.t.lines[key.Line-1] = line[:val.Column-1] + "{" + strings.Join(kept, ", ") + "}" + tail
	return m.insertFigures()
}

// flowText writes a node in flow style.
func flowText(n *yaml.Node) (string, error) {
	c := *n
	c.Style |= yaml.FlowStyle
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// lastPos is the position of the last scalar under n.
func lastPos(n *yaml.Node) (int, int) {
	if len(n.Content) == 0 {
		return n.Line, n.Column + len(n.Value)
	}
	return lastPos(n.Content[len(n.Content)-1])
}

// moveToFigures turns one formatVersion 1 scale field into figures; its
// head comment lines (the lines before keyAt) go with it.
func (m *migration) moveToFigures(k, v *yaml.Node, lines []string, keyAt int) {
	var comments []string
	for _, l := range lines[:min(keyAt, len(lines))] {
		if s := strings.TrimSpace(l); s != "" {
			comments = append(comments, "  "+s)
		}
	}
	desc := v1Scale[k.Value]
	var names []string
	defer func() {
		m.notes = append(m.notes, fmt.Sprintf("scale.%s -> figures.%s: %s", k.Value, strings.Join(names, ", figures."), reexpress(k.Value)))
	}()
	add := func(name, statement, value, unit string) {
		e := append([]string{}, comments...)
		comments = nil
		e = append(e, "  "+name+":", "    statement: "+strconv.Quote(statement))
		if value != "" {
			e = append(e, "    value: "+value)
		}
		if unit != "" {
			e = append(e, "    unit: "+unit)
		}
		m.figures = append(m.figures, e...)
		names = append(names, name)
	}
	number := func(n *yaml.Node) string {
		if n != nil && n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float") {
			return n.Value
		}
		return ""
	}
	switch {
	case k.Value == "buckets" && v.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			b := v.Content[i].Value
			add("scale-buckets-"+figureName(b), desc+" "+b+" (formatVersion 1 scale.buckets)", number(v.Content[i+1]), "share")
		}
	case k.Value == "tenants" && v.Kind == yaml.MappingNode:
		statement := desc + " (formatVersion 1 scale.tenants)"
		if rest := mapValue(v, "rest"); rest != nil {
			statement += "; the contracts of all but the largest spread " + rest.Value
		}
		if g := mapValue(v, "growth"); g != nil {
			statement += "; growth: " + g.Value
		}
		add("scale-tenants", statement, number(mapValue(v, "count")), "tenants")
		if ls := mapValue(v, "largestShare"); ls != nil {
			add("scale-tenants-largest-share", "Share of all contracts held by the largest tenant (formatVersion 1 scale.tenants.largestShare)", number(ls), "share")
		}
	default:
		unit := ""
		if strings.HasSuffix(k.Value, "Share") {
			unit = "share"
		}
		add("scale-"+figureName(k.Value), desc+" (formatVersion 1 scale."+k.Value+")", number(v), unit)
	}
}

// reexpress says how a moved formatVersion 1 fact is said in version 2.
func reexpress(field string) string {
	switch field {
	case "tenants":
		return "declare the tenant attribute's cardinality and skew (top, rest)"
	case "buckets", "delinquentShare", "smsShare":
		return "declare the shares as values: {kind: weighted, weights: ...} on the entity's attribute"
	case "debtors", "instalmentsPerContract", "eventsPerInstalment":
		return "declare it as the population of the entity it counts (total, or per parent with mean or distribution)"
	}
	return "declare it as an operation's volume (perDay, perMonth; per an entity's items) or a population"
}

// figureName turns a field or value into a figure name (letters, digits,
// '-', '_').
func figureName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// insertFigures appends the moved facts to the figures section, creating
// it after scale when the model has none.
func (m *migration) insertFigures() error {
	if len(m.figures) == 0 {
		return nil
	}
	key, val := mapEntry(m.root, "figures")
	// Names already taken.
	taken := map[string]bool{}
	if val != nil && val.Kind == yaml.MappingNode {
		for i := 0; i < len(val.Content); i += 2 {
			taken[val.Content[i].Value] = true
		}
	}
	for i, l := range m.figures {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.HasSuffix(l, ":") && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			name := strings.TrimSuffix(strings.TrimSpace(l), ":")
			n := name
			for j := 2; taken[n]; j++ {
				n = fmt.Sprintf("%s-%d", name, j)
			}
			taken[n] = true
			m.figures[i] = "  " + n + ":"
		}
	}
	switch {
	case key == nil:
		sk, _ := mapEntry(m.root, "scale")
		_, end := m.t.blockSpan(m.root, sk)
		m.t.insertAfter(end, append([]string{"", "figures:"}, m.figures...))
	case val.Kind == yaml.MappingNode && val.Style&yaml.FlowStyle == 0 && len(val.Content) > 0:
		_, end := m.t.blockSpan(m.root, key)
		m.t.insertAfter(end, m.figures)
	default:
		return errors.New("figures is not a block mapping: write it in block style (one figure per line) and migrate again")
	}
	return nil
}

// mapEntry returns the key and value nodes of a mapping's entry.
func mapEntry(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	_, v := mapEntry(n, key)
	return v
}

// text is a model's lines under edit. Edits address the original line
// numbers; they are applied from the bottom up when the text is written.
type text struct {
	lines []string // without line ends
	eol   string
	final bool // the input ended with a line break
	edits []lineEdit
}

type lineEdit struct {
	from, to int // original lines from..to (1-based, inclusive); to = from-1 inserts before from
	repl     []string
}

func newText(data []byte) *text {
	t := &text{eol: "\n"}
	if bytes.Contains(data, []byte("\r\n")) {
		t.eol = "\r\n"
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	t.final = strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	t.lines = strings.Split(s, "\n")
	return t
}

// replaceAt replaces n bytes at a line and column in place.
func (t *text) replaceAt(line, col, n int, s string) {
	l := t.lines[line-1]
	i := runeOffset(l, col)
	t.lines[line-1] = l[:i] + s + l[i+n:]
}

// runeOffset turns a 1-based column of characters into a byte offset.
func runeOffset(l string, col int) int {
	i := 0
	for c := 1; c < col && i < len(l); c++ {
		_, size := utf8.DecodeRuneInString(l[i:])
		i += size
	}
	return i
}

func (t *text) replaceLines(from, to int, repl []string) {
	t.edits = append(t.edits, lineEdit{from, to, repl})
}

func (t *text) insertAfter(line int, repl []string) {
	t.edits = append(t.edits, lineEdit{line + 1, line, repl})
}

func (t *text) bytes() []byte {
	lines := append([]string{}, t.lines...)
	// Apply from the bottom up so that earlier line numbers stay valid.
	sort.SliceStable(t.edits, func(i, j int) bool { return t.edits[i].from > t.edits[j].from })
	for _, e := range t.edits {
		tail := append([]string{}, lines[e.to:]...)
		lines = append(append(lines[:e.from-1], e.repl...), tail...)
	}
	out := strings.Join(lines, t.eol)
	if t.final {
		out += t.eol
	}
	return []byte(out)
}

// isComment reports whether a line holds only a comment.
func isComment(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "#") }

func isBlank(l string) bool { return strings.TrimSpace(l) == "" }

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// headStart returns the first line of the comment block directly above a
// key line (the key line itself when there is none), not going above
// floor.
func (t *text) headStart(keyLine, floor int) int {
	s := keyLine
	for s-1 > floor && isComment(t.lines[s-2]) {
		s--
	}
	return s
}

// blockSpan returns the lines of a top-level entry: from its key line
// through the last line before the next top-level entry (and its head
// comments), blank lines at the end left out.
func (t *text) blockSpan(root, key *yaml.Node) (int, int) {
	end := len(t.lines)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i] == key && i+2 < len(root.Content) {
			next := root.Content[i+2]
			end = t.headStart(next.Line, key.Line) - 1
		}
	}
	for end > key.Line && isBlank(t.lines[end-1]) {
		end--
	}
	return key.Line, end
}

// entrySpan returns the lines of the i-th entry (key index) of a block
// mapping: its head comments, its key line, and everything up to the next
// entry's head comments, ending at most at end.
func (t *text) entrySpan(mapping *yaml.Node, i, end int) (int, int) {
	k := mapping.Content[i]
	floor := 0
	if i >= 2 {
		floor = lastLine(mapping.Content[i-1])
	}
	start := t.headStart(k.Line, floor)
	stop := end
	if i+2 < len(mapping.Content) {
		nk := mapping.Content[i+2]
		stop = t.headStart(nk.Line, lastLine(mapping.Content[i+1])) - 1
	}
	return start, stop
}

// lastLine is the last line a node's own scalars start on.
func lastLine(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, lastLine(c))
	}
	return l
}
