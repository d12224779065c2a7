package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Input limits: a model is a hand-written file of a few hundred lines, so
// anything far larger is a mistake or an attack (alias bombs).
const (
	MaxInputBytes = 10 << 20 // 10 MiB
	maxNodes      = 50000    // values after alias expansion (the reference model has about 2,600)
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
	file  string
	nodes int
	errs  ErrorList
	paths map[string]*tnode // JSON pointer -> node
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
	if !utf8.Valid(data) {
		line, col := invalidUTF8At(data)
		return nil, nil, at(line, col, "file is not valid UTF-8 text", "")
	}
	if i := strings.IndexByte(string(data), 0); i >= 0 {
		line, col := lineCol(data, i)
		return nil, nil, at(line, col, "file contains a NUL byte: not a text file", "")
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

func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// yamlError turns a yaml.v3 parse error into a positioned error. yaml.v3
// reports "yaml: line N: msg"; it never gives a column, so the column is
// the first non-blank character of that line.
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
	if line < 1 {
		line = 1
	}
	if line > len(lines) {
		line = len(lines)
	}
	col := 1
	if line >= 1 && line <= len(lines) {
		l := lines[line-1]
		col = len(l) - len(strings.TrimLeft(l, " ")) + 1
	}
	hint := ""
	if strings.Contains(msg, "cannot start any token") && strings.Contains(string(data), "\t") {
		hint = "YAML indentation must use spaces, not tabs"
	}
	if strings.Contains(msg, "mapping values are not allowed") {
		hint = "check the indentation of this line and the one above, or quote a value containing ': '"
	}
	return ErrorList{{Pos: Pos{file, line, col}, Msg: "invalid YAML: " + msg, Hint: hint}}
}

func (b *builder) errorf(n *yaml.Node, format string, args ...any) {
	b.errs = append(b.errs, &Error{Pos: b.pos(n), Msg: fmt.Sprintf(format, args...)})
}

func (b *builder) pos(n *yaml.Node) Pos {
	return Pos{b.file, max(n.Line, 1), max(n.Column, 1)}
}

func (b *builder) build(n *yaml.Node, ptr string, depth int) *tnode {
	b.nodes++
	if b.nodes > maxNodes {
		if b.nodes == maxNodes+1 {
			b.errorf(n, "document expands to more than %d values (aliases?): too large for a model", maxNodes)
		}
		return nil
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
		t := b.build(n.Alias, ptr, depth+1)
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
				b.errs = append(b.errs, &Error{Pos: b.pos(k), Path: displayPath(ptr), Msg: fmt.Sprintf("duplicate key %q (first at line %d)", name, prev.Line)})
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
// /indexes/GSI1/partition/2 -> indexes.GSI1.partition[2].
func displayPath(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	for i, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil && i > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
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
