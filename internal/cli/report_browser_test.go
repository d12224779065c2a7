package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The report is opened in a real browser, headless Chromium, as a user
// (or a CI artifact viewer) would: at 1280 px, with a probe that the
// test adds to a copy of the page (the report itself carries no script)
// and whose findings it reads back from the rendered DOM. CI installs
// Debian's chromium; without it the test says so and skips.

// probe runs after the page has loaded and writes what it finds into a
// <pre id="cardapio-probe"> as JSON.
const probe = `<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || e)));
const origError = console.error;
console.error = (...a) => { window.__errors.push(a.join(' ')); origError(...a); };
window.addEventListener('load', () => {
  const out = {charts: [], small: [], errors: window.__errors, fetched: performance.getEntriesByType('resource').map(r => r.name),
    width: document.documentElement.scrollWidth, sections: [...document.querySelectorAll('section')].map(s => s.id)};
  for (const svg of document.querySelectorAll('svg.chart')) {
    const r = svg.getBoundingClientRect();
    out.charts.push({id: svg.id, section: (svg.closest('section') || {}).id || '', width: r.width, height: r.height,
      marks: svg.querySelectorAll('rect, path, circle, line').length, texts: svg.querySelectorAll('text').length,
      title: (svg.querySelector(':scope > title') || {}).textContent || '', desc: (svg.querySelector(':scope > desc') || {}).textContent || ''});
    for (const t of svg.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
      if (px < 12 && out.small.length < 20) out.small.push(svg.id + ': ' + t.textContent + ' at ' + px.toFixed(1) + 'px');
    }
  }
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest('svg, script, pre#cardapio-probe')) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < 12 && out.small.length < 20) out.small.push(el.tagName + ': ' + n.textContent.trim().slice(0, 40) + ' at ' + px + 'px');
  }
  const pre = document.createElement('pre');
  pre.id = 'cardapio-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>`

type probedChart struct {
	ID, Section   string
	Width, Height float64
	Marks, Texts  int
	Title, Desc   string
}

type probed struct {
	Charts   []probedChart
	Small    []string
	Errors   []string
	Fetched  []string
	Width    float64
	Sections []string
}

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: the report is not checked in a browser (CI installs Debian's chromium; locally: apt-get install chromium)")
	return ""
}

// browse runs headless Chromium on a file at 1280 px wide, with args (its
// action: --dump-dom or --screenshot=FILE), and returns stdout and
// stderr.
func browse(t *testing.T, bin, file string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--disable-component-update", "--mute-audio",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0",
		// Nothing may be fetched: any request outside the file goes to a
		// closed loopback port.
		"--proxy-server=http://127.0.0.1:9", "--window-size=1280,2000"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), "chromium: %s", errb.String())
	return out.String(), errb.String()
}

// consoleError matches Chromium's log line of a page's console error or
// an uncaught exception.
var consoleError = regexp.MustCompile(`(?m)^.*CONSOLE.*(?:ERROR|Uncaught).*$|^.*:ERROR:CONSOLE.*$`)

func TestReportInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		want []string // sections drawn with charts
	}{
		// The reference model with every kind of result: the static
		// budgets, a load run's and a plan's files, another model beside it.
		{"reference", []string{"report", "../../model.yaml", "--no-measure", "--compare", "../../examples/orders/model.yaml",
			"--load", "../../reports/html/testdata/load.jsonl", "--plan", "../../reports/html/testdata/plan.json"},
			[]string{"map", "budgets", "cost", "compare", "load", "plan"}},
		// The orders example as a first report: the gate run now on the
		// embedded engine, the missing sections named.
		{"orders", []string{"report", "../../examples/orders/model.yaml"}, []string{"map", "budgets", "cost"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name+".html")
			run := runCLI(append(c.args, "--out", file), nil)
			require.Equal(t, 0, run.code, run.stderr)
			page, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NotContains(t, string(page), "<script", "the report carries no script")
			probedFile := filepath.Join(dir, c.name+"-probe.html")
			require.NoError(t, os.WriteFile(probedFile, bytes.Replace(page, []byte("<head>"), []byte("<head>"+probe), 1), 0o644))

			dom, logs := browse(t, bin, probedFile, "--dump-dom")
			assert.Empty(t, consoleError.FindAllString(logs, -1), "console errors")
			m := regexp.MustCompile(`(?s)<pre id="cardapio-probe">(.*?)</pre>`).FindStringSubmatch(dom)
			require.NotNil(t, m, "the probe did not run: %s", logs)
			var got probed
			require.NoError(t, json.Unmarshal([]byte(htmlUnescape(m[1])), &got))
			assert.Empty(t, got.Errors, "script errors")
			assert.Empty(t, got.Fetched, "the report fetched something")
			assert.Empty(t, got.Small, "text smaller than 12 px at 1280 px")
			assert.LessOrEqual(t, got.Width, 1280.0, "the page is wider than the window")
			drawn := map[string]bool{}
			for _, ch := range got.Charts {
				assert.Greater(t, ch.Width, 300.0, ch.ID)
				assert.Greater(t, ch.Height, 50.0, ch.ID)
				assert.Greater(t, ch.Marks, 3, "%s: an empty chart", ch.ID)
				assert.Greater(t, ch.Texts, 2, "%s: a chart without labels", ch.ID)
				assert.NotEmpty(t, ch.Title, ch.ID)
				assert.NotEmpty(t, ch.Desc, ch.ID)
				drawn[ch.Section] = true
			}
			for _, s := range c.want {
				assert.True(t, drawn[s], "no chart drawn in section %s (drawn: %v)", s, drawn)
			}
			if slices.Contains(c.want, "load") {
				// The load run's units over time, per table and index:
				// each such chart passed the checks above (sized, marked,
				// labelled); GSI1's writes are among them.
				units := 0
				for _, ch := range got.Charts {
					if strings.Contains(ch.ID, "load-units-") {
						units++
						assert.Contains(t, ch.Title, "consumed against the limit", ch.ID)
					}
				}
				assert.GreaterOrEqual(t, units, 3, "charts of units over time in the load section")
				assert.True(t, slices.ContainsFunc(got.Charts, func(ch probedChart) bool { return ch.Title == "GSI1 writes: consumed against the limit, at full scale" }), "GSI1's writes over time")
			}
			assert.Subset(t, got.Sections, []string{"map", "budgets", "cost", "compare", "load", "plan"})

			shot := filepath.Join(dir, c.name+".png")
			browse(t, bin, file, "--screenshot="+shot)
			f, err := os.Open(shot)
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err)
			assert.Equal(t, 1280, img.Bounds().Dx())
			// Not a blank page: many pixels are far from white.
			dark := 0
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 4 {
				for x := b.Min.X; x < b.Max.X; x += 4 {
					r, g, bl, _ := img.At(x, y).RGBA()
					if r+g+bl < 3*0x8000 {
						dark++
					}
				}
			}
			assert.Greater(t, dark, 2000, "the screenshot is nearly blank")
			// Printed: the print style gives a PDF of several pages.
			pdf := filepath.Join(dir, c.name+".pdf")
			browse(t, bin, file, "--no-pdf-header-footer", "--print-to-pdf="+pdf)
			doc, err := os.ReadFile(pdf)
			require.NoError(t, err)
			assert.True(t, bytes.HasPrefix(doc, []byte("%PDF-")), "not a PDF")
			pages := regexp.MustCompile(`/Type\s*/Pages\b[^>]*?/Count (\d+)|/Count (\d+)`).FindSubmatch(doc)
			require.NotNil(t, pages, "no page count in the PDF")
			assert.NotContains(t, []string{"0", "1"}, string(append(pages[1], pages[2]...)), "one page or none printed")
			if keep := os.Getenv("CARDAPIO_SCREENSHOTS"); keep != "" {
				data, _ := os.ReadFile(shot)
				_ = os.WriteFile(filepath.Join(keep, c.name+".png"), data, 0o644)
			}
		})
	}
}

func htmlUnescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&amp;", "&").Replace(s)
}
