package workshop

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page is driven in a real browser, Debian's headless Chromium, as
// a room would use it: opened with the token (and refused without), the
// file edited on disk and the page seen to change, a question and an
// operation run and their units read, a what-if tried, with no console
// error, at 1280x720. CI installs chromium; without it the test skips.
// -screenshots writes the reference model's screenshots under docs/.

var screenshots = flag.Bool("screenshots", false, "write the workshop page's screenshots under docs/")

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: the workshop page is not checked in a browser (CI installs Debian's chromium; locally: apt-get install chromium)")
	return ""
}

// saves is how many saves the push latency is measured over.
const saves = 20

func TestWorkshopInBrowser(t *testing.T) {
	bin := chromium(t)
	for _, c := range []struct{ name, model, shots string }{
		{"reference", "../model.yaml", "workshop"},
		{"orders", "../examples/orders/model.yaml", ""},
		// A model no other test knows.
		{"rooms", "testdata/rooms.yaml", ""},
	} {
		t.Run(c.name, func(t *testing.T) { drive(t, bin, c.model, c.shots) })
	}
}

// console collects what the page logs as errors.
type console struct {
	mu   sync.Mutex
	errs []string
}

func (c *console) add(s string) {
	c.mu.Lock()
	c.errs = append(c.errs, s)
	c.mu.Unlock()
}

func (c *console) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.errs
	c.errs = nil
	return out
}

func drive(t *testing.T, bin, model, shots string) {
	r := start(t, model)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 720), chromedp.UserDataDir(t.TempDir()),
		// Nothing may be fetched but the page's own server (loopback is
		// never proxied): everything else goes to a closed port.
		chromedp.ProxyServer("http://127.0.0.1:9"))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer acancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	do := func(steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx, steps...))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		require.NoError(t, err, sel)
		return s
	}

	// Refused without the token.
	do(chromedp.Navigate(r.base + "/"))
	// The browser runs now: every step after is bounded (a timeout on
	// the first run would stop the browser itself).
	ctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
	defer tcancel()
	body := text("body")
	assert.Contains(t, body, "refused")
	assert.NotContains(t, body, "Access patterns")

	// From here on, whatever the page logs as an error or a warning is
	// collected (the 403 above was asked for).
	con := &console{}
	cctx, ccancel := context.WithCancel(ctx)
	defer ccancel()
	msgs := chromedp.Console(cctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
				con.add(m.String() + " " + m.URL)
			}
		}
	}()

	// Opened with it; the first load timed.
	begin := time.Now()
	do(chromedp.Navigate(r.s.URL()), chromedp.WaitVisible(chromedp.CSS("#findings")), chromedp.WaitReady(chromedp.CSS("#controls")))
	load := time.Since(begin)
	navMS, err := chromedp.Run(ctx, chromedp.Poll[float64](`(() => { const n = performance.getEntriesByType('navigation')[0]; return n && n.loadEventEnd > 0 ? n.loadEventEnd : 0 })()`))
	require.NoError(t, err)
	t.Logf("first page load: %s to the page shown (navigation timing: %.0f ms to the load event)", load.Round(time.Millisecond), navMS)
	loc, err := chromedp.Run(ctx, chromedp.Location())
	require.NoError(t, err)
	assert.NotContains(t, loc, "token=", "the token leaves the address bar")
	do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.querySelector('#conn').textContent.includes('following')`)(ctx, tg)
		return err
	}))
	assert.Contains(t, text("#conn"), "following the file")
	shot(t, ctx, shots, "")

	// Keyboard: the first Tab reaches the skip link, which leads to the
	// model.
	do(chromedp.KeyEvent("\t"))
	active, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.className`))
	require.NoError(t, err)
	assert.Equal(t, "skip", active)

	// The file edited on disk: the page changes without a reload. A
	// broken save shows the error at its line; the next save fixes it.
	snap := r.s.Snapshot()
	gen := snap.Gen
	original := snap.Text
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__seen = {};
new MutationObserver(() => { const l = document.querySelector('#live').dataset; const k = l.gen + (l.full === 'true' ? ':full' : '');
  if (!(k in window.__seen)) window.__seen[k] = Date.now(); })
  .observe(document.querySelector('#live'), {attributes: true, attributeFilter: ['data-gen', 'data-full']}); true`))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(r.path, append(append([]byte{}, original...), "\nbroken: [\n"...), 0o644))
	gen++
	do(waitGen(gen), waitFull())
	assert.Equal(t, "REFUSED", text("#verdict"))
	assert.Contains(t, text("#findings"), "[error]")
	require.NoError(t, os.WriteFile(r.path, original, 0o644))
	gen++
	do(waitGen(gen), waitFull())
	assert.Contains(t, []string{"PASS", "FAIL"}, text("#verdict"))
	// A finding opens to the text around its line.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.finding details').length`))
	require.NoError(t, err)
	if n > 0 {
		do(chromedp.Click(chromedp.CSS(".finding summary")), chromedp.WaitVisible(chromedp.CSS(".finding pre.context")))
		assert.Contains(t, text(".finding pre.context"), "▶")
	}

	// Re-check and push, measured over saves: each save a real change
	// of the text (a comment), the latency from the write to the page's
	// new version in its DOM (its verdict, findings, map, budgets and
	// peaks), and to the same version's month and items.
	var lat, full []time.Duration
	for i := 0; i < saves; i++ {
		edited := append(append([]byte{}, original...), fmt.Sprintf("\n# workshop save %d\n", i)...)
		t0 := time.Now()
		require.NoError(t, os.WriteFile(r.path, edited, 0o644))
		gen++
		do(waitGen(gen), waitFull())
		seen, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`[window.__seen["%d"] || 0, window.__seen["%d:full"]]`, gen, gen)))
		require.NoError(t, err)
		if seen[0] == 0 { // both arrived in one frame
			seen[0] = seen[1]
		}
		lat = append(lat, time.UnixMilli(int64(seen[0])).Sub(t0))
		full = append(full, time.UnixMilli(int64(seen[1])).Sub(t0))
		time.Sleep(60 * time.Millisecond)
	}
	t.Logf("re-check and push after a save, %d saves of %s: verdict, findings, map, budgets, peaks: %s; with the month and the items: %s",
		saves, model, spread(lat), spread(full))

	// Ask a question: a read with parameters suggested from the
	// population (the first that finds items), its pages and read units
	// shown.
	v := newView(r.s.Snapshot(), "")
	asked := 0
	for _, o := range v.Ops {
		if o.Writes || len(o.Suggestions) == 0 || asked == 5 {
			continue
		}
		asked++
		ask(t, ctx, o.Name, false)
		rru := text("#answer-rru")
		assert.Regexp(t, `^[0-9.]+ RRU$`, rru)
		assert.NotEqual(t, "0 RRU", rru, "a read costs units")
		if !strings.Contains(text("#answer"), " 0 items") {
			break
		}
	}
	require.Greater(t, asked, 0, "a question with suggested parameters")
	do(chromedp.ScrollIntoView(chromedp.CSS("#answer")))
	shot(t, ctx, shots, "ask")
	// Run an operation: the first write, from its starting state.
	write := slices.IndexFunc(v.Ops, func(o opView) bool { return o.Writes })
	require.GreaterOrEqual(t, write, 0)
	ask(t, ctx, v.Ops[write].Name, true)
	wru, changes := text("#answer-wru"), text("#answer")
	assert.Regexp(t, `^[0-9.]+ WRU$`, wru)
	assert.NotEqual(t, "0 WRU", wru, "%s writes: %s", v.Ops[write].Name, changes)
	assert.Contains(t, changes, "Items and index entries changed")

	// What if: the first table's billing mode switched, and a shard
	// count doubled where the model shards an index.
	js := `(() => { const s = document.querySelector('#whatif-form select[name^="billing."]');
  s.value = s.value === 'onDemand' ? 'provisioned' : 'onDemand'; s.dispatchEvent(new Event('change', {bubbles: true}));
  const n = document.querySelector('#whatif-form input[name^="shards."]');
  let shards = '';
  if (n) { n.value = String(2 * Number(n.value)); shards = n.value; }
  document.querySelector('#whatif-try').click(); return s.value + '=' + shards; })()`
	tried, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	require.NoError(t, err)
	do(chromedp.WaitVisible(chromedp.CSS("#whatif-result > *")))
	out := text("#whatif-result")
	require.Contains(t, out, "With the change", out)
	mode, shards, _ := strings.Cut(tried, "=")
	assert.Contains(t, out, mode)
	if shards != "" {
		// The index's hottest partition takes half what it took.
		assert.Contains(t, out, shards+" shards")
		assert.Contains(t, out, "(changed)")
	}
	do(chromedp.ScrollIntoView(chromedp.CSS("#whatif-result")))
	shot(t, ctx, shots, "whatif")
	// The table's first partitions and an index's, opened from the
	// keyboard.
	do(chromedp.Focus(chromedp.CSS("#items details.structure summary")), chromedp.KeyEvent("\r"),
		chromedp.ScrollIntoView(chromedp.CSS("#items details.structure")))
	open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('#items details.structure').open`))
	require.NoError(t, err)
	assert.True(t, open, "Enter opens a group of items")
	shot(t, ctx, shots, "items")

	// Printable: the print style gives a PDF.
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF())
	require.NoError(t, err)
	assert.Greater(t, len(pdf), 10000)

	// No width past the window, and nothing logged as an error.
	width, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth`))
	require.NoError(t, err)
	assert.LessOrEqual(t, width, 1280.0, "the page is wider than the window")
	time.Sleep(100 * time.Millisecond)
	assert.Empty(t, con.take(), "console errors")
}

// waitGen waits until the page shows the model's version gen.
func waitGen(gen int) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](fmt.Sprintf(`document.querySelector('#live').dataset.gen === "%d"`, gen), chromedp.WithPollingInterval(5*time.Millisecond))(ctx, t)
		return err
	})
}

// waitFull waits until the version shown has its month and items.
func waitFull() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.querySelector('#live').dataset.full === "true"`, chromedp.WithPollingInterval(5*time.Millisecond))(ctx, t)
		return err
	})
}

// spread writes the p50, p95 and max of durations.
func spread(ds []time.Duration) string {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	r := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	return fmt.Sprintf("p50 %s, p95 %s, max %s", r(ds[len(ds)/2]), r(ds[(len(ds)*95+99)/100-1]), r(ds[len(ds)-1]))
}

// ask runs an operation from the page's form and waits for its answer:
// a question with the first parameter set suggested from the population,
// a write (seed) with the model's samples, from the state its variant
// starts from.
func ask(t *testing.T, ctx context.Context, op string, seed bool) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const sel = document.querySelector('#op'); sel.value = %q; sel.dispatchEvent(new Event('change', {bubbles: true}));
  const fs = document.querySelector('fieldset.op[data-op="' + CSS.escape(%q) + '"]');
  const sg = fs.querySelector('select.suggest');
  if (sg && sg.options.length > 1 && !%v) { sg.value = '0'; sg.dispatchEvent(new Event('change', {bubbles: true})); }
  const seed = fs.querySelector('input[name="seed"]'); if (seed) seed.checked = %v;
  document.querySelector('#answer').innerHTML = '';
  document.querySelector('#ask-run').click(); return true; })()`, op, op, seed, seed)
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#answer > *")), chromedp.ScrollIntoView(chromedp.CSS("#ask"))))
	got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#answer")))
	require.NoError(t, err)
	require.NotContains(t, got, "Refused", op)
}

// shot writes a 1280x720 screenshot of the viewport under docs/ when
// -screenshots is given and the case has a name for it.
func shot(t *testing.T, ctx context.Context, name, part string) {
	t.Helper()
	if !*screenshots || name == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	file := name + ".png"
	if part != "" {
		file = name + "-" + part + ".png"
	}
	require.NoError(t, os.WriteFile(filepath.Join("..", "docs", file), buf, 0o644))
}
