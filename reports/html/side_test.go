package html_test

import (
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
	"github.com/cardapio/cardapio/reports/collect"
	"github.com/cardapio/cardapio/reports/html"
)

// The fuzz tests render their results beside the orders example's static
// results, gathered as the report command gathers them.
func init() {
	html.SideOf = func(path string) (*html.Side, error) {
		m, err := catalog.LoadWith(path, catalog.Options{ItemSize: capacity.Default().ItemSize})
		if err != nil {
			return nil, err
		}
		return collect.Side(path, m)
	}
}
