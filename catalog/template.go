package catalog

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// KeyTemplate is a parsed template such as ORDER#{orderId} or
// NOTE#{noteAt}#{seq:03}: literal text and typed placeholders.
type KeyTemplate struct {
	Text  string
	Parts []Part
}

// Part is a literal (Attr == "") or a placeholder. Width > 0 zero-pads a
// number to that many digits. Type is the placeholder's type once the
// template is resolved against the attribute dictionary (Invalid before).
type Part struct {
	Literal string
	Attr    string
	Width   int
	Type    attr.Type
}

// ParseTemplate parses a template. Placeholders are {name} or {name:0N};
// a literal brace is not allowed (keys never need one).
func ParseTemplate(text string) (*KeyTemplate, error) {
	t := &KeyTemplate{Text: text}
	rest := text
	for rest != "" {
		open := strings.IndexAny(rest, "{}")
		if open < 0 {
			t.Parts = append(t.Parts, Part{Literal: rest})
			break
		}
		if rest[open] == '}' {
			return nil, fmt.Errorf("unmatched '}' at offset %d", len(text)-len(rest)+open)
		}
		if open > 0 {
			t.Parts = append(t.Parts, Part{Literal: rest[:open]})
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("unclosed '{' at offset %d", len(text)-len(rest)+open)
		}
		inner := rest[open+1 : open+end]
		name, spec, hasSpec := strings.Cut(inner, ":")
		if !validIdent(name) {
			return nil, fmt.Errorf("placeholder {%s}: %q is not an attribute name", inner, name)
		}
		p := Part{Attr: name}
		if hasSpec {
			w, err := strconv.Atoi(spec)
			if err != nil || len(spec) < 2 || spec[0] != '0' || w < 1 || w > 38 {
				return nil, fmt.Errorf("placeholder {%s}: format %q is not a zero-padded width such as 03", inner, spec)
			}
			p.Width = w
		}
		t.Parts = append(t.Parts, p)
		rest = rest[open+end+1:]
	}
	return t, nil
}

// MustTemplate parses a template known to be valid (tests, generated code).
func MustTemplate(text string) *KeyTemplate {
	t, err := ParseTemplate(text)
	if err != nil {
		panic(err)
	}
	return t
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// Placeholders returns the placeholder names in order (repeats kept once).
func (t *KeyTemplate) Placeholders() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.Parts {
		if p.Attr != "" && !seen[p.Attr] {
			seen[p.Attr] = true
			out = append(out, p.Attr)
		}
	}
	return out
}

// IsConstant reports whether the template has no placeholder.
func (t *KeyTemplate) IsConstant() bool { return len(t.Placeholders()) == 0 }

// Prefix returns the literal text before the first placeholder.
func (t *KeyTemplate) Prefix() string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Attr != "" {
			break
		}
		b.WriteString(p.Literal)
	}
	return b.String()
}

// Render fills the placeholders. Strings are inserted as they are (they
// must not contain sep, when sep is set with RenderSep); numbers must be
// integers when a width is given and are zero-padded to it.
func (t *KeyTemplate) Render(values map[string]attr.Value) (string, error) {
	return t.RenderSep(values, "")
}

// RenderSep is Render that also rejects string values containing sep,
// which would make the key ambiguous.
func (t *KeyTemplate) RenderSep(values map[string]attr.Value, sep string) (string, error) {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Attr == "" {
			b.WriteString(p.Literal)
			continue
		}
		v, ok := values[p.Attr]
		if !ok {
			return "", fmt.Errorf("template %q: no value for {%s}", t.Text, p.Attr)
		}
		s, err := renderPart(p, v)
		if err != nil {
			return "", fmt.Errorf("template %q: {%s}: %w", t.Text, p.Attr, err)
		}
		if sep != "" && v.Type == attr.S && strings.Contains(s, sep) {
			return "", fmt.Errorf("template %q: {%s}: value %q contains the key separator %q", t.Text, p.Attr, s, sep)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// RenderItem renders from an item's attributes.
func (t *KeyTemplate) RenderItem(it attr.Item) (string, error) {
	m := make(map[string]attr.Value, len(it))
	for _, f := range it {
		m[f.Name] = f.Value
	}
	return t.Render(m)
}

func renderPart(p Part, v attr.Value) (string, error) {
	switch v.Type {
	case attr.S:
		if p.Width > 0 {
			return "", fmt.Errorf("a zero-padded placeholder needs a number, got a string")
		}
		return v.Str, nil
	case attr.N:
		if p.Width == 0 {
			return v.Str, nil
		}
		n, err := strconv.ParseUint(v.Str, 10, 64)
		if err != nil {
			return "", fmt.Errorf("%q is not a non-negative integer", v.Str)
		}
		s := strconv.FormatUint(n, 10)
		if len(s) > p.Width {
			return "", fmt.Errorf("%s does not fit in %d digits", s, p.Width)
		}
		return strings.Repeat("0", p.Width-len(s)) + s, nil
	case attr.B:
		return "", fmt.Errorf("binary values cannot be placed in a key template")
	}
	return "", fmt.Errorf("a %s value cannot be placed in a key template", v.Type)
}

// Match splits a rendered key back into placeholder texts, when the key
// has the template's shape. Placeholders are matched up to the next
// literal, so adjacent placeholders need a literal between them.
func (t *KeyTemplate) Match(key string) (map[string]string, bool) {
	out := map[string]string{}
	rest := key
	for i, p := range t.Parts {
		if p.Attr == "" {
			if !strings.HasPrefix(rest, p.Literal) {
				return nil, false
			}
			rest = rest[len(p.Literal):]
			continue
		}
		var v string
		if i+1 < len(t.Parts) && t.Parts[i+1].Attr == "" {
			j := strings.Index(rest, t.Parts[i+1].Literal)
			if j < 0 {
				return nil, false
			}
			v, rest = rest[:j], rest[j:]
		} else if i+1 == len(t.Parts) {
			v, rest = rest, ""
		} else {
			return nil, false
		}
		if p.Width > 0 && len(v) != p.Width {
			return nil, false
		}
		if prev, ok := out[p.Attr]; ok && prev != v {
			return nil, false
		}
		out[p.Attr] = v
	}
	return out, rest == ""
}
