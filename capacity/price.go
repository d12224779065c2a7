package capacity

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Figure is one price with where it comes from: AWS renders its price pages
// in JavaScript, so every default was taken from secondary sources and
// carries its status, to be confirmed against the AWS Price List API.
type Figure struct {
	Value  float64
	Status string // e.g. "AWS toolkit constant", "not verified"
	Date   string // when the figure took effect or was last checked
}

// Prices is a price table for one region and table class pair. Dollar
// figures are US$.
type Prices struct {
	Region string
	Date   string // the list prices the table reflects

	WritePerMillion  Figure // on-demand, per million write request units
	ReadPerMillion   Figure // on-demand, per million read request units
	StorageGBMonth   Figure // Standard table class, per GB-month
	FreeStorageGB    Figure // free storage per month and account
	IAStorageGBMonth Figure // Standard-IA, per GB-month
	IARequestFactor  Figure // Standard-IA request (and provisioned) prices / Standard's
	WCUHour          Figure // provisioned, per WCU-hour (Standard)
	RCUHour          Figure // provisioned, per RCU-hour (Standard)
	PITRGBMonth      Figure // point-in-time recovery, per GB-month
	BackupGBMonth    Figure // on-demand backup, per GB-month
	ExportGB         Figure // export to S3, per GB
	ImportGB         Figure // import from S3, per GB of uncompressed source data
	StreamPer100k    Figure // DynamoDB Streams, per 100,000 read request units
	// Global tables: a write replicated to a replica, on demand (per
	// million rWRU) and provisioned (per rWCU-hour), Standard class.
	ReplWritePerMillion Figure
	ReplWCUHour         Figure
}

// DefaultPrices returns the us-east-1 list prices used by capacity-rules.md
// section 7 and the Lastro article (September 2026).
func DefaultPrices() Prices {
	const (
		toolkit = "AWS agent-toolkit calculator constant; third parties agree"
		derived = "derived from the toolkit's multipliers"
		cited   = "widely cited; not verified"
		third   = "third-party figure"
	)
	return Prices{
		Region:           "us-east-1",
		Date:             "2026-09",
		WritePerMillion:  Figure{0.625, toolkit, "2024-11-01"},
		ReadPerMillion:   Figure{0.125, toolkit, "2024-11-01"},
		StorageGBMonth:   Figure{0.25, toolkit, "2026-09"},
		FreeStorageGB:    Figure{25, toolkit, "2026-09"},
		IAStorageGBMonth: Figure{0.10, derived + " (40% of Standard)", "2026-09"},
		IARequestFactor:  Figure{1.25, "AWS agent-toolkit calculator multiplier", "2026-09"},
		WCUHour:          Figure{0.00065, cited, "2026-09"},
		RCUHour:          Figure{0.00013, cited, "2026-09"},
		PITRGBMonth:      Figure{0.20, third, "2026-09"},
		BackupGBMonth:    Figure{0.10, third, "2026-09"},
		ExportGB:         Figure{0.10, "commonly cited; not verified", "2026-09"},
		ImportGB:         Figure{0.15, "commonly cited; not verified", "2026-09"},
		StreamPer100k:    Figure{0.02, third, "2026-09"},
		// Since 2024-11-01 AWS prices a replicated write as a
		// single-region write.
		ReplWritePerMillion: Figure{0.625, "as writePerMillion since 2024-11-01; not verified", "2024-11-01"},
		ReplWCUHour:         Figure{0.00065, "as wcuHour since 2024-11-01; not verified", "2024-11-01"},
	}
}

// figures lists the price fields under their file keys, in file order.
func (p *Prices) figures() []namedFigure {
	return []namedFigure{
		{"writePerMillion", "on-demand write, US$ per million WRU", &p.WritePerMillion},
		{"readPerMillion", "on-demand read, US$ per million RRU", &p.ReadPerMillion},
		{"storageGBMonth", "storage (Standard), US$ per GB-month", &p.StorageGBMonth},
		{"freeStorageGB", "free storage, GB per month", &p.FreeStorageGB},
		{"iaStorageGBMonth", "storage (Standard-IA), US$ per GB-month", &p.IAStorageGBMonth},
		{"iaRequestFactor", "Standard-IA request price factor", &p.IARequestFactor},
		{"wcuHour", "provisioned write, US$ per WCU-hour", &p.WCUHour},
		{"rcuHour", "provisioned read, US$ per RCU-hour", &p.RCUHour},
		{"pitrGBMonth", "point-in-time recovery, US$ per GB-month", &p.PITRGBMonth},
		{"backupGBMonth", "on-demand backup, US$ per GB-month", &p.BackupGBMonth},
		{"exportGB", "export to S3, US$ per GB", &p.ExportGB},
		{"importGB", "import from S3, US$ per GB of uncompressed source", &p.ImportGB},
		{"streamPer100k", "streams, US$ per 100,000 read requests", &p.StreamPer100k},
		{"replWritePerMillion", "global tables, replicated write on demand, US$ per million rWRU", &p.ReplWritePerMillion},
		{"replWCUHour", "global tables, provisioned replicated write, US$ per rWCU-hour", &p.ReplWCUHour},
	}
}

// Figure returns the price under its file key (writePerMillion, ...),
// nil for a key that names none.
func (p *Prices) Figure(key string) *Figure {
	for _, nf := range p.figures() {
		if nf.key == key {
			return nf.f
		}
	}
	return nil
}

type namedFigure struct {
	key, what string
	f         *Figure
}

// PriceLine is one row of a price table, for printing.
type PriceLine struct {
	Key, What string
	Figure
}

// Lines returns the table's figures in a fixed order.
func (p Prices) Lines() []PriceLine {
	var out []PriceLine
	for _, nf := range p.figures() {
		out = append(out, PriceLine{nf.key, nf.what, *nf.f})
	}
	return out
}

// PriceError is a positioned error in a price file.
type PriceError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *PriceError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

var yamlLine = regexp.MustCompile(`^yaml: (?:line (\d+): )?`)

// yamlPriceError positions a YAML syntax error of a price file. yaml.v3
// gives a line (not always) and never a column.
func yamlPriceError(name string, err error) error {
	msg, line := err.Error(), 1
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			line = n
		}
		msg = msg[len(m[0]):]
	}
	return &PriceError{name, line, 1, "invalid YAML: " + msg}
}

// MaxPrice bounds every figure of a price file, as the model's schema
// bounds its pricing section: a month's bill of the largest volumes the
// schema allows stays a finite number, printable and encodable as JSON.
const MaxPrice = 1e6

// priceIn reports whether x is a price a file may give.
func priceIn(x float64) bool { return x >= 0 && x <= MaxPrice }

// LoadPrices reads a price file (YAML, or JSON, which YAML reads too) and
// applies it over DefaultPrices: every key is optional. A figure is a
// number or a mapping {value, status, date}:
//
//	region: us-east-1
//	date: 2026-09
//	writePerMillion: 0.625
//	readPerMillion: {value: 0.125, status: "Price List API", date: 2026-09-01}
//
// Unknown keys and non-numeric values are errors, each with its line and
// column; all of them are returned, joined.
func LoadPrices(name string, data []byte) (Prices, error) {
	p := DefaultPrices()
	root, err := priceRoot(name, data)
	if err != nil || root == nil {
		return p, err
	}
	return p, readPriceTable(name, root, &p)
}

// priceRoot decodes a price file: its top mapping, nil for an empty
// file (which changes nothing).
func priceRoot(name string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlPriceError(name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &PriceError{name, root.Line, root.Column, "a price file is a mapping of price names to figures"}
	}
	return root, nil
}

// badPrice returns a function that adds a positioned error to errs.
func badPrice(name string, errs *[]error) func(n *yaml.Node, format string, args ...any) {
	return func(n *yaml.Node, format string, args ...any) {
		*errs = append(*errs, &PriceError{name, max(n.Line, 1), max(n.Column, 1), fmt.Sprintf(format, args...)})
	}
}

// entries yields a mapping's keys and values in order; a key given
// twice is reported by bad and skipped.
func entries(n *yaml.Node, bad func(*yaml.Node, string, ...any)) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(k, v *yaml.Node) bool) {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if first, dup := seen[k.Value]; dup {
				bad(k, "%s is given twice (first at line %d)", k.Value, first)
				continue
			}
			seen[k.Value] = k.Line
			if !yield(k, v) {
				return
			}
		}
	}
}

// readPriceTable reads one table's figures from its mapping over p; every
// error is returned, joined.
func readPriceTable(name string, root *yaml.Node, p *Prices) error {
	if root.Kind != yaml.MappingNode {
		return &PriceError{name, max(root.Line, 1), max(root.Column, 1), "a price table is a mapping of price names to figures"}
	}
	byKey := map[string]*Figure{}
	var keys []string
	for _, nf := range p.figures() {
		byKey[nf.key] = nf.f
		keys = append(keys, nf.key)
	}
	var errs []error
	bad := badPrice(name, &errs)
	for k, v := range entries(root, bad) {
		switch k.Value {
		case "region", "date":
			if v.Kind != yaml.ScalarNode {
				bad(v, "%s: want text", k.Value)
				continue
			}
			if k.Value == "region" {
				p.Region = v.Value
			} else {
				p.Date = v.Value
			}
			continue
		}
		f, ok := byKey[k.Value]
		if !ok {
			sort.Strings(keys)
			bad(k, "unknown price %q (known: region, date, %s)", k.Value, strings.Join(keys, ", "))
			continue
		}
		switch v.Kind {
		case yaml.ScalarNode:
			var x float64
			if err := v.Decode(&x); err != nil || !priceIn(x) {
				bad(v, "%s: want a number from 0 to %g, got %q", k.Value, MaxPrice, v.Value)
				continue
			}
			*f = Figure{Value: x, Status: "from " + name}
		case yaml.MappingNode:
			nf := Figure{Status: "from " + name}
			seen := false
			for j := 0; j+1 < len(v.Content); j += 2 {
				fk, fv := v.Content[j], v.Content[j+1]
				switch fk.Value {
				case "value":
					if err := fv.Decode(&nf.Value); err != nil || fv.Kind != yaml.ScalarNode || !priceIn(nf.Value) {
						bad(fv, "%s.value: want a number from 0 to %g, got %q", k.Value, MaxPrice, fv.Value)
					}
					seen = true
				case "status", "date":
					if fv.Kind != yaml.ScalarNode {
						bad(fv, "%s.%s: want text", k.Value, fk.Value)
					} else if fk.Value == "status" {
						nf.Status = fv.Value
					} else {
						nf.Date = fv.Value
					}
				default:
					bad(fk, "%s: unknown field %q (known: value, status, date)", k.Value, fk.Value)
				}
			}
			if !seen {
				bad(v, "%s: missing value", k.Value)
			}
			*f = nf
		default:
			bad(v, "%s: want a number or {value, status, date}", k.Value)
		}
	}
	return errors.Join(errs...)
}
