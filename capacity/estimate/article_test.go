package estimate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// The article's figures (lastro-reference section 7), reproduced by the
// committed example models and the reference model through the real
// estimator. Each must land within 5% of the article.

func bill(t *testing.T, path string) (*estimate.Estimator, *estimate.Bill) {
	t.Helper()
	m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
	require.NoError(t, err)
	e := estimate.New(m, capacity.Default())
	b, err := e.Month(estimate.Options{Prices: estimate.ModelPrices(capacity.DefaultPrices(), m.Pricing), Utilisation: 0.7})
	require.NoError(t, err)
	return e, b
}

func op(t *testing.T, b *estimate.Bill, name string) estimate.OpMonth {
	t.Helper()
	for _, o := range b.Operations {
		if o.Operation == name {
			return o
		}
	}
	require.Failf(t, "missing operation", "%s not in the bill of %s", name, b.Model)
	return estimate.OpMonth{}
}

func within5(t *testing.T, want, got float64, what string) {
	t.Helper()
	assert.InEpsilon(t, want, got, 0.05, "%s: article %v, got %v", what, want, got)
}

func TestArticleLeak1ModelA(t *testing.T) {
	_, b := bill(t, "../../examples/model-a.yaml")
	o := op(t, b, "RecomputeDaysPastDue")
	within5(t, 60e6, o.Runs, "updates a month (2M delinquent x 30 nights)")
	within5(t, 240e6, o.WRU, "model A write units a month")
	within5(t, 150, o.USD, "model A US$ a month")
	assert.Equal(t, 4.0, o.UnitWRU, "2 WRU for the 1.1 KB contract + 2 for the GSI2 key move")
}

func TestArticleLeak1ModelB(t *testing.T) {
	_, b := bill(t, "../../examples/model-b.yaml")
	o := op(t, b, "MoveBucket")
	within5(t, 6e6, o.WRU, "model B write units a month")
	// The article prints "about US$4": 6M WRU x US$0.625 per million is
	// US$3.75, forty times under model A.
	within5(t, 3.75, o.USD, "model B US$ a month")
	_, a := bill(t, "../../examples/model-a.yaml")
	within5(t, 40, op(t, a, "RecomputeDaysPastDue").USD/o.USD, "forty times cheaper")
}

func TestArticleLeak2Scan(t *testing.T) {
	e, b := bill(t, "../../examples/scan.yaml")
	vs, err := e.Operation(e.Model.Operation("ScreenByScan"))
	require.NoError(t, err)
	require.Len(t, vs, 1)
	within5(t, 12.5e6, vs[0].RRU, "RRU of one eventually consistent scan of 95 GB")
	p := estimate.ModelPrices(capacity.DefaultPrices(), e.Model.Pricing)
	within5(t, 1.56, p.OnDemand(0, vs[0].RRU, capacity.Standard), "US$ of one scan")
	s := op(t, b, "ScreenByScan")
	within5(t, 28800, s.Runs, "scans a month (40 tenants x 24 h x 30 days)")
	within5(t, 45000, s.USD, "US$ a month of hourly scans")

	g := op(t, b, "PortfolioByBucket")
	assert.Equal(t, 4.0, g.UnitRRU, "a GSI2 page of 100 contracts of about 0.3 KB")
	assert.Less(t, g.USD, 0.10, "cents a month")
}

func TestArticleLeak2PageInModelA(t *testing.T) {
	_, b := bill(t, "../../examples/model-a.yaml")
	assert.Equal(t, 4.0, op(t, b, "PortfolioByBucket").UnitRRU)
}

func TestArticleStorage(t *testing.T) {
	for _, path := range []string{"../../examples/scan.yaml", "../../model.yaml"} {
		_, b := bill(t, path)
		within5(t, 95, b.StorageGB, path+": GB")
		within5(t, 24, b.StorageUSD, path+": storage US$ a month")
	}
}

func TestArticleLastroTotal(t *testing.T) {
	_, b := bill(t, "../../model.yaml")
	within5(t, 200, b.TotalUSD, "Lastro US$ a month")
	within5(t, 0.025, b.PerThousandUSD, "US$ per 1,000 active contracts a month")
	assert.Positive(t, b.PITRUSD, "PITR is part of the bill")
	assert.Positive(t, b.ExportUSD, "the monthly export is part of the bill")
}
