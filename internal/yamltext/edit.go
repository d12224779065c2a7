package yamltext

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Edits of a YAML document's text in place: a scalar replaced, an entry
// added or removed, every other byte (comments, blank lines, quoting,
// flow or block style) kept. They address the document by a path of
// mapping keys and list indexes, and refuse what they cannot do without
// rewriting more than the entry (a multi-line scalar, an entry of a
// flow mapping to remove).

// Set makes the entry at path hold value, written as given (a plain
// scalar or a flow collection): the scalar there is replaced, or, when
// the last key is absent from its mapping, the entry is added to it.
func Set(data []byte, path []string, value string) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("an empty path")
	}
	root, lines, err := parse(data)
	if err != nil {
		return nil, err
	}
	parent, err := walk(root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if parent.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a mapping", strings.Join(path[:len(path)-1], "."))
	}
	key := path[len(path)-1]
	for i := 0; i+1 < len(parent.Content); i += 2 {
		if parent.Content[i].Value != key {
			continue
		}
		v := parent.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s is not a scalar", strings.Join(path, "."))
		}
		from, to, err := span(lines[v.Line-1], v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(path, "."), err)
		}
		l := lines[v.Line-1]
		lines[v.Line-1] = l[:from] + value + l[to:]
		return join(data, lines), nil
	}
	return insert(data, lines, parent, key, value, strings.Join(path, "."))
}

// Delete removes the entry at path from its block mapping: its key line
// through the last line of its value. An absent entry is no change.
func Delete(data []byte, path []string) ([]byte, error) {
	if len(path) == 0 {
		return nil, fmt.Errorf("an empty path")
	}
	root, lines, err := parse(data)
	if err != nil {
		return nil, err
	}
	parent, err := walk(root, path[:len(path)-1])
	if err != nil {
		return nil, err
	}
	if parent.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s is not a mapping", strings.Join(path[:len(path)-1], "."))
	}
	for i := 0; i+1 < len(parent.Content); i += 2 {
		k, v := parent.Content[i], parent.Content[i+1]
		if k.Value != path[len(path)-1] {
			continue
		}
		if parent.Style&yaml.FlowStyle != 0 {
			return deleteFlow(data, lines, k, v, strings.Join(path, "."))
		}
		end := last(v)
		if v.Kind == yaml.ScalarNode && (v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(v.Value, "\n")) {
			return nil, fmt.Errorf("%s: a multi-line value cannot be removed in place", strings.Join(path, "."))
		}
		// A block entry's lines start at its key and hold nothing else:
		// the next key starts on a later line.
		if i+2 < len(parent.Content) && parent.Content[i+2].Line <= end {
			return nil, fmt.Errorf("%s shares a line with the next entry", strings.Join(path, "."))
		}
		lines = append(lines[:k.Line-1], lines[end:]...)
		return join(data, lines), nil
	}
	return data, nil
}

// deleteFlow removes an entry of a one-line flow mapping with the comma
// that joins it to its neighbour.
func deleteFlow(data []byte, lines []string, k, v *yaml.Node, where string) ([]byte, error) {
	if k.Line != v.Line {
		return nil, fmt.Errorf("%s: an entry over several lines cannot be removed in place", where)
	}
	l := lines[k.Line-1]
	from := offset(l, k.Column)
	var to int
	if v.Kind == yaml.ScalarNode {
		_, end, err := span(l, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		to = end
	} else {
		end, ok := closing(l, offset(l, v.Column))
		if !ok {
			return nil, fmt.Errorf("%s: the value's end is not on its line", where)
		}
		to = end
	}
	// The comma after the entry, or else the one before it.
	rest := strings.TrimLeft(l[to:], " ")
	if strings.HasPrefix(rest, ",") {
		to = len(l) - len(rest) + 1
		to += len(l[to:]) - len(strings.TrimLeft(l[to:], " "))
	} else {
		before := strings.TrimRight(l[:from], " ")
		if !strings.HasSuffix(before, ",") {
			return nil, fmt.Errorf("%s: the only entry of a flow mapping cannot be removed", where)
		}
		from = len(before) - 1
	}
	lines[k.Line-1] = l[:from] + l[to:]
	return join(data, lines), nil
}

// closing returns the offset just past the flow collection opening at i,
// skipping quoted text.
func closing(l string, i int) (int, bool) {
	depth := 0
	for ; i < len(l); i++ {
		switch c := l[i]; c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"', '\'':
			j := strings.IndexByte(l[i+1:], c)
			if j < 0 {
				return 0, false
			}
			i += j + 1
		}
	}
	return 0, false
}

func parse(data []byte) (*yaml.Node, []string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil, fmt.Errorf("an empty document")
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return doc.Content[0], strings.Split(s, "\n"), nil
}

// join writes lines back with the text's own line ends.
func join(data []byte, lines []string) []byte {
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	return []byte(strings.Join(lines, eol))
}

// walk follows a path of mapping keys and list indexes.
func walk(n *yaml.Node, path []string) (*yaml.Node, error) {
	for i, p := range path {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == p {
					next = n.Content[j+1]
				}
			}
		case yaml.SequenceNode:
			if k, err := strconv.Atoi(p); err == nil && k >= 0 && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		if next == nil {
			return nil, fmt.Errorf("no %s in the document", strings.Join(path[:i+1], "."))
		}
		n = next
	}
	return n, nil
}

// span returns the byte offsets of a one-line scalar on its line.
func span(line string, v *yaml.Node) (int, int, error) {
	from := offset(line, v.Column)
	switch {
	case v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(v.Value, "\n"):
		return 0, 0, fmt.Errorf("a multi-line value cannot be replaced in place")
	case v.Style&yaml.DoubleQuotedStyle != 0:
		for i := from + 1; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				return from, i + 1, nil
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		for i := from + 1; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				return from, i + 1, nil
			}
		}
	default:
		if strings.HasPrefix(line[from:], v.Value) {
			return from, from + len(v.Value), nil
		}
	}
	return 0, 0, fmt.Errorf("the value is not where its node says")
}

// offset turns a 1-based column of characters into a byte offset.
func offset(l string, col int) int {
	i := 0
	for c := 1; c < col && i < len(l); c++ {
		_, size := utf8.DecodeRuneInString(l[i:])
		i += size
	}
	return i
}

// last is the last line a node's own scalars start on.
func last(n *yaml.Node) int {
	l := n.Line
	for _, c := range n.Content {
		l = max(l, last(c))
	}
	return l
}

// insert adds key: value to a mapping: in a flow mapping after its first
// entry, in a block mapping as a line after an entry whose value
// ends on its key's line, at that key's indent.
func insert(data []byte, lines []string, m *yaml.Node, key, value, where string) ([]byte, error) {
	if m.Style&yaml.FlowStyle != 0 {
		// After the first entry, whose value is a scalar on its line:
		// the entries after it may be collections or span lines.
		if len(m.Content) == 0 || m.Content[1].Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: cannot add to a flow mapping that does not start with a scalar entry", where)
		}
		first := m.Content[1]
		l := lines[first.Line-1]
		_, to, err := span(l, first)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if len(m.Content) == 2 {
			// The only entry: before the closing brace.
			i := strings.IndexByte(l[to:], '}')
			if i < 0 {
				return nil, fmt.Errorf("%s: the flow mapping's end is not on its line", where)
			}
			to += i
		}
		lines[first.Line-1] = l[:to] + ", " + key + ": " + value + l[to:]
		return join(data, lines), nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Line != k.Line || last(v) != k.Line || (v.Kind == yaml.ScalarNode && (v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(v.Value, "\n"))) {
			continue
		}
		line := strings.Repeat(" ", k.Column-1) + key + ": " + value
		lines = append(lines[:k.Line], append([]string{line}, lines[k.Line:]...)...)
		return join(data, lines), nil
	}
	return nil, fmt.Errorf("%s: no one-line entry of its mapping to add it after", where)
}
