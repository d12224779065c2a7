package migrate

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// tenants rewrites each scenario load's tenant, the first models' name
// for the pin that focus now says generically: tenant: any (the default)
// and a tenant beside a focus are dropped; tenant: largest becomes
// focus: {A: largest} when one attribute A declares its largest values
// (skew.top). Anything else is left for the author, with a note.
func (m *migration) tenants() {
	var skewed []string
	if attrs := mapValue(m.root, "attributes"); attrs != nil && attrs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(attrs.Content); i += 2 {
			if sk := mapValue(attrs.Content[i+1], "skew"); sk != nil && mapValue(sk, "top") != nil {
				skewed = append(skewed, attrs.Content[i].Value)
			}
		}
	}
	type edit struct {
		line, col, n int
		s            string
	}
	var edits []edit
	scenarios := mapValue(m.root, "scenarios")
	if scenarios == nil || scenarios.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(scenarios.Content); i += 2 {
		name := scenarios.Content[i].Value
		load := mapValue(scenarios.Content[i+1], "load")
		if load == nil || load.Kind != yaml.SequenceNode {
			continue
		}
		for j, item := range load.Content {
			k, v := mapEntry(item, "tenant")
			if k == nil {
				continue
			}
			where := fmt.Sprintf("scenarios.%s.load[%d].tenant", name, j)
			n, ok := m.pairWidth(k, v)
			if !ok || (v.Value != "any" && v.Value != "largest") {
				m.notes = append(m.notes, where+": left as it is (write it as focus by hand)")
				continue
			}
			replace := ""
			switch {
			case mapValue(item, "focus") != nil || v.Value == "any":
				m.notes = append(m.notes, where+": dropped (focus says it, or nothing is pinned)")
			case v.Value == "largest" && len(skewed) == 1:
				replace = "focus: {" + skewed[0] + ": largest}"
				m.notes = append(m.notes, where+": focus: {"+skewed[0]+": largest}")
			default:
				m.notes = append(m.notes, where+": left as it is: write focus: {ATTRIBUTE: largest} with the attribute whose largest value takes the load")
				continue
			}
			if replace != "" {
				edits = append(edits, edit{k.Line, k.Column, n, replace})
				continue
			}
			line, col, n, ok := m.dropPair(item, k, n)
			if !ok {
				m.notes[len(m.notes)-1] = where + ": left as it is (drop it by hand)"
				continue
			}
			edits = append(edits, edit{line, col, n, ""})
		}
	}
	// Right to left, so that the columns of earlier edits on a line hold.
	sort.Slice(edits, func(a, b int) bool {
		if edits[a].line != edits[b].line {
			return edits[a].line < edits[b].line
		}
		return edits[a].col > edits[b].col
	})
	for _, e := range edits {
		m.t.replaceAt(e.line, e.col, e.n, e.s)
		if e.s == "" && isBlank(m.t.lines[e.line-1]) {
			m.t.replaceLines(e.line, e.line, nil)
		}
	}
}

// pairWidth returns how many characters a key and its value take on the
// key's line, when the value is a scalar there.
func (m *migration) pairWidth(k, v *yaml.Node) (int, bool) {
	if v.Kind != yaml.ScalarNode || v.Line != k.Line || strings.ContainsAny(v.Value, "\\'\"\n") {
		return 0, false
	}
	w := len([]rune(v.Value))
	if v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		w += 2
	}
	return v.Column + w - k.Column, true
}

// dropPair returns the text a pair takes together with its separator: in
// a flow mapping the comma before it (after it when it is the first); in
// a block mapping the line, when the pair is all of it.
func (m *migration) dropPair(item, k *yaml.Node, n int) (line, col, width int, ok bool) {
	l := []rune(m.t.lines[k.Line-1])
	start, end := k.Column-1, k.Column-1+n
	if item.Style&yaml.FlowStyle == 0 {
		if strings.TrimSpace(string(l[:start])) != "" || strings.TrimSpace(string(l[end:])) != "" {
			return 0, 0, 0, false
		}
		return k.Line, 1, len(l), true
	}
	s := start
	for s > 0 && l[s-1] == ' ' {
		s--
	}
	if s > 0 && l[s-1] == ',' {
		return k.Line, s, end - s + 1, true
	}
	e := end
	for e < len(l) && l[e] == ' ' {
		e++
	}
	if e < len(l) && l[e] == ',' {
		e++
		for e < len(l) && l[e] == ' ' {
			e++
		}
		return k.Line, k.Column, e - start, true
	}
	return 0, 0, 0, false
}
