package capacity

// HoursPerMonth is the month AWS prices by: 730 hours.
const HoursPerMonth = 730

// SecondsPerMonth is HoursPerMonth in seconds, to turn a steady rate into
// a monthly volume.
const SecondsPerMonth = HoursPerMonth * 3600

// Class is a DynamoDB table class.
type Class uint8

const (
	// Standard is the default table class.
	Standard Class = iota
	// StandardIA (infrequent access) stores for less and serves requests
	// for more.
	StandardIA
)

// String returns the class as AWS spells it.
func (c Class) String() string {
	if c == StandardIA {
		return "STANDARD_INFREQUENT_ACCESS"
	}
	return "STANDARD"
}

// GBUnit says what a gigabyte is. AWS's pricing calculator bills storage in
// decimal GB (10^9 B) while DynamoDB's size limits are binary; the choice
// moves a storage bill by 7%.
type GBUnit uint8

const (
	// DecimalGB is 10^9 bytes, as AWS's calculator bills. The default.
	DecimalGB GBUnit = iota
	// BinaryGB is 2^30 bytes (GiB).
	BinaryGB
)

// Bytes returns the bytes in one GB of the unit.
func (u GBUnit) Bytes() float64 {
	if u == BinaryGB {
		return 1 << 30
	}
	return 1e9
}

// GB converts bytes to gigabytes of the unit.
func GB(bytes float64, u GBUnit) float64 { return bytes / u.Bytes() }

// requestFactor is 1 for Standard and the IA factor for Standard-IA.
func (p Prices) requestFactor(c Class) float64 {
	if c == StandardIA {
		return p.IARequestFactor.Value
	}
	return 1
}

// OnDemand returns the monthly US$ of wru write request units and rru read
// request units in on-demand mode.
func (p Prices) OnDemand(wru, rru float64, c Class) float64 {
	return (wru*p.WritePerMillion.Value + rru*p.ReadPerMillion.Value) / 1e6 * p.requestFactor(c)
}

// Storage returns the monthly US$ of storing gb gigabytes (item and index
// bytes with their 100 B overheads). The free tier is not deducted: it is
// per account, not per table (see FreeStorageGB).
func (p Prices) Storage(gb float64, c Class) float64 {
	if c == StandardIA {
		return gb * p.IAStorageGBMonth.Value
	}
	return gb * p.StorageGBMonth.Value
}

// Provisioned returns the monthly US$ of provisioned capacity serving a
// steady wps write units and rps read units per second at the target
// utilisation (0 < utilisation <= 1; auto scaling commonly targets 0.7):
// the provisioned units are the rate divided by the utilisation, billed
// for 730 hours. Fractional units are kept: the figure is an estimate for
// comparison, not an invoice.
func (p Prices) Provisioned(wps, rps, utilisation float64, c Class) float64 {
	if utilisation <= 0 || utilisation > 1 {
		utilisation = 1
	}
	hourly := (wps*p.WCUHour.Value + rps*p.RCUHour.Value) / utilisation
	return hourly * HoursPerMonth * p.requestFactor(c)
}

// PITR returns the monthly US$ of point-in-time recovery on gb gigabytes.
func (p Prices) PITR(gb float64) float64 { return gb * p.PITRGBMonth.Value }

// Export returns the US$ of one export of gb gigabytes to S3.
func (p Prices) Export(gb float64) float64 { return gb * p.ExportGB.Value }

// Import returns the US$ of importing gb gigabytes of uncompressed
// source data from S3 into a new table: no write units are consumed,
// the data processed is billed (items that fail to load included).
func (p Prices) Import(gb float64) float64 { return gb * p.ImportGB.Value }

// Streams returns the monthly US$ of reads read request units (GetRecords
// calls) on DynamoDB Streams.
func (p Prices) Streams(reads float64) float64 { return reads / 1e5 * p.StreamPer100k.Value }

// Monthly is a month's bill for one table under one class.
type Monthly struct {
	Class    Class
	Requests float64
	Storage  float64
}

// Total returns requests + storage.
func (m Monthly) Total() float64 { return m.Requests + m.Storage }

// Classes returns the monthly on-demand bill of a table under Standard and
// under Standard-IA, so that the cheaper can be chosen: IA pays off when
// storage dominates requests.
func (p Prices) Classes(wru, rru, gb float64) (standard, ia Monthly) {
	standard = Monthly{Standard, p.OnDemand(wru, rru, Standard), p.Storage(gb, Standard)}
	ia = Monthly{StandardIA, p.OnDemand(wru, rru, StandardIA), p.Storage(gb, StandardIA)}
	return standard, ia
}
