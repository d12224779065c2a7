package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"

	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/schema"
)

// Load reads and resolves the model at path. A bad model returns an
// ErrorList (positions use the path as given); a file that cannot be read
// returns a plain error.
func Load(path string) (*Model, error) { return LoadWith(path, Options{}) }

// Parse resolves a model from its YAML text; name is used in positions.
// Errors of every stage are reported at once when possible: YAML syntax
// errors stop everything, schema errors stop the semantic checks (which
// assume a well-formed document), semantic errors are all collected.
func Parse(name string, data []byte) (*Model, error) {
	return ParseWith(name, data, Options{})
}

// LoadWith is Load with options.
func LoadWith(path string, opts Options) (*Model, error) {
	f, err := files.Open(path)
	if err != nil {
		return nil, readError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return nil, readError(path, err)
	}
	return ParseWith(filepath.ToSlash(path), data, opts)
}

// readError says which model could not be read and why, without the
// operation's name that os adds ("open", "read").
func readError(path string, err error) error {
	return fmt.Errorf("read model %s: %w", path, files.Reason(err))
}

// ParseWith is Parse with options.
func ParseWith(name string, data []byte, opts Options) (*Model, error) {
	tree, paths, errs := parseTree(name, data)
	if errs != nil {
		return nil, finish(errs, data)
	}
	doc := tree.toAny()
	if errs := validateSchema(name, doc, paths); errs != nil {
		truncated(errs, data)
		return nil, finish(errs, data)
	}
	var raw rawModel
	if errs := decodeRaw(name, doc, paths, &raw); errs != nil {
		return nil, finish(errs, data)
	}
	r := newResolver(name, paths, &raw)
	m := r.resolve()
	if len(r.errs) == 0 {
		r.checkLimits(m, opts)
		r.checkImages(m)
		r.checkConsistency(m)
	}
	if len(r.errs) > 0 {
		return nil, finish(r.errs, data)
	}
	m.doc = tree
	review(r, m, opts)
	sort.SliceStable(m.Warnings, func(i, j int) bool {
		a, b := m.Warnings[i].Pos, m.Warnings[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return m.Warnings[i].Code < m.Warnings[j].Code
	})
	return m, nil
}

// truncated adds a hint to the top-level "missing required field" errors
// of a file that stops in the middle of a line: a copy cut short loses
// its last sections, and the missing fields are the symptom, not the
// cause.
func truncated(errs ErrorList, data []byte) {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return
	}
	line, _ := lineCol(data, len(data))
	for _, e := range errs {
		if e.Path == "" && e.Hint == "" && strings.HasPrefix(e.Msg, "missing required field") {
			e.Hint = fmt.Sprintf("the file ends in the middle of line %d: is it cut short?", line)
		}
	}
}

func finish(errs ErrorList, data []byte) ErrorList {
	// yaml.v3 places an empty value after its key, which after the last
	// line break of a file is a line that does not exist: point at the
	// end of the last line instead.
	last, lastLen := 1, 0
	for i := 0; i < len(data); i++ {
		switch {
		case data[i] == '\n', data[i] == '\r' && (i+1 == len(data) || data[i+1] != '\n'):
			last, lastLen = last+1, 0
		case utf8.RuneStart(data[i]) && data[i] != '\r':
			lastLen++
		}
	}
	for _, e := range errs {
		if e.Pos.Line > last {
			e.Pos.Line, e.Pos.Col = last, lastLen+1
		}
	}
	errs.sort()
	return errs.dedup()
}

// Marshal returns the normalised document as YAML: the same model, with
// comments, anchors and formatting dropped. Parsing the result gives an
// equal model.
func (m *Model) Marshal() ([]byte, error) {
	if m.doc == nil {
		return nil, errors.New("marshal model: no document")
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m.doc.toYAML()); err != nil {
		return nil, fmt.Errorf("marshal model: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("marshal model: %w", err)
	}
	return buf.Bytes(), nil
}

// posAt returns the position of the value at a JSON pointer, or of its
// nearest ancestor present in the document.
func posAt(file string, paths map[string]*tnode, ptr string, key bool) Pos {
	for {
		if n, ok := paths[ptr]; ok {
			if key && n.keyPos.Line > 0 {
				return n.keyPos
			}
			return n.pos
		}
		if ptr == "" {
			return Pos{file, 1, 1}
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return Pos{file, 1, 1}
		}
		ptr, key = ptr[:i], false
	}
}

var printer = message.NewPrinter(language.English)

func validateSchema(file string, doc any, paths map[string]*tnode) ErrorList {
	sch, err := schema.Compiled()
	if err != nil {
		return ErrorList{{Pos: Pos{file, 1, 1}, Msg: "internal: " + err.Error()}}
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return ErrorList{{Pos: Pos{file, 1, 1}, Msg: err.Error()}}
	}
	var errs ErrorList
	collectLeaves(ve, func(l *jsonschema.ValidationError) {
		errs = append(errs, schemaError(file, paths, l)...)
	})
	return errs
}

func collectLeaves(ve *jsonschema.ValidationError, f func(*jsonschema.ValidationError)) {
	if len(ve.Causes) == 0 {
		f(ve)
		return
	}
	if pn, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		// Report the bad name itself, not the pattern deep inside.
		f(&jsonschema.ValidationError{SchemaURL: ve.SchemaURL, InstanceLocation: ve.InstanceLocation, ErrorKind: pn, Causes: ve.Causes})
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, f)
	}
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(escapePtr(t))
	}
	return b.String()
}

func fragment(url string) string {
	if i := strings.IndexByte(url, '#'); i >= 0 {
		return url[i+1:]
	}
	return ""
}

var typeWords = map[string]string{
	"object": "a mapping", "array": "a list", "string": "a string", "number": "a number",
	"integer": "a whole number", "boolean": "true or false", "null": "nothing",
}

func wantWords(ts []string) string {
	var ws []string
	for _, t := range ts {
		if w, ok := typeWords[t]; ok {
			ws = append(ws, w)
		} else {
			ws = append(ws, t)
		}
	}
	return strings.Join(ws, " or ")
}

var patternWords = map[string]string{
	`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`:  "an access pattern id of letters, digits, '.', '_' or '-' starting with a letter (AP01, OP01, orders.by-customer)",
	`^[A-Za-z][A-Za-z0-9_-]*$`:        "a name of letters, digits, '_' or '-' starting with a letter",
	`^[A-Za-z0-9_.-]{3,255}$`:         "a table or index name of 3 to 255 letters, digits, '_', '-' or '.'",
	`^[A-Za-z][A-Za-z0-9_]*$`:         "an attribute name of letters, digits or '_' starting with a letter",
	`^[0-9]+(\.[0-9]+)?(ms|s|m|h|d)$`: "a duration such as 50ms, 2s, 20m, 8h or 30d",
	`^[A-Z][A-Z0-9_]*$`:               "an upper-case tag such as CT",
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`:    "a civil date YYYY-MM-DD",
	`^[0-9]{4}-[0-9]{2}$`:             "a month YYYY-MM",
	`^[0-2][0-9]:[0-5][0-9]$`:         "a local time HH:MM",
	`^#[A-Za-z0-9_]+$`:                "an expression name such as #status",
	`^:[A-Za-z0-9_]+$`:                "an expression value name such as :amt",
	`^(Z|[+-][0-9]{2}:[0-9]{2})$`:     "Z or a fixed offset such as -03:00",
	`^[0-9]{1,9}$`:                    "a whole number of children such as 2",
}

// scalarText writes a document value for a message: a scalar as its
// text (ok), a mapping or a list as words, never as Go would print it.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case map[string]any:
		return "a mapping", false
	case []any:
		return "a list", false
	case nil:
		return "nothing", false
	case string:
		return x, true
	}
	return fmt.Sprint(v), true
}

func patternText(p string) string {
	if w, ok := patternWords[p]; ok {
		return w
	}
	return "the pattern " + p
}

func ratText(r *big.Rat) string {
	if r.IsInt() && r.Num().BitLen() <= 64 {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func schemaError(file string, paths map[string]*tnode, ve *jsonschema.ValidationError) ErrorList {
	ptr := pointer(ve.InstanceLocation)
	at := func(p string, key bool, msg, hint string) *Error {
		return &Error{Pos: posAt(file, paths, p, key), Path: displayPath(paths, p), Msg: msg, Hint: hint}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		var out ErrorList
		known := schema.Properties(fragment(ve.SchemaURL))
		var v1 []string
		for _, p := range k.Properties {
			if ptr == "/scale" && IsV1ScaleField(p) {
				v1 = append(v1, p)
			}
		}
		if len(v1) > 0 {
			sort.Slice(v1, func(i, j int) bool {
				return posAt(file, paths, ptr+"/"+escapePtr(v1[i]), true).Line < posAt(file, paths, ptr+"/"+escapePtr(v1[j]), true).Line
			})
			out = append(out, at(ptr+"/"+escapePtr(v1[0]), true, fmt.Sprintf("%s: fields of formatVersion 1's scale, which formatVersion 2 says generically (populations, skews, value shares, businessUnit, peaks)", strings.Join(v1, ", ")),
				"run cardapio migrate "+file+": it rewrites the model in place, comments kept"))
		}
		for _, p := range k.Properties {
			cp := ptr + "/" + escapePtr(p)
			if ptr == "/scale" && IsV1ScaleField(p) {
				continue
			}
			hint := didYouMean(p, known)
			if n := paths[cp]; hint == "" && n != nil && n.tag == "!!null" && strings.ContainsAny(p, " ()") {
				hint = "in a {flow: mapping} a comma starts a new key: quote a value that contains a comma"
			}
			out = append(out, at(cp, true, fmt.Sprintf("unknown field %q", p), hint))
		}
		return out
	case *kind.Required:
		var out ErrorList
		for _, m := range k.Missing {
			out = append(out, at(ptr, true, fmt.Sprintf("missing required field %q", m), ""))
		}
		return out
	case *kind.PropertyNames:
		want := "a valid name"
		collectLeaves(&jsonschema.ValidationError{Causes: ve.Causes}, func(c *jsonschema.ValidationError) {
			if p, ok := c.ErrorKind.(*kind.Pattern); ok {
				want = patternText(p.Want)
			}
		})
		return ErrorList{at(propertyPtr(paths, ve, k.Property), true, fmt.Sprintf("invalid name %q: expected %s", k.Property, want), "")}
	case *kind.Type:
		return ErrorList{at(ptr, false, fmt.Sprintf("expected %s, got %s", wantWords(k.Want), typeWords[k.Got]), "")}
	case *kind.Enum:
		var ws, quoted []string
		for _, w := range k.Want {
			s := fmt.Sprint(w)
			ws = append(ws, s)
			quoted = append(quoted, strconv.Quote(s))
		}
		got, ok := scalarText(k.Got)
		if !ok {
			return ErrorList{at(ptr, false, fmt.Sprintf("expected one of %s, got %s", strings.Join(quoted, ", "), got), "")}
		}
		return ErrorList{at(ptr, false, fmt.Sprintf("%q is not allowed here; expected one of %s", got, strings.Join(quoted, ", ")), didYouMean(got, ws))}
	case *kind.Const:
		want, _ := scalarText(k.Want)
		return ErrorList{at(ptr, false, "must be "+want, "")}
	case *kind.Pattern:
		return ErrorList{at(ptr, false, fmt.Sprintf("%q is not %s", k.Got, patternText(k.Want)), "")}
	case *kind.Minimum:
		return ErrorList{at(ptr, false, fmt.Sprintf("%s is below the minimum %s", ratText(k.Got), ratText(k.Want)), "")}
	case *kind.Maximum:
		return ErrorList{at(ptr, false, fmt.Sprintf("%s is above the maximum %s", ratText(k.Got), ratText(k.Want)), "")}
	case *kind.MinItems:
		return ErrorList{at(ptr, false, fmt.Sprintf("needs at least %d entries, has %d", k.Want, k.Got), "")}
	case *kind.MaxItems:
		return ErrorList{at(ptr, false, fmt.Sprintf("allows at most %d entries, has %d", k.Want, k.Got), "")}
	case *kind.MinProperties:
		return ErrorList{at(ptr, false, fmt.Sprintf("needs at least %d entries, has %d", k.Want, k.Got), "")}
	case *kind.MinLength:
		return ErrorList{at(ptr, false, fmt.Sprintf("must have at least %d characters", k.Want), "")}
	case *kind.MaxLength:
		return ErrorList{at(ptr, false, fmt.Sprintf("must have at most %d characters", k.Want), "")}
	case *kind.FalseSchema:
		return ErrorList{at(ptr, true, "field not allowed here", "")}
	}
	return ErrorList{at(ptr, false, ve.ErrorKind.LocalizedString(printer), "")}
}

// propertyPtr finds the pointer of a badly named key. The validator
// reports propertyNames errors with an instance location that it keeps
// reusing, so only its depth is trusted; the parent's name comes from the
// schema location (.../properties/<parent>/propertyNames).
func propertyPtr(paths map[string]*tnode, ve *jsonschema.ValidationError, prop string) string {
	depth := len(ve.InstanceLocation) + 1
	frag := strings.Split(fragment(ve.SchemaURL), "/")
	parent := ""
	if n := len(frag); n >= 3 && frag[n-1] == "propertyNames" && frag[n-3] == "properties" {
		parent = frag[n-2]
	}
	var found []string
	for ptr := range paths {
		toks := strings.Split(ptr, "/")[1:]
		if ptr == "" || len(toks) != depth || toks[depth-1] != escapePtr(prop) {
			continue
		}
		if parent != "" && (depth < 2 || toks[depth-2] != parent) {
			continue
		}
		found = append(found, ptr)
	}
	sort.Strings(found)
	if len(found) == 0 {
		return pointer(ve.InstanceLocation)
	}
	return found[0]
}

// decodeRaw fills the raw structs from the schema-valid document.
func decodeRaw(file string, doc any, paths map[string]*tnode, raw *rawModel) ErrorList {
	data, err := json.Marshal(normalizeNumbers(doc))
	if err != nil {
		return ErrorList{{Pos: Pos{file, 1, 1}, Msg: "unsupported value: " + err.Error()}}
	}
	if err := json.Unmarshal(data, raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			ptr := "/" + strings.ReplaceAll(te.Field, ".", "/")
			return ErrorList{{Pos: posAt(file, paths, ptr, false), Path: displayPath(paths, ptr), Msg: fmt.Sprintf("%s is out of range here", te.Value)}}
		}
		return ErrorList{{Pos: Pos{file, 1, 1}, Msg: "unsupported value in the model"}}
	}
	return nil
}

// normalizeNumbers rewrites integral numbers (1e3, 1000.0) as integers so
// that they decode into whole-number fields.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok && r.IsInt() && r.Num().IsInt64() {
			return json.Number(r.Num().String())
		}
	}
	return v
}
