package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/cardapio/cardapio/budget"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/internal/digits"
)

// BudgetMarkdown writes the gate's report in GitHub-flavoured Markdown,
// for a pull-request comment or $GITHUB_STEP_SUMMARY (GitLab renders it
// too): a headline verdict, a table of the variants that need attention
// (all of them when every one passes), measured against budget with the
// delta, why each failure fails, and the comparison with a baseline.
// Verdicts are words as well as symbols, so the table reads without
// colour.
func BudgetMarkdown(w io.Writer, r *budget.Report) {
	s := r.Summary
	head := "✅ pass"
	if !r.OK {
		head = "❌ FAIL"
	}
	fmt.Fprintf(w, "## cardapio budget: %s — %s\n\n", mdText(r.Name), head)
	fmt.Fprintf(w, "%s · measured on the %s (keys %s; %s) · model `%s`\n\n", mdText(verdictLine(r)), mdText(targetWords(r)), mdText(r.Keys), mdText(r.Retry), mdCode(r.Model))
	fmt.Fprintf(w, "The model is %s.\n\n", mdText(checkWords(r.Check)))
	if len(r.Check.Findings) > 0 {
		fmt.Fprintf(w, "### What check finds (each fails the gate)\n\n")
		for _, f := range r.Check.Findings {
			text := findingText(f)
			fence := mdFence(text)
			fmt.Fprintf(w, "**%s** %s\n\n%stext\n%s\n%s\n\n", mdText(f.Kind), mdText(f.Name), fence, text, fence)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "> %s\n", mdText(n))
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	var attention []int
	for i := range r.Results {
		res := &r.Results[i]
		if res.Verdict != budget.Pass || len(res.Drift) > 0 {
			attention = append(attention, i)
		}
	}
	if len(attention) > 0 {
		mdTable(w, r, attention)
		fmt.Fprintln(w)
	}
	all := make([]int, len(r.Results))
	for i := range all {
		all[i] = i
	}
	if len(attention) > 0 {
		fmt.Fprintf(w, "<details><summary>All %s</summary>\n\n", digits.Count(s.Variants, "variant"))
	}
	mdTable(w, r, all)
	if len(attention) > 0 {
		fmt.Fprintf(w, "\n</details>\n")
	}
	fmt.Fprintf(w, "\nΔ is measured minus budget: positive is over, negative is headroom. Static is the estimate from the model's samples and the billing rules.")
	if s.Computed > 0 {
		fmt.Fprintf(w, " \\* computed by the billing rules: the response carried no figure, or one the rules contradict (see the known differences).")
	}
	fmt.Fprintln(w)
	for _, i := range attention {
		res := &r.Results[i]
		if res.Explanation == "" {
			continue
		}
		title := "Why " + res.Name() + " fails"
		switch {
		case res.Verdict == budget.Error:
			title = res.Name() + " could not be measured"
		case res.Verdict == budget.Pass:
			title = res.Name() + ": drift"
		}
		fmt.Fprintf(w, "\n### %s\n\n", mdText(title))
		fence := mdFence(res.Explanation)
		fmt.Fprintf(w, "%stext\n%s\n%s\n", fence, mdBlock(res.Explanation), fence)
	}
	if c := r.Baseline; c != nil {
		fmt.Fprintf(w, "\n### Against the baseline `%s`\n\n", mdCode(c.File))
		fmt.Fprintf(w, "%d dearer, %d cheaper, %d new, %d gone", c.Dearer, c.Cheaper, c.New, c.Gone)
		if c.USDMonth != 0 {
			fmt.Fprintf(w, "; **%s a month** at the model's volumes", usdSigned(c.USDMonth))
		}
		fmt.Fprintf(w, ".\n")
		var rows []budget.Delta
		for _, d := range c.Deltas {
			if d.Status != budget.Same {
				rows = append(rows, d)
			}
		}
		if len(rows) > 0 {
			fmt.Fprintf(w, "\n| Operation / variant | Change | WRU | Δ WRU | RRU | Δ RRU |\n|:--|:--|--:|--:|--:|--:|\n")
			for _, d := range rows {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", mdText(d.Name()), d.Status,
					mdArrow(d.Baseline.WRU, d.Measured.WRU), mdDelta(d.Delta.WRU), mdArrow(d.Baseline.RRU, d.Measured.RRU), mdDelta(d.Delta.RRU))
			}
		}
		if len(c.Operations) > 0 {
			fmt.Fprintf(w, "\n| Operation | Runs a month | US$ a month before | after | Δ US$ a month | Variants weighed |\n|:--|--:|--:|--:|--:|:--|\n")
			for _, o := range c.Operations {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", mdText(o.Operation), estimate.Num(o.Runs), estimate.USD(o.Baseline), estimate.USD(o.Measured), mdText(usdSigned(o.USDMonth)), mdText(o.Basis))
			}
		}
	}
}

func mdTable(w io.Writer, r *budget.Report, rows []int) {
	fmt.Fprintf(w, "| Verdict | Operation / variant | WRU | budget | Δ | RRU | budget | Δ | static WRU / RRU |\n")
	fmt.Fprintf(w, "|:--|:--|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, i := range rows {
		res := &r.Results[i]
		mw, mr := figure(res.Measured.WRU), figure(res.Measured.RRU)
		if res.Measured.Computed {
			mw, mr = mdStar(mw), mdStar(mr)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |\n", mdVerdict(res), mdText(res.Name()),
			mw, limit(res.Budget.WRU), mdOver(res.Measured.WRU, res.Budget.WRU),
			mr, limit(res.Budget.RRU), mdOver(res.Measured.RRU, res.Budget.RRU),
			figure(res.Static.WRU), figure(res.Static.RRU))
	}
}

func mdVerdict(res *budget.Result) string {
	v := ""
	switch res.Verdict {
	case budget.Pass:
		v = "✅ pass"
	case budget.Fail:
		v = "❌ **FAIL**"
	default:
		v = "⚠️ **ERROR**"
	}
	if len(res.Drift) > 0 {
		v += " (drift)"
	}
	return v
}

// mdOver writes measured - budget, bold when over.
func mdOver(measured float64, b *float64) string {
	if b == nil {
		return "-"
	}
	d := measured - *b
	if d > 1e-9 {
		return "**" + signed(d) + "**"
	}
	return signed(d)
}

func mdDelta(d float64) string {
	if d > 0 {
		return "**" + signed(d) + "**"
	}
	return signed(d)
}

func mdArrow(was, now float64) string {
	if was == now {
		return estimate.Num(now)
	}
	return estimate.Num(was) + " → " + estimate.Num(now)
}

func mdStar(s string) string {
	if s == "-" {
		return s
	}
	return s + "\\*"
}

// mdText escapes text for a table cell or a line of Markdown: the
// characters that would start markup, control characters and line breaks
// (written \n), mentions and links (mdEscape).
func mdText(s string) string {
	return mdEscape(s, false, func(b *strings.Builder, r rune) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '~':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	})
}

// mdCode makes s safe inside a one-backtick code span.
func mdCode(s string) string {
	return mdEscape(strings.NewReplacer("`", "'", "|", "\\|").Replace(s), false, nil)
}

// mdBlock makes s safe inside a fenced code block (mdFence): its lines
// kept, control characters escaped, and a line that would begin with
// "::" (a workflow command, should the file be printed in a CI log)
// begun with a backslash.
func mdBlock(s string) string {
	lines := strings.Split(mdEscape(s, true, nil), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			lines[i] = "\\" + l
		}
	}
	return strings.Join(lines, "\n")
}

// mdFence returns a code fence longer than any run of backticks in s.
func mdFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// failureMarkdown writes the Markdown report of a run that ended
// without a verdict: the model's errors at their lines, or what stopped
// the run.
func failureMarkdown(w io.Writer, model string, errs catalog.ErrorList, other error) {
	fmt.Fprintf(w, "### cardapio budget: no verdict on `%s`\n\n", mdCode(model))
	if len(errs) > 0 {
		fmt.Fprintf(w, "The model does not load; nothing was measured.\n\n")
		for _, e := range errs {
			fmt.Fprintf(w, "- `%s:%d:%d`: %s\n", mdCode(model), e.Pos.Line, e.Pos.Col, mdText(errorText(e)))
		}
	}
	if other != nil {
		fmt.Fprintf(w, "The run stopped before its verdict; nothing was judged.\n\n%s\n", mdText(sentence(other.Error())))
	}
}
