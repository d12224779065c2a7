package generator

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cardapio/cardapio/catalog"
)

// initialisms are the words Go spells in one case (Effective Go, the
// standard library's habit): tenantId becomes TenantID, not TenantId.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ARN": true, "ASCII": true, "CPU": true, "CSS": true, "DNS": true, "EOF": true,
	"GSI": true, "GUID": true, "HMAC": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true,
	"JSON": true, "LSI": true, "PK": true, "QPS": true, "RAM": true, "RPC": true, "SK": true, "SLA": true,
	"SQL": true, "SSH": true, "TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"SKU": true, "URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true,
}

// words splits a name written in any of the usual styles (tenantId,
// CONTRACT, ORDER_NOTE, collections-history, orders.by-customer, GSI1PK,
// SMS_D45) into its words. Digits stay with the letters before them.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r):
			// A new word starts at an upper-case letter after a lower-case
			// one (tenantId), or at the last capital of a run followed by
			// a lower-case letter (HTTPServer -> HTTP Server).
			if len(cur) > 0 {
				prev := cur[len(cur)-1]
				next := rune(0)
				if i+1 < len(rs) {
					next = rs[i+1]
				}
				if unicode.IsLower(prev) || unicode.IsDigit(prev) && !allUpper(cur) || unicode.IsUpper(prev) && unicode.IsLower(next) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func allUpper(rs []rune) bool {
	for _, r := range rs {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// exported turns a model name into an exported Go identifier: tenantId ->
// TenantID, CONTRACT -> Contract, collections-history ->
// CollectionsHistory, D031_060 -> D031_060 (an underscore is kept only
// between two digits, where dropping it would merge two numbers).
func exported(s string) string {
	ws := words(s)
	var b strings.Builder
	for i, w := range ws {
		up := strings.ToUpper(w)
		switch {
		case initialisms[up]:
			b.WriteString(up)
		case isInitialismDigits(up), up == w && strings.ContainsAny(w, "0123456789") && unicode.IsLetter(rune(w[0])):
			// GSI1PK, and ids such as AP03 or OP01, keep their capitals.
			b.WriteString(up)
		default:
			r, n := utf8.DecodeRuneInString(w)
			b.WriteRune(unicode.ToUpper(r))
			b.WriteString(strings.ToLower(w[n:]))
		}
		if i+1 < len(ws) && endsDigit(w) && startsDigit(ws[i+1]) {
			b.WriteByte('_')
		}
	}
	id := b.String()
	if id == "" {
		return "X"
	}
	if r, _ := utf8.DecodeRuneInString(id); unicode.IsDigit(r) {
		id = "X" + id
	}
	return id
}

// isInitialismDigits reports initialisms followed by digits: GSI1, GSI1PK.
func isInitialismDigits(up string) bool {
	i := strings.IndexFunc(up, unicode.IsDigit)
	if i <= 0 {
		return false
	}
	head, tail := up[:i], strings.TrimLeftFunc(up[i:], unicode.IsDigit)
	return initialisms[head] && (tail == "" || initialisms[tail])
}

func endsDigit(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsDigit(r)
}

func startsDigit(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsDigit(r)
}

// Identifier returns the exported Go identifier the generator gives a
// model name (an access pattern's id, an operation, a parameter):
// AP03 -> AP03, ApplySettlement -> ApplySettlement, tenantId -> TenantID.
func Identifier(name string) string { return exported(name) }

// unexported turns a model name into an unexported Go identifier that is
// not a keyword: tenantId -> tenantID, PK -> pk, type -> typ.
func unexported(s string) string {
	id := exported(s)
	ws := words(id)
	if len(ws) == 0 {
		return "x"
	}
	first := ws[0]
	rest := id[len(first):]
	var lead string
	if initialisms[strings.ToUpper(first)] || isInitialismDigits(strings.ToUpper(first)) || allUpper([]rune(first)) {
		lead = strings.ToLower(first)
	} else {
		r, n := utf8.DecodeRuneInString(first)
		lead = string(unicode.ToLower(r)) + first[n:]
	}
	id = lead + rest
	if token.IsKeyword(id) || predeclared[id] || isHelper(id) {
		switch id {
		case "type":
			return "typ"
		case "func":
			return "fn"
		}
		return id + "Arg"
	}
	return id
}

// stepVar is the prefix of a step's local variables (chargeIn,
// chargeOut): always followed by a suffix, so it need not avoid keywords.
func stepVar(id string) string {
	u := unexported(strings.TrimSuffix(exported(id), "Arg"))
	return strings.TrimSuffix(strings.TrimSuffix(u, "Arg"), "Value")
}

// isHelper reports whether id names a support helper of the generated
// code, which a parameter must not shadow.
func isHelper(id string) bool {
	_, ok := helpers[id]
	return ok || strings.HasPrefix(id, "keyOf") || strings.HasPrefix(id, "unmarshal") || strings.HasPrefix(id, "compare")
}

// predeclared are identifiers a parameter must not shadow.
var predeclared = map[string]bool{
	"any": true, "append": true, "bool": true, "byte": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "error": true, "false": true, "float64": true, "imag": true,
	"int": true, "int64": true, "iota": true, "len": true, "make": true, "max": true, "min": true, "new": true,
	"nil": true, "panic": true, "print": true, "println": true, "real": true, "recover": true, "rune": true,
	"string": true, "true": true, "uint": true,
	// names the generated functions use for themselves
	"c": true, "ctx": true, "opts": true, "err": true, "in": true, "out": true, "res": true, "item": true,
	"key": true, "q": true, "qs": true, "o": true, "d": true, "i": true, "ok": true, "page": true, "yield": true,
	"k": true, "p": true, "v": true, "x": true, "m": true, "b": true, "s": true, "av": true, "used": true,
	"secret": true, "shard": true, "tenant": true, "r": true, "t": true,
	"strconv": true, "strings": true, "errors": true, "fmt": true, "types": true, "dynamodb": true, "aws": true,
	"context": true, "iter": true, "sync": true, "time": true, "big": true, "bytes": true, "slices": true,
}

// names hands out package-level identifiers, so that two model names that
// map to the same Go name (an entity STATUS and an enum status) never
// collide: the first claim wins, later ones take a suffix.
type names struct{ used map[string]string }

func newNames() *names {
	n := &names{used: map[string]string{}}
	// Identifiers every generated package declares.
	for _, id := range []string{"DynamoDB", "TableAdmin", "Client", "New", "Tables", "DefaultTables", "Capacity", "Units",
		"Page", "ReadOption", "PageSize", "StartAt", "Workers", "Collect", "Entity", "KeyError", "Failure",
		"Separator", "CreateTableInputs", "CreateTables", "TenantPolicy", "Model", "ErrNoItem"} {
		n.used[id] = "builtin"
	}
	return n
}

// claim returns id, or id with suffix (then a number) when id is taken.
func (n *names) claim(owner, id, suffix string) string {
	if prev, ok := n.used[id]; !ok || prev == owner {
		n.used[id] = owner
		return id
	}
	cand := id + suffix
	for i := 2; ; i++ {
		if prev, ok := n.used[cand]; !ok || prev == owner {
			n.used[cand] = owner
			return cand
		}
		cand = id + suffix + strconv.Itoa(i)
	}
}

// tableIDs gives each table the identifier its Go names and its
// CloudFormation resources are built on: exported(name), numbered from
// the second table on whose name reads the same (orders-v2 and orders.v2
// are OrdersV2 and OrdersV2_2), so that no two declare one name.
func tableIDs(m *catalog.Model) map[string]string {
	out := make(map[string]string, len(m.Tables))
	taken := map[string]bool{}
	for _, t := range m.Tables {
		base := exported(t.Name)
		id := base
		for i := 2; taken[id]; i++ {
			id = base + strconv.Itoa(i)
			if endsDigit(base) {
				id = base + "_" + strconv.Itoa(i)
			}
		}
		taken[id] = true
		out[t.Name] = id
	}
	return out
}

// quote returns a Go string literal.
func quote(s string) string { return strconv.Quote(s) }

// literal returns a Go string literal of a text of several lines: a raw
// string, easier to read, when s holds no backquote, carriage return or
// unprintable character (a raw string keeps what it holds as is, and a
// backquote would end it); a quoted one otherwise.
func literal(s string) string {
	for _, r := range s {
		if r == '`' || r == utf8.RuneError || r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return quote(s)
		}
	}
	return "`" + s + "`"
}

// prose returns model text fit for a Go comment: one line of printable
// characters. A line break of any kind would end the comment and make
// the rest code (an init function, a //go:generate line), a NUL or a
// byte order mark would stop the file from compiling, and bidi controls
// would make a reviewer read other code than the compiler does; each
// becomes a space, and runs of spaces one.
func prose(text string) string {
	clean := true
	for _, r := range text {
		if r == utf8.RuneError || r != ' ' && !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if !clean {
		text = strings.Map(func(r rune) rune {
			if r == utf8.RuneError || !unicode.IsPrint(r) {
				return ' '
			}
			return r
		}, text)
	}
	return strings.Join(strings.Fields(text), " ")
}

// comment wraps prose into Go comment lines of about 76 columns, each
// starting with prefix ("// " or "//\t"). Blank text gives no lines.
func comment(prefix, text string) string {
	text = prose(text)
	if text == "" {
		return ""
	}
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields(text) {
		if line > 0 && line+1+len(w) > 76 {
			b.WriteString("\n")
			line = 0
		}
		if line == 0 {
			b.WriteString(prefix)
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		line += len(w) + 1
	}
	return b.String()
}

// sentence returns text with its first letter upper-case and a final
// period, for doc comments built from model prose.
func sentence(text string) string {
	text = prose(text)
	if text == "" {
		return ""
	}
	r, n := utf8.DecodeRuneInString(text)
	text = string(unicode.ToUpper(r)) + text[n:]
	if !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "?") && !strings.HasSuffix(text, "!") {
		text += "."
	}
	return text
}

// lowerFirst returns text with its first letter lower-case unless the
// first word is an acronym (GSI1, PK).
func lowerFirst(text string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	first := strings.Fields(text)[0]
	rs := []rune(first)
	if len(rs) > 1 && (allUpper(rs) || strings.IndexFunc(string(rs[1:]), unicode.IsUpper) >= 0) {
		return text // an acronym or a name written in camel case
	}
	r, n := utf8.DecodeRuneInString(text)
	return string(unicode.ToLower(r)) + text[n:]
}

// article returns "a" or "an" for the word that follows.
func article(word string) string {
	if word == "" {
		return "a"
	}
	switch unicode.ToLower(rune(word[0])) {
	case 'a', 'e', 'i', 'o', 'u':
		return "an"
	}
	return "a"
}

// groupParams prints parameters, joining neighbours of one type as Go
// style does: "tenantID, debtorKey string, seq int64".
func groupParams(names, types []string) string {
	var b strings.Builder
	for i := range names {
		b.WriteString(names[i])
		if i+1 < len(names) && types[i+1] == types[i] {
			b.WriteString(", ")
			continue
		}
		b.WriteString(" " + types[i])
		if i+1 < len(names) {
			b.WriteString(", ")
		}
	}
	return b.String()
}
