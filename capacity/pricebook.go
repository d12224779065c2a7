package capacity

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// LoadPriceBook reads a price file: one table (LoadPrices' format), or
// the tables of several regions as `cardapio prices` writes them:
//
//	date: "2026-11-01"
//	regions:
//	  sa-east-1:
//	    writePerMillion: {value: 0.9375, status: "AWS Price List API: SAE1-WriteRequestUnits", date: "2024-11-01"}
//	    ...
//
// Each region's table applies over DefaultPrices, named by its key and
// dated by the file's date unless it gives its own. Every error is
// positioned; all of them are returned, joined.
func LoadPriceBook(name string, data []byte) ([]Prices, error) {
	root, err := priceRoot(name, data)
	if err != nil {
		return nil, err
	}
	if root == nil || lookup(root, "regions") == nil {
		p := DefaultPrices()
		if root != nil {
			err = readPriceTable(name, root, &p)
		}
		return []Prices{p}, err
	}
	var errs []error
	bad := badPrice(name, &errs)
	date := ""
	for k, v := range entries(root, bad) {
		switch k.Value {
		case "regions":
		case "date":
			if v.Kind != yaml.ScalarNode {
				bad(v, "date: want text")
			}
			date = v.Value
		default:
			bad(k, "unknown key %q beside regions (known: date, regions)", k.Value)
		}
	}
	regions := lookup(root, "regions")
	if regions.Kind != yaml.MappingNode || len(regions.Content) == 0 {
		bad(regions, "regions: want a mapping of region names to price tables")
		return nil, errors.Join(errs...)
	}
	var book []Prices
	for k, v := range entries(regions, bad) {
		p := DefaultPrices()
		p.Region, p.Date = k.Value, date
		if err := readPriceTable(name, v, &p); err != nil {
			errs = append(errs, err)
		}
		if p.Region != k.Value {
			bad(v, "regions.%s: its table says region %s", k.Value, p.Region)
		}
		book = append(book, p)
	}
	return book, errors.Join(errs...)
}

// lookup returns the value of key in mapping n, nil when absent.
func lookup(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// PickRegion returns the book's table of region; "" picks the only one.
func PickRegion(book []Prices, region string) (Prices, error) {
	var names []string
	for _, p := range book {
		if p.Region == region || (region == "" && len(book) == 1) {
			return p, nil
		}
		names = append(names, p.Region)
	}
	if region == "" {
		return Prices{}, fmt.Errorf("the price file holds %d regions (%s): pick one with --region", len(book), strings.Join(names, ", "))
	}
	return Prices{}, fmt.Errorf("no prices of %s in the price file (it holds %s)", region, strings.Join(names, ", "))
}

// WritePriceBook writes tables as LoadPriceBook reads them, every figure
// with its status and date, the regions in name order, under a comment
// saying where they come from.
func WritePriceBook(w io.Writer, date, comment string, book []Prices) error {
	book = append([]Prices(nil), book...)
	sort.Slice(book, func(i, j int) bool { return book[i].Region < book[j].Region })
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	key := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	regions := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range book {
		t := &yaml.Node{Kind: yaml.MappingNode}
		for _, l := range p.Lines() {
			f := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, LineComment: l.What, Content: []*yaml.Node{
				key("value"), {Kind: yaml.ScalarNode, Value: strconv.FormatFloat(l.Value, 'f', -1, 64)},
				key("status"), str(l.Status),
				key("date"), str(l.Date),
			}}
			t.Content = append(t.Content, key(l.Key), f)
		}
		regions.Content = append(regions.Content, key(p.Region), t)
	}
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: comment, Content: []*yaml.Node{
		key("date"), str(date),
		key("regions"), regions,
	}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return err
	}
	return enc.Close()
}

// PricesFor is the price table a bill of region uses from a price file
// (data, named name in errors): the file's table of region, or its only
// one when region is "". Without a file (name "") it is nil, the model's
// and the default prices, which are us-east-1's: any other region is an
// error saying how to get its prices.
func PricesFor(name string, data []byte, region string) (*Prices, error) {
	if name == "" {
		if def := DefaultPrices().Region; region != "" && region != def {
			return nil, fmt.Errorf("no prices of %s: build them with cardapio prices --region %s --out prices.yaml, then give prices.yaml as the price file (without one, only %s's are known)", region, region, def)
		}
		return nil, nil
	}
	book, err := LoadPriceBook(name, data)
	if err != nil {
		return nil, err
	}
	p, err := PickRegion(book, region)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &p, nil
}
