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

// SARIF validates a SARIF log against the SARIF 2.1.0 schema twice:
// go-sarif's own validation of the document it reads back, and the raw
// bytes against the same published schema with an independent validator.
func SARIF(file string) error {
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
	return nil
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
