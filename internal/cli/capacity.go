package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/internal/digits"
	"github.com/cardapio/cardapio/internal/files"
)

func init() { commands = append(commands, newCapacityCmd) }

func newCapacityCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "capacity",
		Short: "Item sizes and the capacity units DynamoDB charges for them",
	}
	c.AddCommand(newCapacityItemCmd(e))
	return c
}

type itemOptions struct {
	format  string
	jsonl   bool
	numbers string
	workers int
}

func newCapacityItemCmd(e *env) *cobra.Command {
	o := itemOptions{}
	c := &cobra.Command{
		Use:   "item FILE",
		Short: "Size and units of one item in DynamoDB JSON (FILE or - for stdin)",
		Long: `Size one item in DynamoDB JSON wire format ({"pk":{"S":"a"},...}) and
print its read and write units, explaining the size attribute by attribute.

With --jsonl, FILE holds one item per line: the command prints the count,
total bytes, size percentiles (exact, nearest rank) and total units. A bad
line is reported with its line number and skipped, so that one run shows
every bad line and the statistics of all good ones; any bad line makes the
exit code 2.

Errors go to stderr as FILE:line:column: message (stdin for -); stdout
holds the figures only when the item is sized, and with --jsonl the
statistics of the good lines. Exit codes: 0 ok; 2 a malformed item, an
item over 400 KB, or a bad flag.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runCapacityItem(e, o, args[0]) },
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.BoolVar(&o.jsonl, "jsonl", false, "FILE is a stream of items, one per line")
	f.StringVar(&o.numbers, "numbers", "measured", "number size model: measured or pairs")
	rangeVar(f, &o.workers, "workers", runtime.GOMAXPROCS(0), between(1, 1024), "goroutines decoding a --jsonl stream")
	return c
}

func runCapacityItem(e *env, o itemOptions, file string) error {
	var rules capacity.Rules
	switch o.numbers {
	case "measured":
	case "pairs":
		rules.Numbers = capacity.NumberDigitPairs
	default:
		return badInput(fmt.Errorf("--numbers: want measured or pairs, got %q", o.numbers))
	}
	if o.format != "text" && o.format != "json" {
		return badInput(fmt.Errorf("--format: want text or json, got %q", o.format))
	}
	in, name, err := openItemFile(e, file)
	if err != nil {
		return badInput(err)
	}
	defer in.Close()
	if o.jsonl {
		return runItemStream(e, o, rules, in, name)
	}
	// An item is at most 400 KB; its JSON, base64 and indentation
	// included, stays far below this. Reading no more keeps a stream
	// passed by mistake from filling memory.
	const maxItemJSON = 16 << 20
	data, err := io.ReadAll(io.LimitReader(in, maxItemJSON+1))
	if err != nil {
		return badInput(fmt.Errorf("read %s: %w", name, err))
	}
	if len(data) > maxItemJSON {
		return badInput(fmt.Errorf("%s: over 16 MB, too large for one item (a stream of items needs --jsonl)", name))
	}
	it, err := attr.DecodeItem(data)
	if err != nil {
		var se *attr.SyntaxError
		if errors.As(err, &se) {
			err = fmt.Errorf("%s:%d:%d: %s", name, se.Line, se.Column, se.Msg)
		} else {
			err = fmt.Errorf("%s: %w", name, err)
		}
		if w := wrapperKey(data); w != "" {
			err = fmt.Errorf("%w\nhint: this is a response with the item under %q: give the item itself", err, w)
		}
		return badInput(err)
	}
	if err := rules.CheckItem(nil, it); err != nil {
		return badInput(fmt.Errorf("%s: %w", name, err))
	}
	size := rules.ItemSize(it)
	w := bufio.NewWriter(e.stdout)
	if o.format == "json" {
		if err := json.NewEncoder(w).Encode(capacity.UnitsOf(size)); err != nil {
			return err
		}
		return w.Flush()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ATTRIBUTE\tTYPE\tNAME\tVALUE\tSIZE\tHOW")
	for _, p := range rules.Breakdown(it, 20) {
		how := p.Note
		if p.Element > 0 {
			how = "+1 element; " + how
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%d\t%d\t%s\n", strings.Repeat("  ", p.Depth), p.Name, p.Type, p.NameBytes, p.ValueBytes, p.Size(), how)
	}
	tw.Flush()
	fmt.Fprintln(w)
	writeUnitsSummary(w, size)
	return w.Flush()
}

// writeUnitsSummary prints an item's size and what reading and writing it
// costs.
func writeUnitsSummary(w io.Writer, size int) {
	wu := capacity.WriteUnits(size)
	fmt.Fprintf(w, "size   %s B (limit 409,600 B)\n", thousands(int64(size)))
	fmt.Fprintf(w, "write  %s WRU per write (1 KB units), %s in a transaction\n", unitText(wu), unitText(2*wu))
	fmt.Fprintf(w, "read   %s RRU strong (4 KB units), %s eventual, %s transactional\n",
		unitText(capacity.ReadUnits(size, capacity.Strong)), unitText(capacity.ReadUnits(size, capacity.Eventual)),
		unitText(capacity.ReadUnits(size, capacity.Transactional)))
}

func runItemStream(e *env, o itemOptions, rules capacity.Rules, in io.Reader, name string) error {
	// Decoding leaves about 2 KB of garbage per item over a live heap of a
	// few MB: with the default GC target the collector would run every few
	// thousand items and take a third of the time. A higher target costs
	// tens of MB at most.
	defer debug.SetGCPercent(debug.SetGCPercent(800))
	st, err := rules.SizeStream(in, o.workers)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", name, err))
	}
	h := &st.Sizes
	wr, rd := h.Units()
	w := bufio.NewWriter(e.stdout)
	if o.format == "json" {
		fmt.Fprintf(w, `{"items":%d,"badLines":%d,"totalBytes":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,`+
			`"writeUnits":%s,"readUnitsStrong":%s,"readUnitsEventual":%s,"transactWriteUnits":%s,"transactReadUnits":%s}`+"\n",
			h.Count(), st.BadLines, h.Total(), h.Percentile(50), h.Percentile(90), h.Percentile(99), h.Max(),
			unitText(wr), unitText(rd), unitText(rd/2), unitText(2*wr), unitText(2*rd))
	} else {
		fmt.Fprintf(w, "items       %s\n", thousands(int64(h.Count())))
		if st.BadLines > 0 {
			fmt.Fprintf(w, "bad lines   %s (skipped)\n", thousands(int64(st.BadLines)))
		}
		fmt.Fprintf(w, "total       %s B\n", thousands(int64(h.Total())))
		fmt.Fprintf(w, "size        p50 %s B, p90 %s B, p99 %s B, max %s B\n",
			thousands(int64(h.Percentile(50))), thousands(int64(h.Percentile(90))), thousands(int64(h.Percentile(99))), thousands(int64(h.Max())))
		fmt.Fprintf(w, "write once  %s WRU, %s in transactions\n", groupUnits(wr), groupUnits(2*wr))
		fmt.Fprintf(w, "read once   %s RRU strong, %s eventual, %s transactional (each item rounded alone)\n", groupUnits(rd), groupUnits(rd/2), groupUnits(2*rd))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if st.BadLines == 0 {
		return nil
	}
	for _, b := range st.Bad {
		if b.Column > 0 {
			fmt.Fprintf(e.stderr, "cardapio: %s:%d:%d: %s\n", name, b.Line, b.Column, b.Msg)
		} else {
			fmt.Fprintf(e.stderr, "cardapio: %s:%d: %s\n", name, b.Line, b.Msg)
		}
	}
	if more := st.BadLines - len(st.Bad); more > 0 {
		fmt.Fprintf(e.stderr, "cardapio: %s: and %s more bad lines\n", name, thousands(int64(more)))
	}
	return reported(ExitBadInput, fmt.Errorf("%s: %d bad lines", name, st.BadLines))
}

// wrapperKey returns "Item" or "Attributes" when data is an object whose
// only key is that name: the output of get-item or update-item pasted
// whole, a common mistake.
func wrapperKey(data []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || len(top) != 1 {
		return ""
	}
	for _, k := range []string{"Item", "Attributes"} {
		if _, ok := top[k]; ok {
			return k
		}
	}
	return ""
}

// openItemFile opens FILE, or stdin for "-".
func openItemFile(e *env, file string) (io.ReadCloser, string, error) {
	if file == "-" {
		return io.NopCloser(e.stdin), "stdin", nil
	}
	f, err := files.Open(file)
	if err != nil {
		return nil, file, err
	}
	return f, file, nil
}

// unitText writes a unit count as a JSON number: 2, 0.5.
func unitText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// groupUnits writes a unit count with thousands separators: 1,000,000.5.
func groupUnits(f float64) string {
	s := unitText(f)
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return s
	}
	if frac != "" {
		return thousands(n) + "." + frac
	}
	return thousands(n)
}

// thousands writes n with thousands separators.
func thousands(n int64) string { return digits.Group(strconv.FormatInt(n, 10)) }
