package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/budget"
)

// decodeReport reads the gate's JSON report.
func decodeReport(t *testing.T, out string) *budget.Report {
	t.Helper()
	rep, err := budget.ReadBaseline("stdout", strings.NewReader(out))
	require.NoError(t, err, "stdout is the JSON report: %q", out)
	return rep
}

// The regressions the reference design warns about, planted in copies of
// a model: each copy must make cardapio budget exit 3 and name the cause
// at the line that decides it, while the model itself passes. The copies
// are committed under testdata/budget/regressions (runnable by hand:
// cardapio budget testdata/budget/regressions/gsi1-projects-all.yaml);
// they are made from the current model by the edits below, and
// go test ./internal/cli -run Regressions -update writes them again when
// the model changes.

// edit replaces text in a model. In, when set, restricts the replacement
// to the part of the model between the first line equal to In and the
// next line of the same indentation or less.
type edit struct {
	in       string
	old, new string
	all      bool // every occurrence (in the part); otherwise exactly one
	// after, when set, adds text after every line of the part that
	// matches it (a regular expression).
	after string
	// drop, when set, removes the lines of the part that match it.
	drop string
}

// regression is a planted fault and what the gate must say about it.
type regression struct {
	name  string
	model string // the model it is planted in
	why   string // the comment written at the top of the copy
	edits []edit
	only  []string // the variants to measure (the whole model when empty)
	// fails are the variants that must fail; cause the kind of the
	// dearest cause of the first and path where it points (or, when
	// cause is empty, the place of the budget it exceeds), and words
	// its explanation contains.
	fails []string
	cause string
	path  string
	words []string
}

// contractLists are list attributes embedding promises and status history
// in the contract item.
const contractLists = `        promises:
          - {dueOn: "2026-08-15", amountCents: 48790, status: BROKEN, madeAt: "2026-08-10T14:02:11Z", channel: CALL}
          - {dueOn: "2026-09-05", amountCents: 48790, status: BROKEN, madeAt: "2026-08-28T10:15:42Z", channel: APP}
          - {dueOn: "2026-09-30", amountCents: 97580, status: PENDING, madeAt: "2026-09-20T12:00:04Z", channel: SMS}
        statusHistory:
          - {at: "2026-07-11T03:00:00Z", status: IN_COLLECTION, reason: OLDEST_INSTALLMENT_OVERDUE, by: scheduler}
          - {at: "2026-08-10T03:00:00Z", status: IN_COLLECTION, reason: BUCKET_D031_060, by: scheduler}
          - {at: "2026-08-15T18:22:01Z", status: IN_COLLECTION, reason: PROMISE_BROKEN, by: scheduler}
          - {at: "2026-09-05T18:22:01Z", status: IN_COLLECTION, reason: PROMISE_BROKEN, by: scheduler}
          - {at: "2026-09-20T12:00:04Z", status: IN_COLLECTION, reason: PROMISE_MADE, by: operator-0172}
          - {at: "2026-09-21T09:41:12Z", status: IN_COLLECTION, reason: CONTACT_ANSWERED, by: operator-0172}
`

var regressions = []regression{
	{
		name:  "embedded-lists",
		model: "../../model.yaml",
		why:   "promises and status history embedded as lists in CONTRACT: the item crosses 1 KB, so every write of a contract pays 2 WRU (4 in a transaction)",
		edits: []edit{
			{in: "attributes:", old: "  updatedAt:\n", new: "  promises:\n    type: L\n    description: The contract's payment promises, embedded in the contract item.\n  statusHistory:\n    type: L\n    description: The contract's status changes, embedded in the contract item.\n  updatedAt:\n"},
			{in: "  CONTRACT:", old: "      updatedAt: required\n", new: "      updatedAt: required\n      promises: optional\n      statusHistory: optional\n"},
			{in: "  CONTRACT:", after: `^        updatedAt: "[^"]*"$`, new: contractLists},
		},
		only:  []string{"ApplySettlement", "MoveBucket", "RescheduleNextAction"},
		fails: []string{"ApplySettlement/cures", "ApplySettlement/partial", "ApplySettlement/on-time", "ApplySettlement/duplicate", "MoveBucket/move", "RescheduleNextAction/move", "RescheduleNextAction/race"},
		cause: "item-size",
		path:  "entities.CONTRACT.attributes.statusHistory",
		words: []string{"CONTRACT is", "over 1 KB", "statusHistory (L,", "promises (L,"},
	},
	{
		name:  "gsi1-projects-all",
		model: "../../model.yaml",
		why:   "GSI1 projects ALL: every agenda entry carries the whole item, so the dunning pages sum past their budgets",
		edits: []edit{
			{in: "  GSI1:", old: "    projection:\n      type: INCLUDE\n      attributes: [debtorKey, bucket, outstandingCents, channelPrefs]\n", new: "    projection: {type: ALL}\n"},
		},
		only:  []string{"DunningAgenda", "PromisesDue", "BureauEligible"},
		fails: []string{"DunningAgenda/page-per-shard", "PromisesDue/page-per-shard", "BureauEligible/page-per-shard"},
		cause: "page",
		path:  "indexes.GSI1.projection",
		words: []string{"one page of step agenda sums", "GSI1 projects ALL attributes", "read 16 times by the step"},
	},
	{
		name:  "days-past-due-keys-gsi2",
		model: "../../model.yaml",
		why:   "daysPastDue stored and keying GSI2: the nightly recompute moves every delinquent contract in the index (delete + put)",
		edits: []edit{
			{in: "  daysPastDue:", old: "    calendarDerived: true\n    stored: false\n", new: ""},
			{in: "  daysPastDue:", drop: `^    derivation: .*$`},
			{in: "  daysPastDue:", old: "    description: Days past due of a contract.\n", new: "    description: Days past due of a contract, stored and recomputed every night.\n"},
			{in: "  CONTRACT:", old: "      oldestOverdueDueDate: {presence: optional, when: {status: IN_COLLECTION}}\n", new: "      oldestOverdueDueDate: {presence: optional, when: {status: IN_COLLECTION}}\n      daysPastDue: optional\n"},
			{in: "  CONTRACT:", after: `^        tenantId: t042$`, new: "        daysPastDue: 45\n"},
			{in: "  GSI2:", old: "    sort: [outstandingCents, contractId]\n", new: "    sort: [daysPastDue, outstandingCents, contractId]\n"},
			{in: "  GSI2:", old: "{outstandingCents:012}#{contractId}", new: "{daysPastDue:04}#{outstandingCents:012}#{contractId}"},
			{in: "operations:", old: "  MoveBucket:\n", new: `  RecomputeDaysPastDue:
    description: The nightly job that stores each delinquent contract's days past due.
    trigger: nightly scheduler
    params:
      tenantId: {sample: t042}
      debtorKey: {sample: 9f2c1a7e4b0d3e61}
      contractId: {sample: C-2026-004512}
      days: {attribute: daysPastDue, sample: 46}
    volume: {perDay: 2000000, when: "00:00, every delinquent contract"}
    steps:
      - id: recompute
        update:
          entity: CONTRACT
          update: "SET daysPastDue = :d"
          values: {":d": "{days}"}
          before: full
    budgets:
      nightly:
        wru: 1
        reasoning: one small update of an item under 1 KB
  MoveBucket:
`},
		},
		only:  []string{"RecomputeDaysPastDue"},
		fails: []string{"RecomputeDaysPastDue/nightly"},
		cause: "index-key-change",
		path:  "indexes.GSI2.sort[0]",
		words: []string{"changes the key of GSI2 (daysPastDue 45 -> 46)", "deletes the old entry and puts the new one"},
	},
	{
		name:  "budget-lowered",
		model: "../../model.yaml",
		why:   "the budget of ApplySettlement/cures lowered by one unit, below what the operation must consume",
		edits: []edit{
			{in: "      cures:", old: "        wru: 8\n", new: "        wru: 7\n"},
		},
		only:  []string{"ApplySettlement/cures"},
		fails: []string{"ApplySettlement/cures"},
		path:  "operations.ApplySettlement.budgets.cures.wru",
		words: []string{"measured 8 WRU against a budget of 7: 1 WRU over", "nothing in the design makes this variant dearer", "operations.ApplySettlement.budgets.cures.wru"},
	},
}

// orderNotes are support notes embedded as a list in the order item.
const orderNotes = `        notes:
          - {at: "2026-09-24T09:30:00.250Z", author: ana.support, text: "Customer called: deliver to the building's reception, the doorman signs for it; she works from home on Tuesdays and Thursdays.", visibility: INTERNAL}
          - {at: "2026-09-24T11:02:41.090Z", author: ana.support, text: "Customer asked for a different colour of the cap; told her the order is already being picked and a change means cancelling and buying again.", visibility: CUSTOMER}
          - {at: "2026-09-24T15:47:13.500Z", author: carrier-bot, text: "Carrier could not reach the address: the street number is missing in the label; address confirmed with the customer by chat, label reprinted.", visibility: INTERNAL}
          - {at: "2026-09-25T08:12:09.004Z", author: rafael.support, text: "Customer complained of the delay; offered free shipping on the next order as a goodwill gesture, coupon FRETE-7731 issued.", visibility: CUSTOMER}
`

// ordersRegressions are the orders system's planted faults.
var ordersRegressions = []regression{
	{
		name:  "orders-history-projects-all",
		model: "../../examples/orders/model.yaml",
		why:   "byCustomer projects ALL (\"the app may want the lines some day\"): every history entry carries the line items and external ids, so a page of 20 sums past one read unit, and every change of the order rewrites its entry",
		edits: []edit{
			{in: "  byCustomer:", old: "    projection:\n      type: INCLUDE\n      attributes: [status, totalCents, currency, itemCount]\n", new: "    projection: {type: ALL}\n"},
		},
		only:  []string{"CustomerOrders", "ClaimNextOrder", "AttachInvoice"},
		fails: []string{"CustomerOrders/page", "ClaimNextOrder/claimed", "AttachInvoice/new"},
		cause: "page",
		path:  "indexes.byCustomer.projection",
		words: []string{"one page of step history sums", "byCustomer projects ALL attributes", "each entry carries lineItems (L,"},
	},
	{
		name:  "orders-embedded-notes",
		model: "../../examples/orders/model.yaml",
		why:   "the support notes embedded as a list in the order item (\"one GetItem shows everything\"): a troubled order crosses 1 KB, so every change of it pays 2 WRU (4 in a transaction)",
		edits: append([]edit{
			{in: "attributes:", old: "  version:\n    type: N\n    unit: version\n", new: "  notes:\n    type: L\n    description: The support notes of the order, embedded in the order item.\n  version:\n    type: N\n    unit: version\n"},
			{in: "  ORDER:", old: "      externalRefs: optional\n", new: "      externalRefs: optional\n      notes: optional\n"},
		}, notesIn("claimed", "paid", "picking-before-invoice", "picking", "shipped", "delivered")...),
		only:  []string{"AttachInvoice", "PaymentConfirmed", "ShipOrder", "ClaimNextOrder"},
		fails: []string{"AttachInvoice/new", "PaymentConfirmed/resent", "ShipOrder/shipped"},
		cause: "item-size",
		path:  "entities.ORDER.attributes.notes",
		words: []string{"ORDER is 1,320 B, 296 B over 1 KB", "notes (L, 832 B)"},
	},
}

// notesIn embeds the notes in the named samples of ORDER (a just-placed
// order has none yet).
func notesIn(samples ...string) []edit {
	var es []edit
	for _, s := range samples {
		es = append(es, edit{in: "      " + s + ":", after: `^        updatedAt: "[^"]*"$`, new: orderNotes})
	}
	return es
}

// peakRegressions are planted faults the peak gate of cardapio check
// catches; their copies are committed under testdata/check, beside the
// goldens of what check says of them.
var peakRegressions = []regression{
	{
		name:  "unsharded-gsi1",
		model: "../../model.yaml",
		why:   "GSI1 unsharded: the partition is tenantId + nextActionDate, with no shard attribute, and the readers' 16 workers all query the same partition. The peak gate fails it with the 00h07 numbers: the largest tenant's 1.2M reschedules land on tomorrow's key, about 2,000 a second at the peak, each entry entering that one partition (1 WCU): 2,000 WCU/s against 1,000 (cardapio check exits 3)",
		edits: []edit{
			{in: "  GSI1:", old: "    partition: [tenantId, nextActionDate, shard]\n", new: "    partition: [tenantId, nextActionDate]\n"},
			{in: "  GSI1:", old: "    shards:\n      attribute: shard\n      count: 16\n      formula: N = expected peak index writes per second / 1,000 per partition, with headroom\n      peakWritesPerSecond: 2000\n", new: ""},
			{in: "  GSI1:", old: `template: "T#{tenantId}#ACT#{nextActionDate}#{shard:02}"`, new: `template: "T#{tenantId}#ACT#{nextActionDate}"`},
			{in: "accessPatterns:", old: "        shard: {eq: \"{shard}\"}\n", new: "", all: true},
			{in: "operations:", old: "            shard: {eq: \"{shard}\"}\n", new: "", all: true},
		},
	},
	{
		name:  "unsharded-opsqueue",
		model: "../../examples/orders/model.yaml",
		why:   "opsQueue without its shard: the partition is queueStatus alone, so every checkout enters the one PENDING partition, 1,500 puts a second against 1,000 at the campaign's 09:00 (cardapio check exits 3)",
		edits: []edit{
			{in: "  opsQueue:", old: "    partition: [queueStatus, queueShard]\n", new: "    partition: [queueStatus]\n"},
			{in: "  opsQueue:", old: "    shards:\n      attribute: queueShard\n      count: 10\n      formula: peak new orders a second / 1,000 WCU/s per partition, with headroom for a campaign twice as large\n      peakWritesPerSecond: 1500\n", new: "    unsharded: three queue states, and the workers read them in turn\n"},
			{in: "  opsQueue:", old: `template: "{queueStatus}#{queueShard:02}"`, new: `template: "{queueStatus}"`},
			{in: "  OP03:", old: "        queueShard: {eq: \"{queueShard}\"}\n      shards: {fanOut: all, workers: 10}\n", new: ""},
			{in: "  ClaimNextOrder:", old: "            queueShard: {eq: \"{queueShard}\"}\n          shards: {fanOut: one}\n", new: ""},
		},
	},
}

func peakRegressionPath(name string) string {
	return filepath.Join("testdata", "check", name+".yaml")
}

// plant applies a regression's edits to its model.
func plant(t *testing.T, r regression) []byte {
	t.Helper()
	data, err := os.ReadFile(r.model)
	require.NoError(t, err)
	s := string(data)
	for _, e := range r.edits {
		if e.drop != "" {
			s = applyIn(t, s, e.in, func(part string) string {
				re := regexp.MustCompile(`(?m)` + e.drop + `\n`)
				require.Len(t, re.FindAllString(part, -1), 1, "%s: line %s in %q", r.name, e.drop, e.in)
				return re.ReplaceAllString(part, "")
			})
			continue
		}
		if e.after != "" {
			s = applyIn(t, s, e.in, func(part string) string {
				re := regexp.MustCompile(`(?m)` + e.after + `\n`)
				require.NotEmpty(t, re.FindAllString(part, -1), "%s: no line %s in %q", r.name, e.after, e.in)
				return re.ReplaceAllStringFunc(part, func(line string) string { return line + e.new })
			})
			continue
		}
		s = applyIn(t, s, e.in, func(part string) string {
			n := strings.Count(part, e.old)
			if e.all {
				require.Positive(t, n, "%s: %q not found in %q", r.name, e.old, e.in)
				return strings.ReplaceAll(part, e.old, e.new)
			}
			require.Equal(t, 1, n, "%s: %q in %q", r.name, e.old, e.in)
			return strings.Replace(part, e.old, e.new, 1)
		})
	}
	head := fmt.Sprintf("# A planted regression of %s: %s.\n# Written by go test ./internal/cli -run Regressions -update from the model; do not edit.\n", strings.TrimPrefix(r.model, "../../"), r.why)
	return []byte(head + s)
}

// applyIn applies f to the part of s that starts at the line equal to in
// and ends before the next line indented as much or less.
func applyIn(t *testing.T, s, in string, f func(string) string) string {
	t.Helper()
	lines := strings.SplitAfter(s, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimRight(l, "\n") == in {
			start = i
			break
		}
	}
	require.GreaterOrEqual(t, start, 0, "no line %q", in)
	indent := len(in) - len(strings.TrimLeft(in, " "))
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], "\n")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) <= indent {
			end = i
			break
		}
	}
	part := strings.Join(lines[start:end], "")
	return strings.Join(lines[:start], "") + f(part) + strings.Join(lines[end:], "")
}

func regressionPath(name string) string {
	return filepath.Join("testdata", "budget", "regressions", name+".yaml")
}

// TestRegressionsUpToDate: the committed copies are the model with the
// edits, so they follow the model.
func TestRegressionsUpToDate(t *testing.T) {
	for _, r := range append(append(append([]regression{}, regressions...), ordersRegressions...), peakRegressions...) {
		want := plant(t, r)
		path := regressionPath(r.name)
		if len(r.fails) == 0 {
			path = peakRegressionPath(r.name)
		}
		if updating() {
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, want, 0o644))
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err, "run go test ./internal/cli -run Regressions -update")
		assert.True(t, string(want) == string(got), "%s is stale: run go test ./internal/cli -run Regressions -update", path)
	}
}

// TestRegressionsCaught: each planted regression makes the gate exit 3,
// the expected variants fail, and the dearest cause of the first is the
// planted one, at its line.
func TestRegressionsCaught(t *testing.T) {
	for _, r := range append(append([]regression{}, regressions...), ordersRegressions...) {
		t.Run(r.name, func(t *testing.T) {
			path := regressionPath(r.name)
			args := []string{"budget", "--format", "json", "--table-prefix", "regression-"}
			for _, o := range r.only {
				args = append(args, "--only", o)
			}
			run := runCLI(append(args, path), nil)
			require.Equal(t, ExitFailed, run.code, "stderr: %s", run.stderr)
			rep := decodeReport(t, run.stdout)
			var failed []string
			for _, res := range rep.Results {
				if res.Verdict == "fail" {
					failed = append(failed, res.Name())
				}
				assert.NotEqual(t, "error", string(res.Verdict), "%s: %s", res.Name(), res.Explanation)
				assert.Empty(t, res.Drift, "%s: the embedded engine agrees with the estimate", res.Name())
			}
			assert.ElementsMatch(t, r.fails, failed)
			var first *budget.Result
			for i := range rep.Results {
				if rep.Results[i].Name() == r.fails[0] {
					first = &rep.Results[i]
				}
			}
			require.NotNil(t, first)
			require.NotEmpty(t, first.Excesses)
			x := first.Excesses[0]
			if r.cause == "" {
				assert.Equal(t, r.path, x.At.Path)
				assert.Positive(t, x.At.Line)
			} else {
				require.NotEmpty(t, x.Causes)
				c := x.Causes[0]
				assert.Equal(t, r.cause, c.Kind, "%s", first.Explanation)
				assert.Equal(t, r.path, c.At.Path, "%s", first.Explanation)
				assert.Positive(t, c.At.Line)
			}
			for _, w := range r.words {
				assert.Contains(t, first.Explanation, w)
			}
		})
	}
}
