package reports

import (
	"encoding/json"
	"io"
	"net/url"
	"strconv"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/cardapio/cardapio/budget"
)

// BudgetCodeQuality writes the gate's findings as GitLab's code quality
// report (a JSON array of issues, each with a description, a check
// name, a fingerprint, a severity and a location: the path from the
// repository's root and the line), the merge request widget's input.
// The issues are the SARIF log's results, built by the same code: the
// two reports never disagree.
func BudgetCodeQuality(w io.Writer, r *budget.Report) error { return budgetSARIF(r).codeQuality(w) }

// cqIssue is one issue of a code quality report, as GitLab documents it.
type cqIssue struct {
	Description string     `json:"description"`
	CheckName   string     `json:"check_name"`
	Fingerprint string     `json:"fingerprint"`
	Severity    string     `json:"severity"`
	Location    cqLocation `json:"location"`
}

type cqLocation struct {
	Path  string  `json:"path"`
	Lines cqLines `json:"lines"`
}

type cqLines struct {
	Begin int `json:"begin"`
}

// severities maps SARIF's levels onto code quality's severities.
var severities = map[string]string{"error": "critical", "warning": "minor", "note": "info", "none": "info"}

// codeQuality writes the log's results as a code quality report.
func (d *sarifDoc) codeQuality(w io.Writer) error {
	issues := []cqIssue{}
	seen := map[string]int{}
	path, err := url.PathUnescape(d.uri)
	if err != nil {
		path = d.uri
	}
	for _, r := range d.run.Results {
		text := d.plain[r]
		line := 1
		if len(r.Locations) > 0 {
			if pl := r.Locations[0].PhysicalLocation; pl != nil && pl.Region != nil && pl.Region.StartLine != nil {
				line = *pl.Region.StartLine
			}
		}
		rule := ""
		if r.RuleID != nil {
			rule = *r.RuleID
		}
		level := r.Level
		if level == "" {
			level = sarif.LevelWarning
		}
		// Fingerprints identify an issue across runs and must be unique
		// within the report: a repeated one takes its rank.
		fp := r.PartialFingerprints["cardapio/v1"]
		if n := seen[fp]; n > 0 {
			seen[fp]++
			fp += "-" + strconv.Itoa(n)
		} else {
			seen[fp] = 1
		}
		sev, ok := severities[level]
		if !ok {
			sev = "minor"
		}
		issues = append(issues, cqIssue{Description: text, CheckName: "cardapio/" + rule, Fingerprint: fp, Severity: sev,
			Location: cqLocation{Path: path, Lines: cqLines{Begin: line}}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(issues)
}
