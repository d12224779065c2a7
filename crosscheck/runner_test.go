package crosscheck

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/internal/moto"
)

// namer turns a logical table name of a case into the real, unique name on
// one side.
type namer func(logical string) *string

// step is one operation of a case.
type step struct {
	in        any    // an SDK input such as *dynamodb.PutItemInput
	err       string // exception DynamoDB answers with (and the implementations must); empty: it must succeed
	message   bool   // compare error messages too (the implementation words this one as DynamoDB does)
	paginate  bool   // Query or Scan: follow LastEvaluatedKey and compare every page
	unordered bool   // result order is unspecified: sort Items, compare only that a LastEvaluatedKey is there
	segments  int32  // Scan: run this many segments to the end and compare their union
	status    bool   // CreateTable: compare TableStatus and IndexStatus too (else only the later DescribeTable's)
}

// xcase is a sequence of steps; steps builds the inputs for one side.
type xcase struct {
	name  string
	steps func(T namer) []step
}

// transactions reports whether a case sends TransactWriteItems or
// TransactGetItems: it runs only on implementations that take them.
func (c xcase) transactions() bool {
	for _, s := range c.steps(func(l string) *string { return &l }) {
		switch s.in.(type) {
		case *dynamodb.TransactWriteItemsInput, *dynamodb.TransactGetItemsInput:
			return true
		}
	}
	return false
}

// side is one endpoint seen by one case.
type side struct {
	name   string
	c      *dynamodb.Client
	prefix string
}

func (s *side) T(logical string) *string { return aws.String(s.prefix + logical) }

// result is a step's outcome in comparable form.
type result struct {
	body string // canonical output, or the exception name
	code string // exception name, empty on success
	msg  string // error message, table names made logical
}

// reference is an independent implementation the engine is compared
// with.
type reference struct {
	name     string
	endpoint string
	// transactions: it takes TransactWriteItems and TransactGetItems
	// (moto does, dynalite does not).
	transactions bool
	// differs lists the steps where it is known to depart from DynamoDB's
	// documented behaviour (knownGaps lists the engine's).
	differs map[string]string
}

var (
	endpointsOnce sync.Once
	refs          []reference
	engEndpoint   string
	endpointsErr  error
	motoStop      func()
)

// TestMain stops the moto server the suite started, if any.
func TestMain(m *testing.M) {
	code := m.Run()
	if motoStop != nil {
		motoStop()
	}
	os.Exit(code)
}

// endpoints returns the independent implementations that are running
// (dynalite, moto) and the engine's endpoint, starting the engine once
// per test binary, and moto when MOTO_ENDPOINT is not set but moto_server
// is on PATH. Without any of them the tests skip, but never under CI,
// where dynalite is required.
func endpoints(t *testing.T) ([]reference, string) {
	t.Helper()
	endpointsOnce.Do(func() {
		var why []string
		if dyn := os.Getenv("DYNALITE_ENDPOINT"); dyn == "" {
			why = append(why, "DYNALITE_ENDPOINT is not set (start dynalite with bench/dynalite.sh)")
		} else if err := ping(dyn); err != nil {
			why = append(why, fmt.Sprintf("dynalite at %s: %v", dyn, err))
		} else {
			refs = append(refs, reference{name: "dynalite", endpoint: dyn, differs: knownGaps})
		}
		if os.Getenv("CI") == "true" && len(refs) == 0 {
			endpointsErr = errors.New(strings.Join(why, "; "))
			return
		}
		mo := os.Getenv("MOTO_ENDPOINT")
		if mo == "" {
			var err error
			if mo, motoStop, err = moto.Start(); err != nil {
				why = append(why, err.Error())
			}
		}
		if mo != "" {
			if err := ping(mo); err != nil {
				why = append(why, fmt.Sprintf("moto at %s: %v", mo, err))
			} else {
				refs = append(refs, reference{name: "moto", endpoint: mo, transactions: true, differs: motoDiffers})
			}
		}
		if len(refs) == 0 {
			endpointsErr = errors.New(strings.Join(why, "; "))
			return
		}
		engEndpoint = os.Getenv("ENGINE_ENDPOINT")
		if engEndpoint == "" {
			engEndpoint, endpointsErr = startEngine()
		}
	})
	if endpointsErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("cross-check cannot run: %v", endpointsErr)
		}
		t.Skipf("cross-check skipped: %v", endpointsErr)
	}
	return refs, engEndpoint
}

func ping(endpoint string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := NewClient(endpoint).ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	return err
}

func newSide(name, endpoint string) *side {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &side{name: name, c: NewClient(endpoint), prefix: "xc" + hex.EncodeToString(b) + "_"}
}

// runCase executes a case on every independent implementation running
// (dynalite, moto; a case with transactions only where they are taken)
// and on the engine, step by step, and requires the same normalised
// outcome from each pair, and from the implementation the outcome the
// case expects of DynamoDB. A step listed in the implementation's known
// differences is logged, not failed.
func runCase(t *testing.T, c xcase) {
	t.Helper()
	t.Run(c.name, func(t *testing.T) {
		t.Parallel()
		refs, eng := endpoints(t)
		ran, txn := 0, c.transactions()
		for _, ref := range refs {
			if txn && !ref.transactions {
				continue
			}
			ran++
			compare(t, c, ref, eng)
		}
		if ran == 0 {
			t.Skipf("no running implementation takes this case (transactions: %v)", txn)
		}
	})
}

// compare runs a case on one independent implementation and the engine.
func compare(t *testing.T, c xcase, ref reference, eng string) {
	a, b := newSide(ref.name, ref.endpoint), newSide("engine", eng)
	defer func() { a.dropTables(); b.dropTables() }()
	sa, sb := c.steps(a.T), c.steps(b.T)
	require.Len(t, sb, len(sa))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range sa {
		label := fmt.Sprintf("%s: step %d %s", ref.name, i+1, opName(sa[i].in))
		ra, rb := a.do(ctx, sa[i]), b.do(ctx, sb[i])
		want := sa[i].err
		if want == "" {
			want = "success"
		}
		got := ra.code
		if got == "" {
			got = "success"
		}
		if os.Getenv("CROSSCHECK_VERBOSE") != "" {
			t.Logf("%s: %s answered\n%s", label, ref.name, ra.body)
		}
		gap, known := ref.differs[fmt.Sprintf("%s/step %d", t.Name(), i+1)]
		same := ra.body == rb.body && (ra.msg == rb.msg || !sa[i].message) && want == got
		switch {
		case known && same:
			t.Logf("%s: listed as a known difference of %s (%s) but now agrees: remove it", label, ref.name, gap)
		case known:
			t.Logf("%s: KNOWN DIFFERENCE of %s, not failing: %s\n  %s: %s %s\n  engine: %s %s",
				label, ref.name, gap, ref.name, short(ra.body), ra.msg, short(rb.body), rb.msg)
			continue
		}
		if os.Getenv("CROSSCHECK_DUMP") != "" && !same {
			key := fmt.Sprintf("%s/step %d", t.Name(), i+1)
			if want != got {
				fmt.Printf("DIFF %s\t%s answers %s where DynamoDB answers %s (%s)\n", key, ref.name, got, want, short(ra.msg))
			} else if ra.body != rb.body {
				fmt.Printf("DIFF %s\tbody: %s\n", key, firstDiff(ra.body, rb.body))
				if os.Getenv("CROSSCHECK_DUMP") == "full" {
					sq := func(x string) string { return strings.Join(strings.Fields(x), "") }
					fmt.Printf("FULL %s\n  %s\n  %s\n", key, short(sq(ra.body)), short(sq(rb.body)))
				}
			} else {
				fmt.Printf("DIFF %s\tmessage: %s | engine: %s\n", key, short(ra.msg), short(rb.msg))
			}
			continue
		}
		require.Equalf(t, want, got, "%s: %s's outcome is not what the case expects of DynamoDB (%s)", label, ref.name, ra.msg)
		if !assert.Equal(t, ra.body, rb.body, "%s: %s vs engine", label, ref.name) {
			continue
		}
		if ra.msg != rb.msg {
			if sa[i].message {
				assert.Equal(t, ra.msg, rb.msg, "%s: error message", label)
			} else {
				t.Logf("%s: messages differ\n  %s: %s\n  engine: %s", label, ref.name, short(ra.msg), short(rb.msg))
			}
		}
	}
}

// firstDiff returns the first line where a differs from b, on each side.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return strings.TrimSpace(la[i]) + " | engine: " + strings.TrimSpace(lb[i])
		}
	}
	return fmt.Sprintf("%d lines | engine: %d lines", len(la), len(lb))
}

// short cuts a text for a log line.
func short(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func opName(in any) string {
	return strings.TrimSuffix(reflect.TypeOf(in).Elem().Name(), "Input")
}

// do runs one step and returns its comparable outcome.
func (s *side) do(ctx context.Context, st step) result {
	var (
		out any
		err error
	)
	switch {
	case st.segments > 0:
		out, err = s.segments(ctx, st.in.(*dynamodb.ScanInput), st.segments)
	case st.paginate:
		out, err = s.pages(ctx, st.in, st.unordered)
	default:
		out, err = s.call(ctx, st.in)
	}
	if err != nil {
		code := "client error"
		var api smithy.APIError
		if errors.As(err, &api) {
			code, err = api.ErrorCode(), errors.New(api.ErrorMessage())
		}
		return result{body: "exception " + code, code: code, msg: s.logical(err.Error())}
	}
	var tree any
	if pages, ok := out.([]any); ok {
		tree = pages
	} else if m, ok := out.(map[string]any); ok {
		tree = m
	} else {
		tree = s.shape(Normalise(out), st.unordered)
	}
	switch st.in.(type) {
	case *dynamodb.CreateTableInput:
		if !st.status {
			dropStatus(tree, false)
		}
	case *dynamodb.UpdateTableInput:
		dropStatus(tree, true)
	}
	return result{body: s.logical(Canonical(tree))}
}

// logical replaces this side's table names by the case's logical names.
func (s *side) logical(text string) string { return strings.ReplaceAll(text, s.prefix, "") }

// call sends one request. CreateTable also waits until the table and its
// indexes are ACTIVE, so that later steps see the same state on both sides.
func (s *side) call(ctx context.Context, in any) (any, error) {
	c := s.c
	switch x := in.(type) {
	case *dynamodb.CreateTableInput:
		out, err := c.CreateTable(ctx, x)
		if err == nil {
			err = s.waitActive(ctx, *x.TableName)
		}
		return out, err
	case *dynamodb.DescribeTableInput:
		return c.DescribeTable(ctx, x)
	case *dynamodb.DeleteTableInput:
		return c.DeleteTable(ctx, x)
	case *dynamodb.ListTablesInput:
		return c.ListTables(ctx, x)
	case *dynamodb.UpdateTableInput:
		out, err := c.UpdateTable(ctx, x)
		if err == nil {
			err = s.waitActive(ctx, *x.TableName)
		}
		return out, err
	case *dynamodb.PutItemInput:
		return c.PutItem(ctx, x)
	case *dynamodb.GetItemInput:
		return c.GetItem(ctx, x)
	case *dynamodb.UpdateItemInput:
		return c.UpdateItem(ctx, x)
	case *dynamodb.DeleteItemInput:
		return c.DeleteItem(ctx, x)
	case *dynamodb.QueryInput:
		return c.Query(ctx, x)
	case *dynamodb.ScanInput:
		return c.Scan(ctx, x)
	case *dynamodb.BatchWriteItemInput:
		return c.BatchWriteItem(ctx, x)
	case *dynamodb.BatchGetItemInput:
		return c.BatchGetItem(ctx, x)
	case *dynamodb.TransactWriteItemsInput:
		return c.TransactWriteItems(ctx, x)
	case *dynamodb.TransactGetItemsInput:
		return c.TransactGetItems(ctx, x)
	}
	panic(fmt.Sprintf("crosscheck: no call for %T", in))
}

func (s *side) waitActive(ctx context.Context, name string) error {
	for range 200 {
		out, err := s.c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &name})
		if err != nil {
			return err
		}
		ready := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			ready = ready && g.IndexStatus == types.IndexStatusActive
		}
		if ready {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("table %s never became ACTIVE", name)
}

// pages follows a Query or Scan to its end and returns every page.
func (s *side) pages(ctx context.Context, in any, unordered bool) (any, error) {
	var pages []any
	for range 100 {
		out, err := s.call(ctx, in)
		if err != nil {
			return nil, err
		}
		pages = append(pages, s.shape(Normalise(out), unordered))
		var lek map[string]types.AttributeValue
		switch x := out.(type) {
		case *dynamodb.QueryOutput:
			lek = x.LastEvaluatedKey
			in.(*dynamodb.QueryInput).ExclusiveStartKey = lek
		case *dynamodb.ScanOutput:
			lek = x.LastEvaluatedKey
			in.(*dynamodb.ScanInput).ExclusiveStartKey = lek
		}
		if len(lek) == 0 {
			if unordered {
				return unionOfPages(pages), nil
			}
			return pages, nil
		}
	}
	return nil, errors.New("more than 100 pages")
}

// unionOfPages merges the pages of a read whose order is unspecified: which
// items land on which page depends on the order, so what is compared is the
// sorted union of the items and, page by page, the counts and whether a
// LastEvaluatedKey came back.
func unionOfPages(pages []any) map[string]any {
	var items, shapes []any
	for _, p := range pages {
		m := p.(map[string]any)
		if l, ok := m["Items"].([]any); ok {
			items = append(items, l...)
		}
		delete(m, "Items")
		shapes = append(shapes, m)
	}
	SortList(items)
	return map[string]any{"Items": items, "Pages": shapes}
}

// segments runs every segment of a parallel Scan to its end. Which items
// fall in which segment depends on each implementation's hashing, so what
// is compared is the union, the totals, and that no item came twice.
func (s *side) segments(ctx context.Context, in *dynamodb.ScanInput, n int32) (any, error) {
	var items []any
	var count, scanned int64
	seen := map[string]bool{}
	dups := 0
	for seg := range n {
		q := *in
		q.Segment, q.TotalSegments = aws.Int32(seg), aws.Int32(n)
		for range 100 {
			out, err := s.c.Scan(ctx, &q)
			if err != nil {
				return nil, err
			}
			count += int64(out.Count)
			scanned += int64(out.ScannedCount)
			for _, it := range out.Items {
				x := Normalise(it)
				if k := Canonical(x); seen[k] {
					dups++
				} else {
					seen[k] = true
				}
				items = append(items, x)
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			q.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	SortList(items)
	return map[string]any{"Items": items, "Count": count, "ScannedCount": scanned, "Duplicates": dups}, nil
}

// shape applies the comparisons' conventions to a normalised output: table
// descriptions are cut to their essentials, lists whose order DynamoDB does
// not define are sorted, and ListTables only shows this side's tables.
func (s *side) shape(tree any, unordered bool) any {
	m, ok := tree.(map[string]any)
	if !ok {
		return tree
	}
	for _, k := range []string{"Table", "TableDescription"} {
		if d, ok := m[k].(map[string]any); ok {
			m[k] = essentials(d)
		}
	}
	if names, ok := m["TableNames"].([]any); ok {
		var mine []any
		for _, n := range names {
			if strings.HasPrefix(n.(string), s.prefix) {
				mine = append(mine, n)
			}
		}
		m["TableNames"] = mine
		if l, ok := m["LastEvaluatedTableName"].(string); ok && !strings.HasPrefix(l, s.prefix) {
			m["LastEvaluatedTableName"] = "<another table>"
		}
	}
	for _, k := range []string{"Responses", "UnprocessedKeys", "UnprocessedItems"} {
		if tables, ok := m[k].(map[string]any); ok {
			for _, v := range tables {
				sortNested(v)
			}
		}
	}
	if unordered {
		if items, ok := m["Items"].([]any); ok {
			SortList(items)
		}
		if _, ok := m["LastEvaluatedKey"]; ok {
			m["LastEvaluatedKey"] = "<present>"
		}
	}
	return m
}

// sortNested sorts the item or request lists inside a batch response.
func sortNested(v any) {
	switch x := v.(type) {
	case []any:
		SortList(x)
	case map[string]any:
		for _, e := range x {
			if l, ok := e.([]any); ok {
				SortList(l)
			}
		}
	}
}

// essentials keeps the parts of a table description that two correct
// implementations must agree on; sizes, counts, ids and timestamps are
// approximate or implementation-specific.
func essentials(d map[string]any) map[string]any {
	keep := func(m map[string]any, names ...string) map[string]any {
		out := map[string]any{}
		for _, n := range names {
			if v, ok := m[n]; ok {
				out[n] = v
			}
		}
		return out
	}
	e := keep(d, "TableName", "TableStatus", "TableArn", "KeySchema", "AttributeDefinitions",
		"ProvisionedThroughput", "BillingModeSummary")
	if bm, ok := e["BillingModeSummary"].(map[string]any); ok {
		// No summary means provisioned to an SDK caller, so a summary that
		// says PROVISIONED is the same answer.
		if bm["BillingMode"] == string(types.BillingModeProvisioned) {
			delete(e, "BillingModeSummary")
		} else {
			e["BillingModeSummary"] = keep(bm, "BillingMode")
		}
	}
	if pt, ok := e["ProvisionedThroughput"].(map[string]any); ok {
		e["ProvisionedThroughput"] = keep(pt, "ReadCapacityUnits", "WriteCapacityUnits")
	}
	if defs, ok := e["AttributeDefinitions"].([]any); ok {
		SortList(defs)
	}
	for _, k := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
		idx, ok := d[k].([]any)
		if !ok {
			continue
		}
		var l []any
		for _, x := range idx {
			im := keep(x.(map[string]any), "IndexName", "KeySchema", "Projection", "IndexStatus", "ProvisionedThroughput")
			if pt, ok := im["ProvisionedThroughput"].(map[string]any); ok {
				im["ProvisionedThroughput"] = keep(pt, "ReadCapacityUnits", "WriteCapacityUnits")
			}
			if p, ok := im["Projection"].(map[string]any); ok {
				if nk, ok := p["NonKeyAttributes"].([]any); ok {
					SortList(nk)
				}
			}
			l = append(l, im)
		}
		sort.Slice(l, func(i, j int) bool {
			return l[i].(map[string]any)["IndexName"].(string) < l[j].(map[string]any)["IndexName"].(string)
		})
		e[k] = l
	}
	return e
}

// dropStatus removes the transitional parts of a CreateTable or
// UpdateTable output: the table and index statuses, and the throughput an
// update is moving to. DynamoDB answers CREATING or UPDATING (with the old
// throughput); a local engine that applies changes at once may answer
// ACTIVE. CreateTable's status is checked in a few cases only, so that it
// does not hide the rest of every case; the DescribeTable that follows an
// update is always compared whole.
func dropStatus(tree any, update bool) {
	m, ok := tree.(map[string]any)
	if !ok {
		return
	}
	d, ok := m["TableDescription"].(map[string]any)
	if !ok {
		return
	}
	delete(d, "TableStatus")
	if update {
		delete(d, "ProvisionedThroughput")
		delete(d, "BillingModeSummary")
	}
	if l, ok := d["GlobalSecondaryIndexes"].([]any); ok {
		for _, g := range l {
			delete(g.(map[string]any), "IndexStatus")
		}
	}
}

// dropTables deletes every table this side created.
func (s *side) dropTables() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in := &dynamodb.ListTablesInput{ExclusiveStartTableName: aws.String(s.prefix)}
	for range 100 {
		out, err := s.c.ListTables(ctx, in)
		if err != nil {
			return
		}
		for _, n := range out.TableNames {
			if strings.HasPrefix(n, s.prefix) {
				_, _ = s.c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(n)})
			}
		}
		if out.LastEvaluatedTableName == nil || !strings.HasPrefix(*out.LastEvaluatedTableName, s.prefix) {
			return
		}
		in.ExclusiveStartTableName = out.LastEvaluatedTableName
	}
}
