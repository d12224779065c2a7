package loadgen

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/dataset"
	"github.com/cardapio/cardapio/endpoint"
)

// A run against tables that already hold the population (Options.Existing:
// an S3 import of cardapio data's files, cardapio data --endpoint-url, a
// run kept with --keep) writes nothing before its first arrival. The
// generator is the population's: what a request needs is generated
// again, never read back, so before it starts the run reads a bounded
// sample of the population's items, strongly consistent, and refuses
// tables that do not hold that population (another model, scale or
// seed): the requests would be about items that are not there.

// sampleTrees and sampleItems bound the check: at most sampleTrees trees
// spread over the part, sampleItems items of each.
const (
	sampleTrees = 16
	sampleItems = 4
)

// openExisting opens the model's tables on the target, which must hold
// them already.
func openExisting(ctx context.Context, m *catalog.Model, tg *endpoint.Target, o Options, asOf time.Time) (*endpoint.Tables, error) {
	if tg.Engine != nil {
		return nil, inputErr("--existing runs against tables that already hold the population: give --endpoint-url or --aws (the embedded engine starts empty)")
	}
	keys := o.Keys
	tables, err := tg.Existing(ctx, m, o.TablePrefix, keys)
	if errors.Is(err, endpoint.ErrNoTable) {
		return nil, inputErr("%v: write the population first (cardapio data --scale %g --seed %d --as-of %s --endpoint-url URL --create-tables, or an S3 import of cardapio data's files), or give its --table-prefix",
			err, o.Population, o.Seed, asOf.Format("2006-01-02"))
	}
	if err != nil && strings.HasPrefix(err.Error(), "the tables under prefix") {
		return nil, inputErr("%v", err)
	}
	return tables, err
}

// existing checks that the tables hold the population, then makes the
// pass that counts the values the run's spread sources and largest
// selections read, writing nothing.
func (r *runner) existing(ctx context.Context, pop *dataset.Population, o Options, tg *endpoint.Target, tables *endpoint.Tables,
	countSpecs []countSpec, skip map[*catalog.Entity]bool) (*populationResult, error) {
	n, err := verifyPopulation(ctx, pop, o, tg, tables, skip)
	if err != nil {
		return nil, err
	}
	pr := &populationResult{pop: pop, byTable: map[string]int64{}, counts: map[string]counts{}, skipped: map[string]int64{}}
	if len(countSpecs) > 0 {
		// The whole population's values, as the whole run counts them.
		if pr, err = populate(ctx, pop, 0, 1, tg, tables, nil, countSpecs, nil, passOptions{}, nil); err != nil {
			return nil, err
		}
		pr.items, pr.byTable = 0, map[string]int64{}
	}
	pr.verified = n
	return pr, nil
}

// verifyPopulation reads up to sampleTrees x sampleItems items of the
// part's population, strongly consistent, and compares each with the
// generator's: every one must be there, and most must carry the
// generated values (a run that kept its tables changed a few).
func verifyPopulation(ctx context.Context, pop *dataset.Population, o Options, tg *endpoint.Target, tables *endpoint.Tables, skip map[*catalog.Entity]bool) (int, error) {
	blocks, err := partBlocks(pop, o.Part, o.Parts)
	if err != nil {
		return 0, err
	}
	var rows int64
	for _, b := range blocks {
		rows += b.Hi - b.Lo
	}
	if rows == 0 {
		return 0, nil
	}
	type sampled struct {
		e  *catalog.Entity
		it attr.Item
	}
	var tree []sampled
	gn := pop.NewGenerator(func(n *dataset.Node, it attr.Item) {
		if len(tree) < sampleItems && n.Entity.Table != nil {
			tree = append(tree, sampled{n.Entity, cloneItem(it)})
		}
	})
	var read, missing, differ int
	var first []string
	note := func(s string) {
		if len(first) < 3 {
			first = append(first, s)
		}
	}
	n := min(int64(sampleTrees), rows)
	for s := range n {
		// Trees spread evenly over the part's rows.
		at := s * rows / n
		var b dataset.Block
		for _, b = range blocks {
			if at < b.Hi-b.Lo {
				break
			}
			at -= b.Hi - b.Lo
		}
		tree = tree[:0]
		if err := gn.Tree(b.Root, b.Lo+at); err != nil {
			return 0, err
		}
		for _, si := range tree {
			key := tableKey(si.e, si.it)
			out, err := tg.Client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tables.Name(si.e.Table.Name)), Key: attr.ToSDKItem(key), ConsistentRead: aws.Bool(true)})
			if err != nil {
				return 0, fmt.Errorf("read a sample of the population: %w", err)
			}
			read++
			if len(out.Item) == 0 {
				missing++
				note(fmt.Sprintf("%s %s missing", si.e.Name, keyString(key)))
				continue
			}
			got, err := attr.FromSDKItem(out.Item)
			if err != nil {
				return 0, err
			}
			if a := firstDiff(si.it, got); a != "" {
				differ++
				note(fmt.Sprintf("%s %s differs in %s", si.e.Name, keyString(key), a))
			}
		}
	}
	if missing == 0 && 2*differ <= read {
		return read, nil
	}
	return 0, inputErr("the tables (%s) do not hold the population of model %s at scale %g with seed %d%s: of %d sampled items, %d missing and %d different (%s); "+
		"write it first (cardapio data --scale %g --seed %d --as-of %s --endpoint-url URL, or an S3 import of its files), or give the --scale, --seed and --table-prefix it was written with",
		strings.Join(sortedValues(tables.Names()), ", "), pop.Model.Name, o.Population, o.Seed, partWord(o.Part, o.Parts), read, missing, differ, strings.Join(first, "; "),
		o.Population, o.Seed, pop.AsOf.Format("2006-01-02"))
}

// firstDiff names the first attribute of want that got lacks or holds
// another value of ("" when got carries all of want).
func firstDiff(want, got attr.Item) string {
	for _, f := range want {
		v, ok := got.Get(f.Name)
		if !ok || !attr.Equal(v, f.Value) {
			return f.Name
		}
	}
	return ""
}

func sortedValues(m map[string]string) []string {
	var out []string
	for _, k := range sortedNames(m) {
		out = append(out, m[k])
	}
	return out
}

// setupRate is the cap the options put on the population's writes.
func setupRate(o Options) *endpoint.Bucket {
	if o.SetupRate <= 0 {
		return nil
	}
	return endpoint.NewBucket(o.SetupRate)
}

// setupCost says what setting the population up cost: the write units
// of the items written (table and indexes, on demand), the requests, the
// throttles waited for, the time; against existing tables, nothing.
func (r *runner) setupCost(m *catalog.Model, o Options, tg *endpoint.Target, pr *populationResult, sum *Summary, took time.Duration, logf func(string, ...any)) {
	p := &sum.Population
	p.Existing = o.Existing
	p.Loaded = !o.Existing
	if o.Existing {
		p.Verified = pr.verified
		logf("%s: nothing written: %d sampled items read (strongly consistent) hold the population", m.Name, pr.verified)
		return
	}
	p.WriteUnits = pr.units
	p.CostUSD = estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing).OnDemand(pr.units, 0, capacity.Standard)
	p.Requests, p.Throttled = tg.Setup.Requests.Load(), tg.Setup.Throttled.Load()+tg.Setup.Resent.Load()
	rate := "no rate cap"
	if o.SetupRate > 0 {
		rate = fmt.Sprintf("capped at %g WRU/s", o.SetupRate)
	}
	logf("%s: population written: %d items, %.0f WRU (US$ %.4f on demand), %d requests, %d throttled and sent again (setup's own retries, %s), %.1fs",
		m.Name, pr.items, pr.units, p.CostUSD, p.Requests, p.Throttled, rate, took.Seconds())
}
