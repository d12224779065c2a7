package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cardapio/cardapio/internal/yamltext"
	"gopkg.in/yaml.v3"
)

// Input limits: a model is a hand-written file, large ones of a few
// thousand operations, so anything far larger is a mistake or an attack.
// Values written in the file are bounded by its size; values that aliases
// add are bounded on their own, since a few lines of nested aliases
// expand to billions (an alias bomb) while real models use a few.
const (
	MaxInputBytes = 10 << 20  // 10 MiB
	maxNodes      = 2_000_000 // values written in the file (the reference model has about 2,600, one of 2,000 operations about 250,000)
	maxExpanded   = 50000     // values added by expanding aliases
	maxDepth      = 64
)

// tnode is one YAML value with its position, in document order. The
// catalog keeps the whole document as tnodes: positions for errors, order
// for marshalling the normalised document back.
type tnode struct {
	kind   byte // 'm' mapping, 'l' sequence, 's' scalar
	pos    Pos  // the value
	keyPos Pos  // the key that holds it, when in a mapping
	keys   []string
	vals   []*tnode
	items  []*tnode
	tag    string // scalars: !!str, !!int, !!float, !!bool, !!null (timestamps become !!str)
	text   string
}

func (t *tnode) get(key string) *tnode {
	if t == nil || t.kind != 'm' {
		return nil
	}
	for i, k := range t.keys {
		if k == key {
			return t.vals[i]
		}
	}
	return nil
}

// builder turns yaml.v3 nodes into tnodes, collecting errors.
type builder struct {
	file     string
	nodes    int        // values written in the file
	expanded int        // values added by aliases
	inAlias  int        // depth of alias expansion being built
	outer    *yaml.Node // the outermost alias being expanded
	errs     ErrorList
	paths    map[string]*tnode // JSON pointer -> node
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// parseTree reads one YAML document into a tnode tree.
func parseTree(file string, data []byte) (*tnode, map[string]*tnode, ErrorList) {
	at := func(line, col int, msg, hint string) ErrorList {
		return ErrorList{{Pos: Pos{file, line, col}, Msg: msg, Hint: hint}}
	}
	if len(data) > MaxInputBytes {
		return nil, nil, at(1, 1, fmt.Sprintf("file is larger than the %d MiB limit of a model", MaxInputBytes>>20), "")
	}
	if bytes.Count(data, []byte("\r")) != bytes.Count(data, []byte("\r\n")) {
		// A lone CR is a line break to YAML; as LF, every position
		// below (the search for a failing line included) counts it.
		data = yamltext.LFBreaks(data)
	}
	if !utf8.Valid(data) {
		line, col := invalidUTF8At(data)
		return nil, nil, at(line, col, "file is not valid UTF-8 text", "")
	}
	if i := strings.IndexByte(string(data), 0); i >= 0 {
		line, col := lineCol(data, i)
		return nil, nil, at(line, col, "file contains a NUL byte: not a text file", "")
	}
	if i, r := controlChar(data); i >= 0 {
		line, col := lineCol(data, i)
		return nil, nil, at(line, col, fmt.Sprintf("control character %U is not allowed in YAML", r), "remove it, or write it as an escape inside a double-quoted string")
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, at(1, 1, "empty model: expected a mapping with formatVersion, name, tables...", "")
		}
		return nil, nil, yamlError(file, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, nil, at(max(extra.Line, 1), max(extra.Column, 1), "more than one YAML document: a model is a single document", "remove the '---' separator")
	} else if !errors.Is(err, io.EOF) {
		return nil, nil, yamlError(file, data, err)
	}
	b := &builder{file: file, paths: map[string]*tnode{}}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return nil, nil, at(1, 1, "empty model: expected a mapping with formatVersion, name, tables...", "")
		}
		root = root.Content[0]
	}
	t := b.build(root, "", 0)
	if len(b.errs) > 0 {
		return nil, nil, b.errs
	}
	return t, b.paths, nil
}

func invalidUTF8At(data []byte) (int, int) {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return lineCol(data, i)
		}
		i += n
	}
	return 1, 1
}

// lineCol returns the line and column of a byte offset; columns count
// characters, as yaml.v3's do.
func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < off && i < len(data); i++ {
		switch {
		case data[i] == '\n':
			line, col = line+1, 1
		case utf8.RuneStart(data[i]):
			col++
		}
	}
	return line, col
}

// controlChar returns the offset of the first character YAML refuses
// (C0 and C1 controls other than tab, line breaks and NEL; U+FFFE, U+FFFF),
// or -1. yaml.v3 reports these without a line.
func controlChar(data []byte) (int, rune) {
	for i, r := range string(data) {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0xfffe || r == 0xffff:
			return i, r
		}
	}
	return -1, 0
}

// yamlError turns a yaml.v3 parse error into a positioned error. yaml.v3
// reports "yaml: line N: msg" where N is often the start of the enclosing
// block (a missing key deep in a table is reported at the top of the
// file), and some errors (unknown anchors) have no line at all. The line
// of the problem is found as the shortest prefix of whole lines that fails
// with the same error; the column is that of the alias named in the
// message, or of the first non-blank character of the line.
func yamlError(file string, data []byte, err error) ErrorList {
	msg := err.Error()
	line := 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
		}
		msg = msg[len(m[0]):]
	}
	lines := strings.Split(string(data), "\n")
	if p := failingLine(data, err.Error()); p > 0 {
		line = p
	}
	line = min(max(line, 1), len(lines))
	l := strings.TrimSuffix(lines[line-1], "\r")
	col := utf8.RuneCountInString(l) - utf8.RuneCountInString(strings.TrimLeft(l, " ")) + 1
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		if i := strings.Index(l, "*"+m[1]); i >= 0 {
			col = utf8.RuneCountInString(l[:i]) + 1
		}
	}
	hint := ""
	if strings.Contains(msg, "cannot start any token") && strings.Contains(l, "\t") {
		hint = "YAML indentation must use spaces, not tabs"
	}
	if strings.Contains(msg, "mapping values are not allowed") {
		hint = "check the indentation of this line and the one above, or quote a value containing ': '"
	}
	if strings.Contains(msg, "did not find expected key") {
		hint = "check the indentation of this line: it does not line up with the keys above it"
	}
	if strings.Contains(msg, "could not find expected ':'") && len(l) > 1024 {
		hint = "a YAML key is at most 1024 characters long"
	}
	q := runawayQuote(lines, line)
	if q.line == line {
		col, hint = q.col, "is its closing quote missing?"
	}
	if q.line > 0 && q.line < line {
		// The parser fails where the string finally ends, often far below
		// the missing quote: point at the quote.
		return ErrorList{{Pos: Pos{file, q.line, q.col},
			Msg:  fmt.Sprintf("invalid YAML: %s at line %d, after a quoted string that starts here and runs on for %d lines", msg, line, q.span),
			Hint: "is its closing quote missing?"}}
	}
	return ErrorList{{Pos: Pos{file, line, col}, Msg: "invalid YAML: " + msg, Hint: hint}}
}

// quoteRun is a quoted scalar that spans lines: where it opens and over
// how many lines it runs.
type quoteRun struct{ line, col, span int }

// runawayQuote finds the last quoted scalar opened before line fail that
// is still open there or closed at most a line before it, and spans more
// than one line: the usual cause of an error far below a missing quote.
// It reads the text as a light YAML scanner would (comments, block
// scalars, quotes that start a value), not exactly.
func runawayQuote(lines []string, fail int) quoteRun {
	var found, open quoteRun
	var quote byte
	blockIndent := -1 // inside a block scalar: the indentation of its key
	for i := 0; i < fail && i < len(lines); i++ {
		l := strings.TrimSuffix(lines[i], "\r")
		indent := len(l) - len(strings.TrimLeft(l, " "))
		if blockIndent >= 0 {
			if strings.TrimSpace(l) == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		for j := 0; j < len(l); j++ {
			c := l[j]
			if quote != 0 {
				switch {
				case quote == '"' && c == '\\':
					j++
				case c == quote && quote == '\'' && j+1 < len(l) && l[j+1] == '\'':
					j++
				case c == quote:
					quote = 0
					if i+1 > open.line {
						open.span = i + 1 - open.line + 1
						if i+1 >= fail-1 {
							found = open
						}
					}
				}
				continue
			}
			prev := strings.TrimRight(l[:j], " \t")
			valueStart := prev == "" || strings.HasSuffix(prev, "- ") || prev == "-" ||
				strings.ContainsAny(prev[max(len(prev)-1, 0):], ":[{,?")
			switch {
			case c == '#' && (j == 0 || l[j-1] == ' ' || l[j-1] == '\t'):
				j = len(l)
			case (c == '\'' || c == '"') && valueStart:
				quote, open = c, quoteRun{line: i + 1, col: utf8.RuneCountInString(l[:j]) + 1}
			case (c == '|' || c == '>') && valueStart && prev != "":
				blockIndent = indent
				j = len(l)
			}
		}
	}
	if quote != 0 && open.line <= fail {
		open.span = fail - open.line + 1
		return open
	}
	return found
}

var unknownAnchor = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// maxRefine bounds the text searched for the line of a YAML error: each
// probe parses a prefix again; the reference model is under 100 KB.
const maxRefine = 512 << 10

// failingLine returns the smallest number of whole lines of data whose
// parse fails with exactly the message want, or 0. A prefix that stops
// before the problem either parses or fails differently (a cut flow list),
// and every prefix that includes it fails the same way, so a binary search
// finds the line.
func failingLine(data []byte, want string) int {
	if len(data) > maxRefine {
		return 0
	}
	var ends []int // ends[k-1] is the end of line k
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	fails := func(k int) bool {
		err := yamltext.DecodeAll(data[:ends[k-1]])
		return err != nil && err.Error() == want
	}
	lo, hi := 1, len(ends)
	if !fails(hi) {
		return 0
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

func (b *builder) errorf(n *yaml.Node, format string, args ...any) {
	b.errs = append(b.errs, &Error{Pos: b.pos(n), Msg: fmt.Sprintf(format, args...)})
}

func (b *builder) pos(n *yaml.Node) Pos {
	return Pos{b.file, max(n.Line, 1), max(n.Column, 1)}
}

func (b *builder) build(n *yaml.Node, ptr string, depth int) *tnode {
	if b.inAlias > 0 {
		b.expanded++
		if b.expanded > maxExpanded {
			if b.expanded == maxExpanded+1 {
				b.errorf(b.outer, "aliases expand to more than %d values (an alias bomb?): too large for a model", maxExpanded)
			}
			return nil
		}
	} else {
		b.nodes++
		if b.nodes > maxNodes {
			if b.nodes == maxNodes+1 {
				b.errorf(n, "document has more than %d values: too large for a model", maxNodes)
			}
			return nil
		}
	}
	if depth > maxDepth {
		b.errorf(n, "nesting deeper than %d levels", maxDepth)
		return nil
	}
	pos := b.pos(n)
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			b.errorf(n, "unknown alias")
			return nil
		}
		if b.inAlias == 0 {
			b.outer = n
		}
		b.inAlias++
		t := b.build(n.Alias, ptr, depth+1)
		b.inAlias--
		if t != nil {
			c := *t
			c.pos = pos
			t = &c
			b.paths[ptr] = t
		}
		return t
	}
	t := &tnode{pos: pos}
	b.paths[ptr] = t
	switch n.Kind {
	case yaml.MappingNode:
		t.kind = 'm'
		seen := map[string]Pos{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				b.errorf(k, "merge keys (<<) are not supported in a model")
				continue
			}
			if k.Kind != yaml.ScalarNode {
				b.errorf(k, "a mapping key must be a plain name")
				continue
			}
			name := k.Value
			if prev, dup := seen[name]; dup {
				b.errs = append(b.errs, &Error{Pos: b.pos(k), Path: displayPath(b.paths, ptr), Msg: fmt.Sprintf("duplicate key %q (first at line %d)", name, prev.Line)})
				continue
			}
			seen[name] = b.pos(k)
			child := b.build(v, ptr+"/"+escapePtr(name), depth+1)
			if child == nil {
				continue
			}
			child.keyPos = b.pos(k)
			t.keys = append(t.keys, name)
			t.vals = append(t.vals, child)
		}
	case yaml.SequenceNode:
		t.kind = 'l'
		for i, c := range n.Content {
			child := b.build(c, ptr+"/"+strconv.Itoa(i), depth+1)
			if child == nil {
				child = &tnode{kind: 's', tag: "!!null", pos: b.pos(c)}
			}
			child.keyPos = child.pos
			t.items = append(t.items, child)
		}
	case yaml.ScalarNode:
		t.kind = 's'
		t.text = n.Value
		switch n.ShortTag() {
		case "!!int", "!!float":
			if _, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err != nil || strings.ContainsAny(n.Value, "xXoO_") || strings.EqualFold(n.Value, ".nan") || strings.Contains(strings.ToLower(n.Value), "inf") {
				// hex, octal, infinities and NaN are not DynamoDB numbers: keep the text.
				t.tag = "!!str"
			} else {
				t.tag = n.ShortTag()
			}
		case "!!bool", "!!null":
			t.tag = n.ShortTag()
		case "!!binary":
			t.tag = "!!str"
		default:
			t.tag = "!!str"
		}
	default:
		b.errorf(n, "unsupported YAML node")
		return nil
	}
	return t
}

func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// displayPath turns a JSON pointer into the dotted form used in messages:
// /indexes/GSI1/partition/2 -> indexes.GSI1.partition[2]. A token is an
// index when its parent in paths is a list (a mapping may have a key "0"
// or "-1"); names holding invisible or control characters are quoted.
func displayPath(paths map[string]*tnode, ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	parent := ""
	for i, raw := range strings.Split(ptr[1:], "/") {
		tok := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		isList := false
		if n, ok := paths[parent]; ok {
			isList = n.kind == 'l'
		} else {
			isList = tok != "" && strings.Trim(tok, "0123456789") == ""
		}
		parent += "/" + raw
		switch {
		case isList && i > 0:
			b.WriteString("[" + tok + "]")
			continue
		case i > 0:
			b.WriteByte('.')
		}
		if strings.IndexFunc(tok, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0 {
			tok = strconv.Quote(tok)
		}
		b.WriteString(tok)
	}
	return b.String()
}

// toAny converts a tree into the plain values JSON Schema validation and
// JSON decoding expect.
func (t *tnode) toAny() any {
	if t == nil {
		return nil
	}
	switch t.kind {
	case 'm':
		m := make(map[string]any, len(t.keys))
		for i, k := range t.keys {
			m[k] = t.vals[i].toAny()
		}
		return m
	case 'l':
		l := make([]any, len(t.items))
		for i, c := range t.items {
			l[i] = c.toAny()
		}
		return l
	}
	switch t.tag {
	case "!!int", "!!float":
		return json.Number(strings.TrimPrefix(t.text, "+"))
	case "!!bool":
		return strings.EqualFold(t.text, "true")
	case "!!null":
		return nil
	}
	return t.text
}

// toYAML converts a tree back into a yaml.v3 node, keeping key order and
// scalar types.
func (t *tnode) toYAML() *yaml.Node {
	switch t.kind {
	case 'm':
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i, k := range t.keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, t.vals[i].toYAML())
		}
		return n
	case 'l':
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, c := range t.items {
			n.Content = append(n.Content, c.toYAML())
		}
		return n
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: t.tag, Value: t.text}
	if t.tag == "!!str" {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}
