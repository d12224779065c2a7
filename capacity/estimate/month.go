package estimate

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/catalog"
)

// DaysPerMonth turns day volumes into months, as the catalog turns rates.
const DaysPerMonth = 30

// secondsPerMonth is the month of the volumes, in seconds.
const secondsPerMonth = DaysPerMonth * 86400

// ModelPrices applies a model's pricing section over a price table: every
// figure the model states replaces the table's.
func ModelPrices(p capacity.Prices, mp catalog.Pricing) capacity.Prices {
	set := func(f *capacity.Figure, v float64) {
		if v > 0 {
			*f = capacity.Figure{Value: v, Status: "from the model's pricing", Date: mp.AsOf}
		}
	}
	set(&p.WritePerMillion, mp.WritePerMillion)
	set(&p.ReadPerMillion, mp.ReadPerMillion)
	set(&p.StorageGBMonth, mp.StoragePerGBMonth)
	set(&p.IAStorageGBMonth, mp.IAStoragePerGBMonth)
	set(&p.IARequestFactor, mp.IARequestFactor)
	if mp.Region != "" {
		p.Region = mp.Region
	}
	if mp.AsOf != "" {
		p.Date = mp.AsOf
	}
	return p
}

// Overlay returns base with every figure of over that differs from
// capacity's defaults: a price file read by capacity.LoadPrices (which
// starts from the defaults) then wins over a model's pricing only where
// it says something.
func Overlay(base, over capacity.Prices) capacity.Prices {
	def := capacity.DefaultPrices()
	out := base
	dl, ol := def.Lines(), over.Lines()
	for i := range ol {
		if ol[i].Figure != dl[i].Figure {
			if f := out.Figure(ol[i].Key); f != nil {
				*f = ol[i].Figure
			}
		}
	}
	if over.Region != def.Region {
		out.Region = over.Region
	}
	if over.Date != def.Date {
		out.Date = over.Date
	}
	return out
}

// Options are the assumptions of a monthly bill.
type Options struct {
	Prices capacity.Prices
	// Utilisation is the target utilisation of the provisioned
	// alternative (auto scaling commonly targets 0.7).
	Utilisation float64
	// Measured sizes the entities' items for storage, by entity name
	// (dataset.Measure); an entity it lacks is sized by its first
	// sample.
	Measured map[string]Measured
}

// OpMonth is one operation's month.
type OpMonth struct {
	Operation string `json:"operation"`
	// Basis says which variants are charged: by their declared shares,
	// or the dearest one.
	Basis string  `json:"basis"`
	Runs  float64 `json:"runs"` // per month
	// UnitWRU and UnitRRU are one run's units, weighted by the basis.
	UnitWRU float64 `json:"unitWRU"`
	UnitRRU float64 `json:"unitRRU"`
	WRU     float64 `json:"wru"`
	RRU     float64 `json:"rru"`
	USD     float64 `json:"usd"`
	// PeakWPS and PeakRPS are the units per second at the declared peak.
	PeakWPS float64 `json:"peakWPS,omitempty"`
	PeakRPS float64 `json:"peakRPS,omitempty"`
}

// PatternMonth is what the steps answering one access pattern cost.
type PatternMonth struct {
	Pattern    string   `json:"pattern"` // "" for steps that answer no question (writes)
	Question   string   `json:"question,omitempty"`
	Operations []string `json:"operations"`
	WRU        float64  `json:"wru"`
	RRU        float64  `json:"rru"`
	USD        float64  `json:"usd"`
}

// TableMonth is one table's storage and options.
type TableMonth struct {
	TableSize
	StandardUSD float64 `json:"standardUSD"` // storage under Standard
	IAUSD       float64 `json:"iaUSD"`       // storage under Standard-IA
	StorageUSD  float64 `json:"storageUSD"`  // under the table's class
	PITRUSD     float64 `json:"pitrUSD,omitempty"`
	ExportUSD   float64 `json:"exportUSD,omitempty"`
}

// Provisioned is the provisioned-capacity alternative to on-demand.
type Provisioned struct {
	Utilisation float64 `json:"utilisation"`
	// AvgWPS and AvgRPS are the month's units spread evenly over it.
	AvgWPS float64 `json:"avgWPS"`
	AvgRPS float64 `json:"avgRPS"`
	// PeakWPS and PeakRPS add every operation's declared peak (its average
	// when it declares none): a bound, since peaks rarely coincide.
	PeakWPS float64 `json:"peakWPS"`
	PeakRPS float64 `json:"peakRPS"`
	// USD is auto scaling that tracks the load at the utilisation (the
	// average rate / utilisation, all month): the floor of provisioned.
	// PeakUSD keeps the capacity of the peaks all month: the ceiling.
	USD     float64 `json:"usd"`
	PeakUSD float64 `json:"peakUSD"`
}

// Bill is a model's month.
type Bill struct {
	Model string `json:"model"`
	// Source is the file the model was read from, when a command read
	// one: it tells two models of one name apart.
	Source     string         `json:"source,omitempty"`
	Region     string         `json:"region"`
	PriceDate  string         `json:"priceDate"`
	GB         string         `json:"gb"` // decimal or binary
	Operations []OpMonth      `json:"operations"`
	Unpriced   []string       `json:"unpriced,omitempty"` // operations without a volume
	Patterns   []PatternMonth `json:"patterns"`
	Tables     []TableMonth   `json:"tables"`
	// DeclaredStorageGB is the model's scale.storageGB, for comparison.
	DeclaredStorageGB float64 `json:"declaredStorageGB,omitempty"`
	WRU               float64 `json:"wru"`
	RRU               float64 `json:"rru"`
	RequestsUSD       float64 `json:"requestsUSD"`
	StorageGB         float64 `json:"storageGB"`
	StorageUSD        float64 `json:"storageUSD"`
	PITRUSD           float64 `json:"pitrUSD"`
	ExportUSD         float64 `json:"exportUSD"`
	TotalUSD          float64 `json:"totalUSD"`
	// PITRGB and ExportGB are what point-in-time recovery and the exports
	// are billed on: the tables' data and LSIs (TableSize.DataGB) of the
	// tables that declare them.
	PITRGB   float64 `json:"pitrGB"`
	ExportGB float64 `json:"exportGB"`
	// Lines say what each line of the month is billed on and at what
	// price, with their sources.
	Lines []BillLine `json:"lines"`
	// Figures are the model's declared US$ a month that count point-in-time
	// recovery or exports (its figures section, a source's words), to read
	// beside the bill: the lines they count were billed on more before.
	Figures     []Declared  `json:"figures,omitempty"`
	Provisioned Provisioned `json:"provisioned"`
	// Unit and Units are the model's business unit (scale.businessUnit:
	// contracts, orders, accounts) and how many there are; PerThousandUSD
	// is the total per 1,000 of them.
	Unit           string  `json:"unit,omitempty"`
	Units          float64 `json:"units,omitempty"`
	PerThousandUSD float64 `json:"perThousandUSD,omitempty"`
}

// BillLine is one line of the month: its dollars, what they are billed on,
// and the price with its source.
type BillLine struct {
	Line  string  `json:"line"`
	USD   float64 `json:"usd"`
	On    string  `json:"on"`
	Price string  `json:"price"`
}

// declaredBackups returns the model's US$ a month figures whose words
// count point-in-time recovery or an export.
func declaredBackups(fs []catalog.Figure) []Declared {
	var out []Declared
	for _, f := range fs {
		if f.Value == nil || !strings.EqualFold(strings.ReplaceAll(f.Unit, " ", ""), "USD/month") {
			continue
		}
		words := strings.ToLower(f.Statement + " " + f.Derivation)
		if strings.Contains(words, "pitr") || strings.Contains(words, "point-in-time") || strings.Contains(words, "export") {
			out = append(out, Declared{f.Name, *f.Value, f.Statement})
		}
	}
	return out
}

// Declared is a US$ a month figure the model declares.
type Declared struct {
	Name      string  `json:"name"`
	USD       float64 `json:"usd"`
	Statement string  `json:"statement"`
}

// Runs returns an operation's runs per month from its volume, and false
// when it declares none.
func Runs(v catalog.Volume) (float64, bool) {
	switch {
	case v.PerMonth != nil:
		return *v.PerMonth, true
	case v.PerDay != nil:
		return *v.PerDay * DaysPerMonth, true
	}
	return 0, false
}

// Month prices a month of the model: every operation at its volume, its
// variants weighted by their shares (or the dearest variant charged), the storage of every table, its backups and exports,
// and the provisioned alternative.
func (e *Estimator) Month(o Options) (*Bill, error) {
	p := o.Prices
	b := &Bill{Model: e.Model.Name, Region: p.Region, PriceDate: p.Date, GB: "decimal",
		DeclaredStorageGB: e.Model.Scale.StorageGB}
	if u := e.Model.Scale.BusinessUnit; u != nil {
		b.Unit, b.Units = u.Name, u.Count
	}
	if e.GB == capacity.BinaryGB {
		b.GB = "binary"
	}
	classOf := map[string]capacity.Class{}
	for _, t := range e.Model.Tables {
		classOf[t.Name] = Class(t)
	}
	usd := func(s Step) float64 { return p.OnDemand(s.WRU, s.RRU, classOf[s.Table]) }
	patterns := map[string]*PatternMonth{}
	var wps, rps, pwps, prps [2]float64 // by class
	for _, op := range e.Model.Operations {
		vs, err := e.Operation(op)
		if err != nil {
			return nil, err
		}
		runs, ok := Runs(op.Volume)
		if !ok {
			b.Unpriced = append(b.Unpriced, op.Name)
			continue
		}
		weights, basis := e.weights(op, vs, usd)
		om := OpMonth{Operation: op.Name, Basis: basis, Runs: runs}
		peak := runs / secondsPerMonth
		if op.Volume.PeakPerSecond != nil {
			peak = *op.Volume.PeakPerSecond
		}
		for i, v := range vs {
			w := weights[i]
			if w == 0 {
				continue
			}
			om.UnitWRU += w * v.WRU
			om.UnitRRU += w * v.RRU
			for _, s := range v.Steps {
				if s.Pattern == "" && len(op.Serves) == 1 {
					s.Pattern = op.Serves[0].ID // the one question the operation serves
				}
				k := classOf[s.Table]
				wps[k] += w * runs * s.WRU / secondsPerMonth
				rps[k] += w * runs * s.RRU / secondsPerMonth
				pwps[k] += w * peak * s.WRU
				prps[k] += w * peak * s.RRU
				pm := patterns[s.Pattern]
				if pm == nil {
					pm = &PatternMonth{Pattern: s.Pattern}
					if ap := e.Model.AccessPattern(s.Pattern); ap != nil {
						pm.Question = ap.Question
					}
					patterns[s.Pattern] = pm
				}
				if n := len(pm.Operations); n == 0 || pm.Operations[n-1] != op.Name {
					pm.Operations = append(pm.Operations, op.Name)
				}
				pm.WRU += w * runs * s.WRU
				pm.RRU += w * runs * s.RRU
				pm.USD += w * runs * usd(s)
				om.USD += w * runs * usd(s)
			}
		}
		om.WRU, om.RRU = runs*om.UnitWRU, runs*om.UnitRRU
		if op.Volume.PeakPerSecond != nil {
			om.PeakWPS, om.PeakRPS = peak*om.UnitWRU, peak*om.UnitRRU
		}
		b.Operations = append(b.Operations, om)
		b.WRU += om.WRU
		b.RRU += om.RRU
		b.RequestsUSD += om.USD
	}
	for _, pm := range patterns {
		b.Patterns = append(b.Patterns, *pm)
	}
	sort.Slice(b.Patterns, func(i, j int) bool {
		a, c := b.Patterns[i].Pattern, b.Patterns[j].Pattern
		if (a == "") != (c == "") {
			return c == "" // steps without a question last
		}
		return a < c
	})
	for _, t := range e.Model.Tables {
		tm := TableMonth{TableSize: e.Storage(t, o.Measured)}
		tm.StandardUSD = p.Storage(tm.GB, capacity.Standard)
		tm.IAUSD = p.Storage(tm.GB, capacity.StandardIA)
		tm.StorageUSD = p.Storage(tm.GB, Class(t))
		// Point-in-time recovery and exports are billed on the table's
		// data and LSIs, never on its GSIs (TableSize.DataGB).
		if t.PITR {
			tm.PITRUSD = p.PITR(tm.DataGB)
			b.PITRGB += tm.DataGB
		}
		if t.Export != "" {
			tm.ExportUSD = p.Export(tm.DataGB)
			b.ExportGB += tm.DataGB
		}
		b.Tables = append(b.Tables, tm)
		b.StorageGB += tm.GB
		b.StorageUSD += tm.StorageUSD
		b.PITRUSD += tm.PITRUSD
		b.ExportUSD += tm.ExportUSD
	}
	u := o.Utilisation
	if u <= 0 || u > 1 {
		return nil, fmt.Errorf("utilisation %v is not in (0, 1]", u)
	}
	pr := Provisioned{Utilisation: u}
	for k := range 2 {
		c := capacity.Class(k)
		pr.AvgWPS += wps[k]
		pr.AvgRPS += rps[k]
		pr.PeakWPS += pwps[k]
		pr.PeakRPS += prps[k]
		pr.USD += p.Provisioned(wps[k], rps[k], u, c)
		pr.PeakUSD += p.Provisioned(pwps[k], prps[k], u, c)
	}
	b.Provisioned = pr
	b.TotalUSD = b.RequestsUSD + b.StorageUSD + b.PITRUSD + b.ExportUSD
	b.lines(p)
	b.Figures = declaredBackups(e.Model.Figures)
	if b.Units > 0 {
		b.PerThousandUSD = b.TotalUSD / b.Units * 1000
	}
	return b, nil
}

// weights returns the weight of each variant in a month of op: the
// declared shares, or 1 for the dearest variant in dollars.
func (e *Estimator) weights(op *catalog.Operation, vs []Variant, usd func(Step) float64) ([]float64, string) {
	w := make([]float64, len(vs))
	if len(op.Budgets) == len(vs) && len(vs) > 0 && op.Budgets[0].Share != nil {
		var parts []string
		for i, b := range op.Budgets {
			if b.Share != nil {
				w[i] = *b.Share
				parts = append(parts, b.Name+" "+Pct(*b.Share))
			}
		}
		return w, "by share: " + strings.Join(parts, ", ")
	}
	best, bestUSD := 0, -1.0
	for i, v := range vs {
		var c float64
		for _, s := range v.Steps {
			c += usd(s)
		}
		if c > bestUSD {
			best, bestUSD = i, c
		}
	}
	w[best] = 1
	switch {
	case vs[best].Name == "":
		return w, "no budget: every step"
	case len(vs) == 1:
		return w, vs[best].Name
	}
	return w, vs[best].Name + " (dearest of " + strconv.Itoa(len(vs)) + ")"
}

// lines writes what each line of the month is billed on, with the prices'
// sources.
func (b *Bill) lines(p capacity.Prices) {
	price := func(f capacity.Figure, unit string) string {
		src := f.Status
		if f.Date != "" {
			src += ", " + f.Date
		}
		return fmt.Sprintf("US$ %s %s (%s)", strconv.FormatFloat(f.Value, 'f', -1, 64), unit, src)
	}
	var sizes []string
	for _, t := range b.Tables {
		src := "computed"
		if t.DeclaredGB != nil {
			src = "declared"
		}
		sizes = append(sizes, fmt.Sprintf("%s %s GB %s", t.Table, Num(round2(t.GB)), src))
	}
	data := func(pick func(TableMonth) bool) string {
		var out []string
		for _, t := range b.Tables {
			if pick(t) {
				out = append(out, fmt.Sprintf("%s %s GB (%s)", t.Table, Num(round2(t.DataGB)), t.DataSource))
			}
		}
		if len(out) == 0 {
			return "no table declares it, nothing billed"
		}
		return strings.Join(out, "; ")
	}
	b.Lines = []BillLine{
		{"requests", b.RequestsUSD, fmt.Sprintf("%s WRU and %s RRU a month, on demand: the operations' volumes x their variants' units", Num(math.Round(b.WRU)), Num(math.Round(b.RRU))),
			price(p.WritePerMillion, "per million WRU") + "; " + price(p.ReadPerMillion, "per million RRU")},
		{"storage", b.StorageUSD, "every table's billed bytes, index entries and overheads included, by table class: " + strings.Join(sizes, "; "),
			price(p.StorageGBMonth, "per GB-month") + "; Standard-IA " + price(p.IAStorageGBMonth, "per GB-month")},
		{"point-in-time recovery", b.PITRUSD, fmt.Sprintf("%s GB, table data and local secondary indexes, not GSIs (AWS: \"DynamoDB charges for PITR based on the size of each DynamoDB table, including table data and local secondary indexes\"): %s",
			Num(round2(b.PITRGB)), data(func(t TableMonth) bool { return t.PITRUSD > 0 })), price(p.PITRGBMonth, "per GB-month")},
		{"export to S3", b.ExportUSD, fmt.Sprintf("%s GB, one full export a month of the tables' items (an export writes the table's data, never its GSIs): %s",
			Num(round2(b.ExportGB)), data(func(t TableMonth) bool { return t.ExportUSD > 0 })), price(p.ExportGB, "per GB")},
	}
}
