package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/files"
	"github.com/cardapio/cardapio/internal/input"
)

// Check runs a model's invariants against tables that already exist:
// those a cardapio load --keep left, or a population cardapio data
// loaded, after anyone else wrote to them. The invariants that read only
// the data (each, sum) are checked on a strongly consistent read of the
// tables; those that read a run's ledger (ledger, versions) need the
// results file of the run that sent the messages, and without one they
// are reported as not checked, with the reason, never as holding.

// CheckOptions say where the tables are and which run wrote them.
type CheckOptions struct {
	Target endpoint.Options
	// TablePrefix is put before the model's table names. Without it, the
	// names the results file's run used, else the model's own.
	TablePrefix string
	// Results are the results files (--results) of the run that wrote
	// the data, one a part: their ledgers are joined.
	Results []string
	// Invariants restricts the check to these names (all when empty).
	Invariants []string
}

// CheckReport is what Check found.
type CheckReport struct {
	OK     bool   `json:"ok"`
	Model  string `json:"model"`
	Target string `json:"target"`
	// Tables are the tables read, model table -> name.
	Tables map[string]string `json:"tables"`
	// Results are the results files whose ledger was read; Messages and
	// Writes what they held.
	Results    []string          `json:"results,omitempty"`
	Messages   int               `json:"messages"`
	Writes     int               `json:"writes"`
	Invariants []InvariantResult `json:"invariants"`
	// Unchecked counts the invariants left unchecked (Unchecked says
	// why on each).
	Unchecked int `json:"unchecked"`
	// Notes say what may make the data differ from what was written (a
	// TTL the target sweeps).
	Notes []string `json:"notes,omitempty"`
}

// Check checks m's invariants on existing tables (see CheckOptions). The
// error is *input.Error for bad input (a results file of another model,
// an unknown invariant, a table that does not exist).
func Check(ctx context.Context, m *catalog.Model, o CheckOptions) (*CheckReport, error) {
	invs := m.Invariants
	if len(o.Invariants) > 0 {
		invs = nil
		for _, n := range o.Invariants {
			v := m.Invariant(n)
			if v == nil {
				return nil, inputErr("model %s has no invariant %q (it has %s)", m.Name, n, invariantNames(m))
			}
			invs = append(invs, v)
		}
	}
	if len(invs) == 0 {
		return nil, inputErr("model %s declares no invariants", m.Name)
	}
	rep := &CheckReport{Model: m.Name, Tables: map[string]string{}}
	in := invariantInput{m: m, parts: 1}
	if len(o.Results) > 0 {
		// The ledgers on disk, joined a bucket at a time: a long run's
		// does not have to fit in memory.
		sp, err := newLedgerSpill(m.Invariants)
		if err != nil {
			return nil, err
		}
		defer sp.close()
		in.spill = sp
	}
	var runTables map[string]string
	for _, p := range o.Results {
		f, err := files.Open(p)
		if err != nil {
			return nil, input.Wrap(err)
		}
		l, err := readLedger(p, f, m, in.spill)
		_ = f.Close()
		if err != nil {
			return nil, input.Wrap(err)
		}
		if l.lines == 0 {
			return nil, inputErr("%s: no ledger lines: written before results files carried the run's ledger", p)
		}
		rep.Results = append(rep.Results, p)
		if runTables == nil {
			runTables = l.summary.Tables
		}
	}
	if in.spill != nil {
		if err := in.spill.finish(); err != nil {
			return nil, err
		}
	}
	msgs, writes := in.ledgerCounts()
	rep.Messages, rep.Writes = int(msgs), int(writes)
	for _, tb := range m.Tables {
		switch {
		case o.TablePrefix != "":
			rep.Tables[tb.Name] = o.TablePrefix + tb.Name
		case runTables[tb.Name] != "":
			rep.Tables[tb.Name] = runTables[tb.Name]
		default:
			rep.Tables[tb.Name] = tb.Name
		}
	}

	to := o.Target
	if to.Retry.MaxAttempts == 0 {
		to.Retry = endpoint.Standard
	}
	if to.EndpointURL == "" && !to.AWS {
		return nil, inputErr("no tables to check: give --endpoint-url or --aws (an embedded engine starts empty)")
	}
	tg, err := endpoint.Open(ctx, to)
	if err != nil {
		return nil, input.Wrap(err)
	}
	defer tg.Close()
	rep.Target = tg.Name

	var checkable []*catalog.Invariant
	unchecked := map[string]string{}
	for _, v := range invs {
		if (v.Ledger != nil || v.Versions != nil) && len(o.Results) == 0 {
			unchecked[v.Name] = "it reads the ledger of the run that sent the messages: give that run's --results file (cardapio load --keep --results FILE)"
			continue
		}
		checkable = append(checkable, v)
	}
	// Every table read must exist: a wrong prefix is an error, not an
	// empty table that holds every invariant.
	for _, tb := range usedTables(checkable) {
		name := rep.Tables[tb]
		if _, err := tg.Client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}); err != nil {
			var nf *types.ResourceNotFoundException
			if errors.As(err, &nf) {
				return nil, inputErr("table %s (the model's %s) does not exist on %s: give --table-prefix, or the --results file of the run that kept it", name, tb, tg.Name)
			}
			return nil, fmt.Errorf("describe table %s: %w", name, err)
		}
		if note := ttlNote(ctx, tg, m, tb, name, checkable); note != "" {
			rep.Notes = append(rep.Notes, note)
		}
	}
	res, _, err := checkInvariants(ctx, tg, rep.Tables, checkable, in)
	if err != nil {
		return nil, err
	}
	byName := map[string]InvariantResult{}
	for _, r := range res {
		byName[r.Name] = r
	}
	rep.OK = true
	for _, v := range invs {
		r, ok := byName[v.Name]
		if !ok {
			r = InvariantResult{Name: v.Name, Description: v.Description, Unchecked: unchecked[v.Name]}
			rep.Unchecked++
		}
		if r.Violations > 0 {
			rep.OK = false
		}
		rep.Invariants = append(rep.Invariants, r)
	}
	return rep, nil
}

// usedTables are the model tables the invariants read, sorted.
func usedTables(invs []*catalog.Invariant) []string {
	seen := map[string]bool{}
	for _, v := range invs {
		for _, e := range entitiesOf(v) {
			if e.Table != nil {
				seen[e.Table.Name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func invariantNames(m *catalog.Model) string {
	var ns []string
	for _, v := range m.Invariants {
		ns = append(ns, v.Name)
	}
	if len(ns) == 0 {
		return "none"
	}
	return strings.Join(ns, ", ")
}

// ttlNote warns when the target expires items the invariants read: a
// target that sweeps expired items at its own clock (DynamoDB, cardapio
// serve) deletes a population's items whose expiry, drawn from the
// population's date, is past, and a join then sees less than was
// written.
func ttlNote(ctx context.Context, tg *endpoint.Target, m *catalog.Model, table, name string, invs []*catalog.Invariant) string {
	tb := m.Table(table)
	if tb == nil || tb.TTL == "" {
		return ""
	}
	out, err := tg.Client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil || out.TimeToLiveDescription == nil || out.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled {
		return ""
	}
	var ents []string
	seen := map[string]bool{}
	for _, v := range invs {
		for _, e := range entitiesOf(v) {
			if e.Table == tb && !seen[e.Name] && e.Has(tb.TTL) != "" {
				seen[e.Name] = true
				ents = append(ents, e.Name)
			}
		}
	}
	if len(ents) == 0 {
		return ""
	}
	sort.Strings(ents)
	return fmt.Sprintf("%s expires items on %s, which %s carry: a target that sweeps expired items at its clock may have deleted those whose %s is past (cardapio serve every --ttl-sweep; DynamoDB within days), and then the invariants read less than was written; check a population drawn as of today (cardapio data --as-of), or served without a sweep (cardapio data --serve --addr, or cardapio serve --ttl-sweep 0)",
		name, tb.TTL, strings.Join(ents, ", "), tb.TTL)
}
