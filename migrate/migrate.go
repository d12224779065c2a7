// Package migrate rewrites a model of an older format version as the
// current one. It works on the YAML text (only key templates are parsed,
// with the catalog's parser), so that every byte the new version did not
// change (comments, blank lines, quoting, folded text) is kept.
package migrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/yamltext"
	"gopkg.in/yaml.v3"
)

// Migrate rewrites a model of an older format version as the current one,
// changing only what the new version changed and keeping every other byte
// (comments, blank lines, quoting, folded text) as it is. From version 1:
// formatVersion becomes 2; scale.contracts becomes scale.businessUnit
// {name: contracts, count: N}; scale.paydays becomes scale.peaks (each
// peakFactor a factor); the other business-specific counts and shares of
// scale move to figures (scale-debtors, scale-tenants...) with their
// comments, since only the model's author knows which entity or attribute
// they describe: notes say how to re-express each; an instant in a key
// gets the text form (instant: {offset, precision}) its samples all use.
// In any version, a scenario load's tenant (the first models' word) is
// rewritten as focus, or dropped where it pins nothing. A model already
// at the current version otherwise comes back unchanged with a note.
func Migrate(name string, data []byte) (out []byte, notes []string, err error) {
	if bytes.Count(data, []byte("\r")) != bytes.Count(data, []byte("\r\n")) {
		data = yamltext.LFBreaks(data) // a lone CR is a line break to YAML: make it one to the lines too
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil || !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("migrate %s: more than one YAML document: a model is a single document", name)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("migrate %s: not a model (a mapping with formatVersion, name, tables...)", name)
	}
	root := doc.Content[0]
	fv := mapValue(root, "formatVersion")
	switch {
	case fv == nil:
		return nil, nil, fmt.Errorf("migrate %s: no formatVersion", name)
	case fv.Value == strconv.Itoa(catalog.FormatVersion):
		m := &migration{t: newText(data), root: root}
		m.tenants()
		out := m.t.bytes()
		if bytes.Equal(out, data) {
			out = data
		}
		return out, append([]string{fmt.Sprintf("%s is already at formatVersion %d", name, catalog.FormatVersion)}, m.notes...), nil
	case fv.Value != "1":
		return nil, nil, fmt.Errorf("migrate %s: formatVersion %s is not one this version knows (1 or %d)", name, fv.Value, catalog.FormatVersion)
	}
	t := newText(data)
	t.replaceAt(fv.Line, fv.Column, len(fv.Value), strconv.Itoa(catalog.FormatVersion))
	notes = append(notes, fmt.Sprintf("formatVersion 1 -> %d", catalog.FormatVersion))
	m := &migration{t: t, root: root}
	if err := m.scale(); err != nil {
		return nil, nil, fmt.Errorf("migrate %s: %w", name, err)
	}
	m.keyInstants()
	m.tenants()
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
		case k.Value == "contracts" && isNumber(v):
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
		case catalog.IsV1ScaleField(k.Value):
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

// keyInstants declares the text form of every instant that is part of a
// key (version 2 requires one), when the samples and parameter samples
// of the attribute all use the same offset and precision.
func (m *migration) keyInstants() {
	attrs := mapValue(m.root, "attributes")
	if attrs == nil || attrs.Kind != yaml.MappingNode {
		return
	}
	instants := map[string]*yaml.Node{}
	for i := 0; i+1 < len(attrs.Content); i += 2 {
		a := attrs.Content[i+1]
		if u := mapValue(a, "unit"); u != nil && u.Value == catalog.UnitInstant && mapValue(a, "instant") == nil {
			instants[attrs.Content[i].Value] = a
		}
	}
	inKey := map[string]bool{}
	each(mapValue(m.root, "entities"), func(_ string, e *yaml.Node) {
		each(mapValue(e, "key"), func(_ string, tmpl *yaml.Node) {
			if kt, err := catalog.ParseTemplate(tmpl.Value); err == nil {
				for _, ph := range kt.Placeholders() {
					inKey[ph] = true
				}
			}
		})
	})
	each(mapValue(m.root, "indexes"), func(_ string, x *yaml.Node) {
		for _, side := range []string{"partition", "sort"} {
			if l := mapValue(x, side); l != nil {
				for _, c := range l.Content {
					inKey[c.Value] = true
				}
			}
		}
	})
	samples := map[string][]string{}
	each(mapValue(m.root, "entities"), func(_ string, e *yaml.Node) {
		each(mapValue(e, "samples"), func(_ string, s *yaml.Node) {
			each(s, func(k string, v *yaml.Node) { samples[k] = append(samples[k], v.Value) })
		})
	})
	each(mapValue(m.root, "operations"), func(_ string, o *yaml.Node) {
		each(mapValue(o, "params"), func(pn string, p *yaml.Node) {
			a := pn
			if an := mapValue(p, "attribute"); an != nil {
				a = an.Value
			} else if mapValue(p, "type") != nil {
				return
			}
			if s := mapValue(p, "sample"); s != nil {
				samples[a] = append(samples[a], s.Value)
			}
		})
	})
	for _, name := range slices.Sorted(maps.Keys(instants)) {
		if !inKey[name] {
			continue
		}
		offset, precision, ok := commonForm(samples[name])
		if !ok {
			m.notes = append(m.notes, fmt.Sprintf("attributes.%s: an instant in a key needs one declared form (instant: {offset, precision}); its samples do not agree on one, so declare it by hand", name))
			continue
		}
		form := fmt.Sprintf("instant: {offset: %q, precision: %s}", offset, precision)
		if offset == "Z" {
			form = fmt.Sprintf("instant: {offset: Z, precision: %s}", precision)
		}
		a := instants[name]
		u, _ := mapEntry(a, "unit")
		if a.Style&yaml.FlowStyle != 0 {
			line, col := lastPos(a)
			l := m.t.lines[line-1]
			at := runeOffset(l, col)
			closing := strings.IndexByte(l[at:], '}')
			if closing < 0 || line != a.Line {
				continue
			}
			m.t.lines[line-1] = l[:at+closing] + ", " + form + l[at+closing:]
		} else {
			indent := strings.Repeat(" ", u.Column-1)
			m.t.insertAfter(u.Line, []string{indent + form})
		}
		m.notes = append(m.notes, fmt.Sprintf("attributes.%s: %s, the form its samples use (an instant in a key needs one declared form)", name, form))
	}
}

// commonForm returns the offset and precision every instant text shares.
func commonForm(values []string) (offset, precision string, ok bool) {
	for _, v := range values {
		if len(v) < 20 {
			return "", "", false
		}
		o := "Z"
		rest := strings.TrimSuffix(v, "Z")
		if rest == v {
			if len(v) < 25 {
				return "", "", false
			}
			o, rest = v[len(v)-6:], v[:len(v)-6]
		}
		p := "s"
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			p = map[int]string{3: "ms", 6: "us", 9: "ns"}[len(rest)-i-1]
			if p == "" {
				return "", "", false
			}
		}
		if offset == "" {
			offset, precision = o, p
		} else if o != offset || p != precision {
			return "", "", false
		}
	}
	return offset, precision, offset != ""
}

// each calls f for every entry of a mapping node.
func each(n *yaml.Node, f func(string, *yaml.Node)) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f(n.Content[i].Value, n.Content[i+1])
	}
}

// isNumber reports whether a node is a plain number.
func isNumber(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style == 0 && (n.Tag == "!!int" || n.Tag == "!!float") && !strings.ContainsAny(n.Value, " #")
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
// holds no comments, so it is encoded anew by yaml.v3.
func (m *migration) flowScale(key, val *yaml.Node) error {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	scalar := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	for i := 0; i+1 < len(val.Content); i += 2 {
		k, v := val.Content[i], val.Content[i+1]
		switch {
		case k.Value == "contracts" && isNumber(v):
			bu := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle,
				Content: []*yaml.Node{scalar("name"), scalar("contracts"), scalar("count"), copyNode(v)}}
			out.Content = append(out.Content, scalar("businessUnit"), bu)
			m.notes = append(m.notes, fmt.Sprintf("scale.contracts -> scale.businessUnit {name: contracts, count: %s}", v.Value))
		case k.Value == "paydays":
			c := copyNode(v)
			for j := 1; j < len(c.Content); j += 2 {
				if pk, _ := mapEntry(c.Content[j], "peakFactor"); pk != nil {
					pk.Value = "factor"
				}
			}
			nk := copyNode(k)
			nk.Value = "peaks"
			out.Content = append(out.Content, nk, c)
			m.notes = append(m.notes, "scale.paydays -> scale.peaks (peakFactor -> factor)")
		case catalog.IsV1ScaleField(k.Value):
			m.moveToFigures(k, v, nil, 0)
		default:
			out.Content = append(out.Content, copyNode(k), copyNode(v))
		}
	}
	text, err := flowText(out)
	if err != nil {
		return err
	}
	line := m.t.lines[key.Line-1]
	open := runeOffset(line, val.Column)
	end := flowEnd(line, open, val)
	if end < 0 {
		return errors.New("scale spans several lines in flow style: write it in block style first")
	}
	m.t.lines[key.Line-1] = line[:open] + text + line[end:]
	var check yaml.Node
	if yaml.Unmarshal([]byte(m.t.lines[key.Line-1]), &check) != nil {
		return errors.New("cannot rewrite scale's flow mapping: write it in block style first")
	}
	return m.insertFigures()
}

// flowText writes a node in flow style on one line.
func flowText(n *yaml.Node) (string, error) {
	c := copyNode(n)
	var strip func(*yaml.Node)
	strip = func(x *yaml.Node) {
		x.Style |= yaml.FlowStyle
		x.HeadComment, x.LineComment, x.FootComment = "", "", ""
		for _, k := range x.Content {
			strip(k)
		}
	}
	strip(c)
	b, err := yaml.Marshal(c)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if strings.Contains(s, "\n") {
		return "", errors.New("scale does not fit on one line in flow style: write it in block style first")
	}
	return s, nil
}

// lastPos is the position of the last scalar under n.
func lastPos(n *yaml.Node) (int, int) {
	if len(n.Content) == 0 {
		return n.Line, n.Column + len(n.Value)
	}
	return lastPos(n.Content[len(n.Content)-1])
}

// flowEnd returns the offset just past the flow mapping n that opens at
// offset open of a line, or -1 when it does not close on the line: the
// first closing brace after which the text parses as a mapping with n's
// keys.
func flowEnd(line string, open int, n *yaml.Node) int {
	for i := open; i < len(line); i++ {
		if line[i] != '}' {
			continue
		}
		var got yaml.Node
		if yaml.Unmarshal([]byte(line[open:i+1]), &got) != nil || len(got.Content) != 1 {
			continue
		}
		g := got.Content[0]
		if g.Kind != yaml.MappingNode || len(g.Content) != len(n.Content) {
			continue
		}
		same := true
		for k := 0; k < len(n.Content); k += 2 {
			same = same && g.Content[k].Value == n.Content[k].Value
		}
		if same {
			return i + 1
		}
	}
	return -1
}

// copyNode copies a node tree, so that a rename does not touch the
// document the positions come from.
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = copyNode(k)
	}
	return &c
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
	desc := catalog.V1Scale[k.Value]
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
		// The entries take the indentation of the section's own.
		indent := strings.Repeat(" ", val.Content[0].Column-1)
		lines := make([]string, len(m.figures))
		for i, l := range m.figures {
			lines[i] = indent + strings.TrimPrefix(l, "  ")
		}
		_, end := m.t.blockSpan(m.root, key)
		m.t.insertAfter(end, lines)
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
