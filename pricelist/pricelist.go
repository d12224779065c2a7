// Package pricelist builds a region's DynamoDB price table from the AWS
// Price List: the Pricing API's GetProducts for the service code
// AmazonDynamoDB, filtered by regionCode. Every figure is read from the
// list (each with its usage type, SKU and effective date); none is
// written in code, and a figure the list does not give is an error, never
// a us-east-1 default passed off as the region's.
package pricelist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	"github.com/aws/aws-sdk-go-v2/service/pricing/types"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/endpoint"
	"github.com/cardapio/cardapio/internal/input"
)

// APIRegion is where the Pricing API is served (it also answers in
// eu-central-1 and ap-south-1); the prices it gives are every region's.
const APIRegion = "us-east-1"

// Service is DynamoDB's service code in the Price List.
const Service = "AmazonDynamoDB"

// Bounds of one region's list: DynamoDB has a few dozen products a
// region; a list past these is not DynamoDB's.
const (
	pageSize     = 100
	maxPages     = 100
	maxItemBytes = 1 << 20
)

// figures maps the price table's keys to the usage types they are read
// from (the region's prefix removed), and what a unit of the list is in
// the table's unit.
var figures = []struct {
	key, usage string
	per        int64 // list price x per = the table's figure
}{
	{"writePerMillion", "WriteRequestUnits", 1_000_000},
	{"readPerMillion", "ReadRequestUnits", 1_000_000},
	{"storageGBMonth", "TimedStorage-ByteHrs", 1},
	{"iaStorageGBMonth", "IA-TimedStorage-ByteHrs", 1},
	{"wcuHour", "WriteCapacityUnit-Hrs", 1},
	{"rcuHour", "ReadCapacityUnit-Hrs", 1},
	{"pitrGBMonth", "TimedPITRStorage-ByteHrs", 1},
	{"backupGBMonth", "TimedBackupStorage-ByteHrs", 1},
	{"exportGB", "ExportDataSize-Bytes", 1},
	{"importGB", "ImportDataSize-Bytes", 1},
	{"streamPer100k", "Streams-RequestsCount", 100_000},
	{"replWritePerMillion", "ReplWriteRequestUnits", 1_000_000},
	{"replWCUHour", "ReplWriteCapacityUnit-Hrs", 1},
}

// The usage types of the derived figures: Standard-IA's request factor
// is its on-demand write price over Standard's, the free storage the
// first paid tier's start.
const iaWrites = "IA-WriteRequestUnits"

// Options say how to reach the Pricing API.
type Options struct {
	// EndpointURL replaces the API's endpoint (a recorded list served
	// locally, in tests).
	EndpointURL string
	// Profile is the shared configuration profile; "" the default chain.
	Profile string
	// Retries is how many times the SDK sends a failed or throttled
	// request again (its standard backoff and retry quota).
	Retries int
}

var regionName = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)

// Fetch reads region's DynamoDB products from the Price List through the
// standard configuration chain and builds its price table.
func Fetch(ctx context.Context, region string, o Options) (capacity.Prices, error) {
	if !regionName.MatchString(region) {
		return capacity.Prices{}, input.Errorf("region %q: want a region code such as us-east-1 or sa-east-1", region)
	}
	lo := []func(*config.LoadOptions) error{config.WithRegion(APIRegion)}
	if o.Profile != "" {
		lo = append(lo, config.WithSharedConfigProfile(o.Profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return capacity.Prices{}, fmt.Errorf("load the AWS configuration: %w", err)
	}
	retry := endpoint.Standard
	retry.MaxAttempts = 1 + o.Retries
	cfg.Retryer = func() aws.Retryer { return retry.Retryer() }
	var opts []func(*pricing.Options)
	if o.EndpointURL != "" {
		u, err := url.Parse(o.EndpointURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return capacity.Prices{}, input.Errorf("endpoint URL %q: want http://host:port or https://host:port", o.EndpointURL)
		}
		opts = append(opts, func(po *pricing.Options) { po.BaseEndpoint = aws.String(strings.TrimRight(o.EndpointURL, "/")) })
	}
	client := pricing.NewFromConfig(cfg, opts...)
	in := &pricing.GetProductsInput{
		ServiceCode:   aws.String(Service),
		FormatVersion: aws.String("aws_v1"),
		MaxResults:    aws.Int32(pageSize),
		Filters: []types.Filter{{
			Type: types.FilterTypeTermMatch, Field: aws.String("regionCode"), Value: aws.String(region),
		}},
	}
	var items []string
	pages := pricing.NewGetProductsPaginator(client, in)
	for n := 0; pages.HasMorePages(); n++ {
		if n == maxPages {
			return capacity.Prices{}, fmt.Errorf("the Price List gave more than %d pages for %s in %s", maxPages, Service, region)
		}
		out, err := pages.NextPage(ctx)
		if err != nil {
			return capacity.Prices{}, fmt.Errorf("price list of %s in %s: %w", Service, region, err)
		}
		items = append(items, out.PriceList...)
	}
	return Build(region, items)
}

// product is what a Price List item holds that a table needs.
type product struct {
	Product struct {
		SKU        string            `json:"sku"`
		Attributes map[string]string `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]term `json:"OnDemand"` // by SKU.offerTermCode
	} `json:"terms"`
	PublicationDate string `json:"publicationDate"`
}

type term struct {
	EffectiveDate   string               `json:"effectiveDate"`
	PriceDimensions map[string]dimension `json:"priceDimensions"`
}

type dimension struct {
	Unit         string            `json:"unit"`
	BeginRange   string            `json:"beginRange"`
	PricePerUnit map[string]string `json:"pricePerUnit"`
	Description  string            `json:"description"`
}

// price is one usage type's paid on-demand rate.
type price struct {
	usd   *big.Rat
	text  string // as the list gives it
	begin float64
	sku   string
	usage string // as the list gives it, region prefix included
	date  string
}

// Build makes region's price table from Price List items (GetProducts'
// PriceList: one JSON document a product). Items of other regions or
// services are ignored; a figure the items do not give is an error.
func Build(region string, items []string) (capacity.Prices, error) {
	byUsage := map[string]price{}
	published := ""
	for i, it := range items {
		if len(it) > maxItemBytes {
			return capacity.Prices{}, fmt.Errorf("price list item %d: over %d bytes", i, maxItemBytes)
		}
		var p product
		if err := json.Unmarshal([]byte(it), &p); err != nil {
			return capacity.Prices{}, fmt.Errorf("price list item %d: %w", i, err)
		}
		a := p.Product.Attributes
		if a["servicecode"] != Service || a["regionCode"] != region {
			continue
		}
		pr, ok, err := paid(p)
		if err != nil {
			return capacity.Prices{}, fmt.Errorf("price list item %d (%s): %w", i, p.Product.SKU, err)
		}
		if !ok {
			continue
		}
		name := Usage(pr.usage)
		if was, dup := byUsage[name]; dup && was.usd.Cmp(pr.usd) != 0 {
			return capacity.Prices{}, fmt.Errorf("two prices of %s in %s: %s (%s) and %s (%s)", name, region, was.text, was.sku, pr.text, pr.sku)
		}
		byUsage[name] = pr
		if d := day(p.PublicationDate); d > published {
			published = d
		}
	}
	if len(byUsage) == 0 {
		return capacity.Prices{}, input.Errorf("the Price List has no %s prices in %s: is it a region where DynamoDB runs?", Service, region)
	}
	p := capacity.DefaultPrices()
	p.Region, p.Date = region, published
	var missing []string
	for _, f := range figures {
		pr, ok := byUsage[f.usage]
		if !ok {
			missing = append(missing, f.usage)
			continue
		}
		v, _ := new(big.Rat).Mul(pr.usd, new(big.Rat).SetInt64(f.per)).Float64()
		*p.Figure(f.key) = capacity.Figure{Value: v, Status: "AWS Price List API: " + pr.usage + ", " + pr.sku, Date: pr.date}
		if f.usage == "TimedStorage-ByteHrs" {
			p.FreeStorageGB = capacity.Figure{Value: pr.begin, Status: "AWS Price List API: " + pr.usage + ", the first paid tier's start", Date: pr.date}
		}
	}
	ia, ok := byUsage[iaWrites]
	w, wok := byUsage["WriteRequestUnits"]
	if !ok || !wok || w.usd.Sign() == 0 {
		missing = append(missing, iaWrites)
	} else {
		v, _ := new(big.Rat).Quo(ia.usd, w.usd).Float64()
		p.IARequestFactor = capacity.Figure{Value: v, Status: "AWS Price List API: " + ia.usage + " / " + w.usage, Date: ia.date}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return capacity.Prices{}, fmt.Errorf("the Price List gave no price of %s in %s for: %s", Service, region, strings.Join(missing, ", "))
	}
	return p, nil
}

// paid is a product's on-demand price past its free tier: of its latest
// term, the dimension that begins last (the only one when there is no
// free tier). ok is false for a product with no on-demand US$ price.
func paid(p product) (price, bool, error) {
	var best term
	for _, t := range p.Terms.OnDemand {
		if t.EffectiveDate > best.EffectiveDate || best.PriceDimensions == nil {
			best = t
		}
	}
	var out price
	found := false
	for _, d := range best.PriceDimensions {
		usd, ok := d.PricePerUnit["USD"]
		if !ok {
			continue
		}
		begin, err := strconv.ParseFloat(d.BeginRange, 64)
		if d.BeginRange == "" {
			begin, err = 0, nil
		}
		if err != nil || begin < 0 {
			return price{}, false, fmt.Errorf("beginRange %q: want a number", d.BeginRange)
		}
		r, ok := new(big.Rat).SetString(usd)
		if !ok || r.Sign() < 0 {
			return price{}, false, fmt.Errorf("pricePerUnit USD %q: want a number", usd)
		}
		if !found || begin > out.begin {
			out, found = price{usd: r, text: usd, begin: begin}, true
		}
	}
	if !found {
		return price{}, false, nil
	}
	out.sku, out.usage, out.date = p.Product.SKU, p.Product.Attributes["usagetype"], day(best.EffectiveDate)
	if out.usage == "" {
		return price{}, false, errors.New("no usagetype")
	}
	return out, true, nil
}

// regionPrefix is a billing region code (USE1, SAE1, EU, APN2 ...): the
// optional first part of a usage type.
var regionPrefix = regexp.MustCompile(`^[A-Z]{2,4}[0-9]?$`)

// Usage is a usage type without its region prefix: SAE1-ReadRequestUnits
// and ReadRequestUnits (us-east-1 has none, or USE1) are both
// ReadRequestUnits; IA- marks the Standard-IA class, not a region.
func Usage(usagetype string) string {
	first, rest, ok := strings.Cut(usagetype, "-")
	if ok && first != "IA" && regionPrefix.MatchString(first) {
		return rest
	}
	return usagetype
}

// day is the date part of an ISO time.
func day(s string) string {
	if len(s) >= 10 {
		return s[:10]
	}
	return s
}
