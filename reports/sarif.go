package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// SARIF 2.1.0 output, for GitHub code scanning (and any SARIF viewer):
// every finding is positioned at a line of model.yaml, so a pull request
// that changes the design is annotated where it changed. An excess is
// reported at the budget it exceeds, and each of its causes at the line
// that decides it (an index's projection, an entity's attribute, an
// index key), since code scanning annotates only the lines a pull request
// touches. The document is built with owenrumney/go-sarif, whose types
// follow the schema.

// SARIF rule ids.
const (
	RuleModelError     = "model-error"
	RuleBudgetExceeded = "budget-exceeded"
	RuleBudgetCause    = "budget-cause"
	RuleDrift          = "drift"
	RuleNotMeasured    = "not-measured"
	RuleDearer         = "dearer-than-baseline"
	RuleHotPartition   = "hot-partition"
	RuleNoVerdict      = "no-verdict"
	rulePrefixReview   = "review/"
)

var ruleText = map[string][2]string{
	RuleModelError:     {"The model is invalid", "The model does not load: a schema or semantic error, positioned where it must be fixed."},
	RuleBudgetExceeded: {"An operation consumes more than its budget", "A business operation, in one budget variant, consumes more write or read request units than the model declares for it."},
	RuleBudgetCause:    {"What makes an operation exceed its budget", "A part of the design that makes an operation over budget dear: an item past a size boundary, an index projection, an index key the write changes, a transaction, a failed condition, a page summed past 4 KB."},
	RuleDrift:          {"Measured capacity disagrees with the static estimate", "The engine reported a figure the static estimate from the model's samples does not predict; the measured figure decides the verdict."},
	RuleNotMeasured:    {"An operation could not be measured", "The target refused a request of the operation, or the run did not take the variant's path."},
	RuleDearer:         {"An operation got dearer than the baseline", "The operation consumes more than in the accepted run it is compared with."},
	RuleNoVerdict:      {"The gate gave no verdict", "The run ended before it judged the model: a flag or baseline it refused, or a target it could not reach or that failed. Nothing was measured; the message says what happened."},
	RuleHotPartition:   {"A partition takes more than it serves at a declared peak", "The hottest partition of a table or index takes more than 1,000 write or 3,000 read units a second at a peak the model declares: requests to it are throttled."},
}

type sarifDoc struct {
	rep   *sarif.Report
	run   *sarif.Run
	uri   string
	lines []string // the model's lines, to end each region at its line's end
	// plain is each result's message without SARIF's link markup, for
	// the reports that carry the same findings as text (code quality).
	plain map[*sarif.Result]string
}

// newSARIF starts the log of one command (check or budget) on model.
// The model's URI is relative to the repository root, named by the
// %SRCROOT% base, so code scanning finds the file whatever directory
// the command ran in; the run's automation id, distinct per command
// and model, is the category code scanning keeps its alerts under, so
// one upload may carry check's and budget's logs together.
func newSARIF(command, model string) *sarifDoc {
	root, uri := sourceRoot(model)
	d := &sarifDoc{rep: sarif.NewReport(), run: sarif.NewRun(), uri: uri, lines: modelLines(model)}
	d.run.Tool = sarif.NewTool()
	d.run.Tool.Driver = sarif.NewToolComponent()
	name := "cardapio"
	d.run.Tool.Driver.Name = &name
	info := "https://github.com/cardapio/cardapio"
	d.run.Tool.Driver.InformationURI = &info
	version, semver := ToolVersion()
	d.run.Tool.Driver.WithVersion(version)
	if semver != "" {
		d.run.Tool.Driver.WithSemanticVersion(semver)
	}
	d.run.WithOriginalUriBaseIds(map[string]sarif.ArtifactLocation{srcRoot: *sarif.NewArtifactLocation().WithURI(fileURI(root))})
	d.run.WithAutomationDetails(sarif.NewRunAutomationDetails().WithID("cardapio/" + command + "/" + uri + "/"))
	d.run.AddDistinctArtifact(d.uri)
	for _, a := range d.run.Artifacts {
		a.Location.WithURIBaseID(srcRoot)
	}
	d.rep.AddRun(d.run)
	return d
}

// srcRoot is the base every artifact URI is relative to.
const srcRoot = "%SRCROOT%"

// sourceRoot returns the root the model's URI is relative to and that
// URI: the root of the git work tree holding the model, else the working
// directory; a model outside it is relative to its own directory.
func sourceRoot(model string) (root, uri string) {
	abs, err := filepath.Abs(model)
	if err != nil {
		abs = filepath.Clean(model)
	}
	dir := filepath.Dir(abs)
	// git asks from the nearest directory that exists (a model that
	// could not be read is reported all the same).
	at := dir
	for {
		if st, err := os.Stat(at); (err == nil && st.IsDir()) || filepath.Dir(at) == at {
			break
		}
		at = filepath.Dir(at)
	}
	root, err = os.Getwd()
	if out, gerr := exec.Command("git", "-C", at, "rev-parse", "--show-toplevel").Output(); gerr == nil {
		root = strings.TrimSpace(string(out))
	} else if err != nil {
		root = dir
	}
	// git names the root by its real path: compare real paths.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		root, rel = filepath.Dir(abs), filepath.Base(abs)
	}
	return root, (&url.URL{Path: filepath.ToSlash(rel)}).EscapedPath()
}

// fileURI is the file: URI of a directory, ending in a slash as SARIF
// requires of a base.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// ToolVersion is the version the binary was built as (go install
// stamps the module's tag; a build from a clone, its VCS revision), and
// that version without its "v" when it is a semantic version.
func ToolVersion() (version, semver string) {
	version = "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
		if version == "(devel)" {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && s.Value != "" {
					version = "(devel) " + s.Value
				}
			}
		}
	}
	if semverRe.MatchString(version) {
		semver = strings.TrimPrefix(version, "v")
	}
	return version, semver
}

var semverRe = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// maxModelRead bounds what is read of the model to end regions: a model
// the loader took is far smaller.
const maxModelRead = 64 << 20

// modelLines reads the model's lines, or none when it cannot be read.
func modelLines(model string) []string {
	f, err := os.Open(model)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxModelRead {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxModelRead))
	if err != nil {
		return nil
	}
	return strings.Split(string(b), "\n")
}

func (d *sarifDoc) rule(id string) {
	if d.run.GetRuleIndex(id) >= 0 {
		return
	}
	r := d.run.AddRule(id)
	txt, ok := ruleText[id]
	if !ok {
		code := strings.TrimPrefix(id, rulePrefixReview)
		txt = [2]string{"Design review: " + code, "A review finding of check: the model is valid, but a reviewer would question it."}
	}
	r.ShortDescription = &sarif.MultiformatMessageString{Text: &txt[0]}
	r.FullDescription = &sarif.MultiformatMessageString{Text: &txt[1]}
	// Code scanning shows a rule's help beside each of its alerts.
	md := "**" + txt[0] + "**\n\n" + txt[1] + "\n\nThe finding is positioned at the line of the model that decides it; `cardapio check` and `cardapio budget` explain it in full."
	r.Help = &sarif.MultiformatMessageString{Text: &txt[1], Markdown: &md}
	level := sarif.LevelError
	switch {
	case id == RuleBudgetCause || id == RuleDrift || id == RuleDearer || strings.HasPrefix(id, rulePrefixReview):
		level = sarif.LevelWarning
	}
	cfg := sarif.NewReportingConfiguration()
	cfg.Level = level
	r.DefaultConfiguration = cfg
}

// add records one finding at a location of the model; key identifies it
// across runs (operation, variant, rule), whatever line it moves to.
// Each related location is linked from the message, as [path](id).
func (d *sarifDoc) add(rule, level, text string, at budget.Location, key string, related ...budget.Location) *sarif.Result {
	d.rule(rule)
	res := d.run.CreateResultForRule(rule)
	res.AddLocation(d.location(at))
	var links, paths []string
	for _, r := range related {
		if r.Line > 0 {
			l := d.location(r)
			l.ID = len(res.RelatedLocations) + 1
			l.WithMessage(sarif.NewTextMessage(r.Path))
			res.AddRelatedLocation(l)
			links = append(links, fmt.Sprintf("[%s](%d)", linkEscape(r.Path), l.ID))
			paths = append(paths, r.Path)
		}
	}
	if d.plain == nil {
		d.plain = map[*sarif.Result]string{}
	}
	d.plain[res] = text
	if len(links) > 0 {
		d.plain[res] = text + " See " + strings.Join(paths, ", ") + "."
		text = linkEscape(text) + " See " + strings.Join(links, ", ") + "."
	}
	res.WithLevel(level).WithMessage(sarif.NewTextMessage(text))
	sum := sha256.Sum256([]byte(rule + "\x00" + key))
	id := hex.EncodeToString(sum[:16])
	// primaryLocationLineHash is what code scanning tracks an alert by
	// from one commit to the next: here the finding's identity, which
	// holds when the lines above it move.
	res.WithPartialFingerprints(map[string]string{"cardapio/v1": id, "primaryLocationLineHash": id[:16] + ":1"})
	return res
}

// linkEscape escapes the brackets of a message that carries embedded
// links, so only the links read as links.
var linkEscape = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace

func (d *sarifDoc) location(at budget.Location) *sarif.Location {
	line, col := max(at.Line, 1), max(at.Column, 1)
	end := col + 1
	if line <= len(d.lines) {
		if n := utf8.RuneCountInString(strings.TrimRight(d.lines[line-1], "\r")) + 1; n > col {
			end = n
		}
	}
	// The offsets are unknown: -1, which write leaves out.
	reg := &sarif.Region{StartLine: &line, StartColumn: &col, EndLine: &line, EndColumn: &end, ByteOffset: -1, CharOffset: -1}
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(d.uri).WithURIBaseID(srcRoot).WithIndex(0)).WithRegion(reg)
	l := sarif.NewLocationWithPhysicalLocation(pl)
	if at.Path != "" {
		ll := sarif.NewLogicalLocation().WithFullyQualifiedName(at.Path).WithKind("member")
		l.AddLogicalLocation(ll)
	}
	return l
}

// write writes the log. go-sarif's types hold some optional integers
// as plain ints and set them to -1 for "absent", a value the schema
// forbids (a length, an index, a rank, an offset): they are left out.
func (d *sarifDoc) write(w io.Writer) error {
	var b bytes.Buffer
	if err := d.rep.Write(&b); err != nil {
		return err
	}
	dec := json.NewDecoder(&b)
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	dropAbsent(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// dropAbsent removes every member whose value is -1, the library's
// mark of an absent optional integer, from the document v.
func dropAbsent(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if n, ok := e.(json.Number); ok && (n == "-1" || n == "-1.0") {
				delete(x, k)
				continue
			}
			dropAbsent(e)
		}
	case []any:
		for _, e := range x {
			dropAbsent(e)
		}
	}
}

func fromPos(p catalog.Pos, path string) budget.Location {
	return budget.Location{File: p.File, Line: p.Line, Column: p.Col, Path: path}
}

// BudgetSARIF writes the gate's findings: each budget exceeded (at the
// budget), each of its causes (at the design element), drift, variants
// that could not be measured, and variants dearer than the baseline.
func BudgetSARIF(w io.Writer, r *budget.Report) error { return budgetSARIF(r).write(w) }

// budgetSARIF builds the gate's findings, for SARIF and for GitLab's
// code quality report alike.
func budgetSARIF(r *budget.Report) *sarifDoc {
	d := newSARIF("budget", r.Model)
	addResults(d, r.Results)
	addGate(d, r)
	for i := range r.Results {
		res := &r.Results[i]
		switch {
		case res.Verdict == budget.Error:
			d.add(RuleNotMeasured, sarif.LevelError, res.Name()+" could not be measured on the "+r.Target+": "+res.Explanation, res.At, res.Name())
		case len(res.Drift) > 0:
			var parts []string
			for _, x := range res.Drift {
				parts = append(parts, fmt.Sprintf("step %s, %s: %s %s measured, %s static", x.Step, x.Target, num(x.Measured), x.Unit, num(x.Static)))
			}
			d.add(RuleDrift, sarif.LevelWarning, res.Name()+": the measured figures disagree with the static estimate: "+strings.Join(parts, "; "), res.At, res.Name())
		}
	}
	if c := r.Baseline; c != nil {
		at := map[string]budget.Location{}
		for i := range r.Results {
			at[r.Results[i].Name()] = r.Results[i].At
		}
		for _, x := range c.Deltas {
			if x.Status == budget.Dearer {
				d.add(RuleDearer, sarif.LevelWarning, fmt.Sprintf("%s is dearer than the baseline %s: %s", x.Name(), c.File, deltaText(x)), at[x.Name()], x.Name())
			}
		}
	}
	return d
}

// addResults adds the excesses of results and their causes. Causes that
// several variants share (one projection making five variants dear) are
// one finding naming them all.
func addResults(d *sarifDoc, results []budget.Result) {
	type causeKey struct{ path, kind, target, text string }
	type group struct {
		cause    budget.Cause
		variants []string
		budgets  []budget.Location
	}
	groups := map[causeKey]*group{}
	var order []causeKey
	for i := range results {
		res := &results[i]
		for _, x := range res.Excesses {
			budgetAt := x.At
			if budgetAt.Line == 0 {
				budgetAt = res.At
			}
			var related []budget.Location
			for _, c := range x.Causes {
				related = append(related, c.At)
			}
			// The excess's explanation, as every output gives it; each
			// cause is a finding of its own at its line too.
			d.add(RuleBudgetExceeded, sarif.LevelError, x.Text, budgetAt, res.Name()+"/"+x.Unit, related...)
			for _, c := range x.Causes {
				k := causeKey{c.At.Path, c.Kind, c.Target, c.Text}
				g := groups[k]
				if g == nil {
					g = &group{cause: c}
					groups[k] = g
					order = append(order, k)
				}
				name := res.Name() + " (" + x.Unit + ")"
				if n := len(g.variants); n == 0 || g.variants[n-1] != name {
					g.variants = append(g.variants, name)
					g.budgets = append(g.budgets, budgetAt)
				}
			}
		}
	}
	for _, k := range order {
		g := groups[k]
		msg := fmt.Sprintf("%s. This makes %s exceed %s.", upperFirst(g.cause.Text), strings.Join(g.variants, ", "), plural(len(g.variants), "its budget", "their budgets"))
		d.add(RuleBudgetCause, sarif.LevelWarning, msg, g.cause.At, g.cause.Kind+"/"+g.cause.Target+"/"+g.cause.At.Path+"/"+strings.Join(g.variants, ","), g.budgets...)
	}
}

// addGate adds what check finds to the gate's SARIF: the static
// excesses (with their causes where the measured figure holds; a
// measured excess already has them), the hot partitions, and the review
// warnings --strict does not accept.
func addGate(d *sarifDoc, r *budget.Report) {
	if r.Gate != nil {
		measured := map[string]bool{}
		for i := range r.Results {
			if len(r.Results[i].Excesses) > 0 {
				measured[r.Results[i].Name()] = true
			}
		}
		var static []budget.Result
		for _, f := range r.Check.Findings {
			if f.Kind != budget.FindingOverBudget {
				continue
			}
			if measured[f.Name] {
				// Its causes are the measured excess's: check's
				// explanation stands beside it.
				d.add(RuleBudgetExceeded, sarif.LevelError, f.Text, f.At, "static/"+f.Name+"/"+f.At.Path)
				continue
			}
			op, variant, _ := strings.Cut(f.Name, "/")
			if res := r.Gate.Result(op, variant); res != nil && !slices.ContainsFunc(static, func(x budget.Result) bool { return x.Name() == f.Name }) {
				static = append(static, *res)
			}
		}
		addResults(d, static)
	}
	addHot(d, r.Check.Findings)
	for _, f := range r.Check.Findings {
		if f.Kind == budget.FindingReview {
			d.add(rulePrefixReview+f.Name, sarif.LevelError, sentence(f.Text), f.At, f.At.Path+"/"+f.Name)
		}
	}
}

func deltaText(x budget.Delta) string {
	var parts []string
	if x.Delta.WRU != 0 {
		parts = append(parts, fmt.Sprintf("%s -> %s WRU (%s)", num(x.Baseline.WRU), num(x.Measured.WRU), signed(x.Delta.WRU)))
	}
	if x.Delta.RRU != 0 {
		parts = append(parts, fmt.Sprintf("%s -> %s RRU (%s)", num(x.Baseline.RRU), num(x.Measured.RRU), signed(x.Delta.RRU)))
	}
	return strings.Join(parts, ", ")
}

// CheckSARIF writes check's findings: the review warnings the model
// does not accept at their positions (errors under --strict), every budget the static
// estimate exceeds with its causes, and every hot partition at its table
// or index.
func CheckSARIF(w io.Writer, c *Check) error {
	d := newSARIF("check", c.Path)
	for _, f := range c.Model.Warnings {
		if f.Accepted != "" {
			continue
		}
		id := rulePrefixReview + f.Code
		msg := sentence(f.Msg)
		if f.Hint != "" {
			msg += " Hint: " + sentence(f.Hint)
		}
		level := sarif.LevelWarning
		if c.Gate.Strict {
			level = sarif.LevelError
		}
		d.add(id, level, msg, fromPos(f.Pos, f.Path), f.Path+"/"+f.Code)
	}
	addResults(d, c.Gate.Static)
	addHot(d, c.Gate.Findings)
	return d.write(w)
}

// addHot adds the hot partitions of the static gate, each at its table
// or index.
func addHot(d *sarifDoc, fs []budget.Finding) {
	for _, f := range fs {
		if f.Kind == budget.FindingHot {
			d.add(RuleHotPartition, sarif.LevelError, sentence(f.Name+": "+f.Text), f.At, f.Name)
		}
	}
}

// CheckErrorsSARIF writes the errors of a model that does not load, each
// at its position; an error without one (the file cannot be read) is
// placed at the top of the file.
func CheckErrorsSARIF(w io.Writer, path string, errs catalog.ErrorList, other error) error {
	return errorsSARIF(w, "check", path, errs, other, RuleModelError)
}

// errorsSARIF writes a command's log of a run that ended without a
// verdict: the model's errors at their positions, and other (under
// rule) at the top of the model.
func errorsSARIF(w io.Writer, command, path string, errs catalog.ErrorList, other error, rule string) error {
	return errorsDoc(command, path, errs, other, rule).write(w)
}

// errorsDoc builds the findings of a run without a verdict.
func errorsDoc(command, path string, errs catalog.ErrorList, other error, rule string) *sarifDoc {
	d := newSARIF(command, path)
	list := append(catalog.ErrorList(nil), errs...)
	sort.SliceStable(list, func(i, j int) bool { return list[i].Pos.Line < list[j].Pos.Line })
	for _, e := range list {
		d.add(RuleModelError, sarif.LevelError, errorText(e), fromPos(e.Pos, e.Path), fmt.Sprintf("%s/%s", e.Path, e.Msg))
	}
	if other != nil {
		d.add(rule, sarif.LevelError, other.Error(), budget.Location{Line: 1, Column: 1}, other.Error())
	}
	return d
}

// errorText is a model error in one sentence, its hint after it.
func errorText(e *catalog.Error) string {
	msg := e.Msg
	if e.Path != "" {
		msg = e.Path + ": " + msg
	}
	msg = sentence(msg)
	if e.Hint != "" {
		msg += " Hint: " + sentence(e.Hint)
	}
	return msg
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if s == "" || strings.ContainsRune(".!?", rune(s[len(s)-1])) {
		return s
	}
	return s + "."
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func num(f float64) string { return estimate.Num(f) }
