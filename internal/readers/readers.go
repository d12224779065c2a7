// Package readers runs the report files cardapio writes through the
// readers CI systems use, for tests: the JUnit XML through an XML Schema
// validator (xmllint, with the schema of reports/testdata/junit.xsd) and
// through junitparser (the Python library GitHub's publish-unit-test-result
// action reads JUnit with), the Markdown through cmark-gfm (GitHub's own
// Markdown implementation), and the SARIF log through the SARIF 2.1.0
// JSON Schema (the one go-sarif ships, checked with two validators).
//
// The external programs come from Debian packages (libxml2-utils,
// python3-junitparser, cmark-gfm) that .ci/run installs. Without them a
// check is skipped, except under CI, where a missing reader is a failure:
// a check that cannot run must not pass silently.
package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrMissing is returned when a reader is not installed and CI is not
// set: the caller skips the check.
var ErrMissing = errors.New("reader not installed")

func need(prog string) (string, error) {
	p, err := exec.LookPath(prog)
	if err == nil {
		return p, nil
	}
	if os.Getenv("CI") != "" {
		return "", fmt.Errorf("%s is not installed, and CI requires it (.ci/run installs it)", prog)
	}
	return "", fmt.Errorf("%s: %w", prog, ErrMissing)
}

// JUnitXSD validates a JUnit file against the schema at xsd with
// xmllint.
func JUnitXSD(file, xsd string) error {
	xmllint, err := need("xmllint")
	if err != nil {
		return err
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", xsd, file).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint: %v: %s", err, out)
	}
	return nil
}

// Case is one test case as junitparser reads it.
type Case struct {
	Suite     string `json:"suite"`
	Classname string `json:"classname"`
	Name      string `json:"name"`
	Time      float64
	Result    string `json:"result"` // "", failure, error, skipped
	Message   string `json:"message"`
	Text      string `json:"text"`
}

// Suite is a test suite's counts as junitparser reads them.
type Suite struct {
	Name     string `json:"name"`
	Tests    int    `json:"tests"`
	Failures int    `json:"failures"`
	Errors   int    `json:"errors"`
	Cases    []Case `json:"cases"`
}

const junitScript = `
import json, sys
import junitparser
xml = junitparser.JUnitXml.fromfile(sys.argv[1])
suites = []
for s in xml:
    cases = []
    for c in s:
        r = c.result[0] if c.result else None
        cases.append({"suite": s.name, "classname": c.classname, "name": c.name, "Time": c.time,
                      "result": r._tag if r is not None else "", "message": (r.message or "") if r is not None else "",
                      "text": (r.text or "") if r is not None else ""})
    suites.append({"name": s.name, "tests": s.tests, "failures": s.failures, "errors": s.errors, "cases": cases})
print(json.dumps(suites))
`

// JUnitParse reads a JUnit file with junitparser.
func JUnitParse(file string) ([]Suite, error) {
	py := "/usr/bin/python3" // Debian's, which sees python3-junitparser
	if _, err := os.Stat(py); err != nil {
		var nerr error
		if py, nerr = need("python3"); nerr != nil {
			return nil, nerr
		}
	}
	if err := exec.Command(py, "-c", "import junitparser").Run(); err != nil {
		if os.Getenv("CI") != "" {
			return nil, errors.New("python3-junitparser is not installed, and CI requires it")
		}
		return nil, fmt.Errorf("junitparser: %w", ErrMissing)
	}
	out, err := exec.Command(py, "-c", junitScript, file).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("junitparser: %v: %s", err, ee.Stderr)
		}
		return nil, err
	}
	var suites []Suite
	if err := json.Unmarshal(out, &suites); err != nil {
		return nil, fmt.Errorf("junitparser output: %w", err)
	}
	return suites, nil
}

// Table is one table of rendered Markdown: header cells and rows.
type Table struct {
	Header []string
	Rows   [][]string
}

// Markdown renders a Markdown file with cmark-gfm and its table
// extension, as GitHub does, and returns the HTML and its tables.
func Markdown(file string) (string, []Table, error) {
	cmark, err := need("cmark-gfm")
	if err != nil {
		return "", nil, err
	}
	out, err := exec.Command(cmark, "-e", "table", "-e", "autolink", "-e", "strikethrough", file).Output()
	if err != nil {
		return "", nil, fmt.Errorf("cmark-gfm: %w", err)
	}
	html := string(out)
	return html, tables(html), nil
}

var (
	tableRe = regexp.MustCompile(`(?s)<table>(.*?)</table>`)
	rowRe   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRe  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRe   = regexp.MustCompile(`<[^>]+>`)
)

func tables(html string) []Table {
	var out []Table
	for _, t := range tableRe.FindAllStringSubmatch(html, -1) {
		var tb Table
		for i, r := range rowRe.FindAllStringSubmatch(t[1], -1) {
			var cells []string
			for _, c := range cellRe.FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, unescape(tagRe.ReplaceAllString(c[1], "")))
			}
			if i == 0 {
				tb.Header = cells
			} else {
				tb.Rows = append(tb.Rows, cells)
			}
		}
		out = append(out, tb)
	}
	return out
}

func unescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'").Replace(s)
}

// SARIF validates SARIF logs against the SARIF 2.1.0 schema twice
// (go-sarif's own validation of the document it reads back, and the raw
// bytes against the same published schema with an independent
// validator) and against the rules GitHub code scanning applies on
// upload (GitHub's rules of the SARIF Multitool, and what one upload of
// several logs needs): see GitHub. Logs given together must have
// distinct categories, as one upload step given them all requires.
func SARIF(files ...string) error {
	cats := map[string]string{}
	for _, f := range files {
		if err := sarifFile(f); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var log struct {
			Runs []struct {
				Auto struct {
					ID string `json:"id"`
				} `json:"automationDetails"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(data, &log); err != nil {
			return err
		}
		for _, r := range log.Runs {
			cat := r.Auto.ID[:strings.LastIndex(r.Auto.ID, "/")+1]
			if prev, ok := cats[cat]; ok {
				return fmt.Errorf("%s and %s share the category %q: one upload cannot carry both", prev, f, cat)
			}
			cats[cat] = f
		}
	}
	return nil
}

func sarifFile(file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	rep, err := sarif.FromBytes(data)
	if err != nil {
		return fmt.Errorf("go-sarif cannot read it: %w", err)
	}
	if err := rep.Validate(); err != nil {
		return fmt.Errorf("go-sarif: %w", err)
	}
	schema, err := sarifSchema()
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	const url = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("compile the SARIF schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("SARIF 2.1.0 schema: %w", err)
	}
	return GitHub(data)
}

// GitHub checks a SARIF log against what GitHub code scanning requires
// or reads: every rule has help (text and Markdown); the tool names its
// version; no -1 stands where the schema means absent or non-negative;
// every run has an automation id (its category); every artifact URI is
// relative, under a base the run defines; every result has a
// primaryLocationLineHash fingerprint and a region with its end;
// suppressions are on every result or none; every [text](id) link of a
// message names a related location.
func GitHub(data []byte) error {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	if err := noMinusOne(doc, "$"); err != nil {
		return err
	}
	rep, err := sarif.FromBytes(data)
	if err != nil {
		return err
	}
	for i, run := range rep.Runs {
		at := func(format string, a ...any) error {
			return fmt.Errorf("runs[%d]: "+format, append([]any{i}, a...)...)
		}
		d := run.Tool.Driver
		if d == nil || d.Version == nil && d.SemanticVersion == nil {
			return at("tool.driver has no version or semanticVersion")
		}
		for _, r := range d.Rules {
			if r.Help == nil || r.Help.Text == nil || *r.Help.Text == "" || r.Help.Markdown == nil || *r.Help.Markdown == "" {
				return at("rule %s has no help text and Markdown", str(r.ID))
			}
		}
		if run.AutomationDetails == nil || str(run.AutomationDetails.ID) == "" {
			return at("no automationDetails.id: its category would be the tool's name alone")
		}
		uri := func(l *sarif.ArtifactLocation) error {
			if l == nil || l.URI == nil {
				return nil
			}
			u := *l.URI
			if l.URIBaseID == nil {
				return at("artifact URI %q has no uriBaseId", u)
			}
			if _, ok := run.OriginalUriBaseIds[*l.URIBaseID]; !ok {
				return at("uriBaseId %s is not among originalUriBaseIds", *l.URIBaseID)
			}
			if strings.Contains(u, ":") || strings.HasPrefix(u, "/") || u == ".." || strings.HasPrefix(u, "../") {
				return at("artifact URI %q is not relative to its base", u)
			}
			return nil
		}
		for _, a := range run.Artifacts {
			if err := uri(a.Location); err != nil {
				return err
			}
		}
		suppressed := 0
		for j, r := range run.Results {
			if r.PartialFingerprints["primaryLocationLineHash"] == "" {
				return at("results[%d] has no primaryLocationLineHash", j)
			}
			if len(r.Suppressions) > 0 {
				suppressed++
			}
			for _, l := range r.Locations {
				if err := region(l, uri); err != nil {
					return at("results[%d]: %v", j, err)
				}
			}
			ids := map[string]bool{}
			for _, l := range r.RelatedLocations {
				if err := region(l, uri); err != nil {
					return at("results[%d] related: %v", j, err)
				}
				ids[fmt.Sprint(l.ID)] = true
			}
			text := ""
			if r.Message != nil {
				text = str(r.Message.Text)
			}
			for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
				if !ids[m[1]] {
					return at("results[%d] links to related location %s, which it does not have", j, m[1])
				}
			}
			if len(r.RelatedLocations) > 0 && !linkRe.MatchString(text) {
				return at("results[%d]: its related locations are not linked from its message", j)
			}
		}
		if suppressed != 0 && suppressed != len(run.Results) {
			return at("%d of %d results carry suppressions: all or none must", suppressed, len(run.Results))
		}
	}
	return nil
}

// linkRe is an embedded link to a location, [text](id), whose opening
// bracket is not escaped.
var linkRe = regexp.MustCompile(`(?:^|[^\\])\[(?:[^\]\\]|\\.)*\]\((\d+)\)`)

func region(l *sarif.Location, uri func(*sarif.ArtifactLocation) error) error {
	p := l.PhysicalLocation
	if p == nil {
		return errors.New("a location without a physical location")
	}
	if err := uri(p.ArtifactLocation); err != nil {
		return err
	}
	r := p.Region
	if r == nil || r.StartLine == nil || r.EndLine == nil || r.EndColumn == nil || r.StartColumn == nil {
		return errors.New("a region without its start and end line and column")
	}
	if *r.EndLine < *r.StartLine || *r.EndLine == *r.StartLine && *r.EndColumn <= *r.StartColumn {
		return fmt.Errorf("region %d:%d-%d:%d ends before it starts", *r.StartLine, *r.StartColumn, *r.EndLine, *r.EndColumn)
	}
	return nil
}

// noMinusOne finds a -1 anywhere in the document: the schema allows it
// nowhere cardapio writes a number (a length, index, rank, offset, id).
func noMinusOne(v any, path string) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if err := noMinusOne(e, path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := noMinusOne(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case json.Number:
		if f, err := x.Float64(); err == nil && f < 0 {
			return fmt.Errorf("%s is %s: the spec means absent or non-negative", path, x)
		}
	}
	return nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// sarifSchema takes the SARIF 2.1.0 JSON Schema out of the go-sarif
// module, which carries the published schema as a Go string.
func sarifSchema() ([]byte, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	if err != nil {
		return nil, fmt.Errorf("find the go-sarif module: %w", err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go"))
	if err != nil {
		return nil, err
	}
	s := string(src)
	i := strings.Index(s, "`")
	j := strings.LastIndex(s, "`")
	if i < 0 || j <= i {
		return nil, errors.New("no schema in go-sarif's schema.go")
	}
	return []byte(s[i+1 : j]), nil
}
