package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/cardapio/cardapio/throughput"
)

// The glue between the engine and the throughput model (Options.Throughput):
// tables are defined in the model as their schema changes, requests are
// admitted by it, and its refusals become DynamoDB's errors.

// defaultWarm is the warm throughput, read and write, of on-demand tables
// and indexes created without one.
func (e *Engine) defaultWarm() [2]int64 {
	w := [2]int64{throughput.DefaultWarmRead, throughput.DefaultWarmWrite}
	if e.opts.WarmRead > 0 {
		w[0] = e.opts.WarmRead
	}
	if e.opts.WarmWrite > 0 {
		w[1] = e.opts.WarmWrite
	}
	return w
}

// raiseWarm merges a requested warm throughput into the current one:
// warm throughput only ever rises.
func raiseWarm(cur, req *WarmThroughput) *WarmThroughput {
	if req == nil {
		return cur
	}
	out := &WarmThroughput{}
	if cur != nil {
		*out = *cur
	}
	for _, f := range []struct{ dst, src **int64 }{{&out.ReadUnitsPerSecond, &req.ReadUnitsPerSecond}, {&out.WriteUnitsPerSecond, &req.WriteUnitsPerSecond}} {
		if *f.src != nil && (*f.dst == nil || **f.src > **f.dst) {
			v := **f.src
			*f.dst = &v
		}
	}
	return out
}

// warmOf is the warm read and write throughput of the table or of an
// index with the requested warm throughput req: the default, raised by
// the request.
func (t *table) warmOf(req *WarmThroughput) (read, write int64) {
	read, write = t.defWarm[0], t.defWarm[1]
	if req != nil && req.ReadUnitsPerSecond != nil {
		read = max(read, *req.ReadUnitsPerSecond)
	}
	if req != nil && req.WriteUnitsPerSecond != nil {
		write = max(write, *req.WriteUnitsPerSecond)
	}
	return read, write
}

// schemaChanged tells the throughput model and the OnSchema hook of a
// table's new definition; the caller holds the table's lock.
func (e *Engine) schemaChanged(t *table, d *TableDescription, deleted bool) {
	if m := e.opts.Throughput; m != nil {
		if deleted {
			m.Drop(t.name)
		} else {
			table, gsis := t.specs()
			// The specs come from a validated definition; Define refuses
			// only what validation already excludes.
			_ = m.Define(t.name, table, gsis)
		}
	}
	if e.opts.OnSchema != nil {
		e.opts.OnSchema(d, deleted)
	}
}

// specs describes the table and its GSIs to the throughput model.
func (t *table) specs() (throughput.ResourceSpec, map[string]throughput.ResourceSpec) {
	spec := func(tp ProvisionedThroughputDescription, od *OnDemandThroughput, warm *WarmThroughput, size int64) throughput.ResourceSpec {
		s := throughput.ResourceSpec{
			ReadCapacity:  float64(tp.ReadCapacityUnits),
			WriteCapacity: float64(tp.WriteCapacityUnits),
			SizeGB:        float64(size) / (1 << 30),
		}
		r, w := t.warmOf(warm)
		s.WarmRead, s.WarmWrite = float64(r), float64(w)
		if od != nil {
			if od.MaxReadRequestUnits != nil && *od.MaxReadRequestUnits > 0 {
				s.MaxRead = float64(*od.MaxReadRequestUnits)
			}
			if od.MaxWriteRequestUnits != nil && *od.MaxWriteRequestUnits > 0 {
				s.MaxWrite = float64(*od.MaxWriteRequestUnits)
			}
		}
		return s
	}
	mode := throughput.Provisioned
	if t.billing == "PAY_PER_REQUEST" {
		mode = throughput.OnDemand
	}
	ts := spec(t.throughput, t.onDemand, t.warm, t.size)
	ts.Mode = mode
	gsis := make(map[string]throughput.ResourceSpec, len(t.gsis))
	for _, ix := range t.gsis {
		gsis[ix.name] = spec(ix.throughput, ix.onDemand, ix.warm, ix.size) // mode: the table's
	}
	return ts, gsis
}

// describe is the table's description, with the warm throughput of
// on-demand tables and indexes as the model has adapted it (it rises
// with traffic) when the model is on; the caller holds the table's lock.
func (e *Engine) describe(t *table) *TableDescription {
	d := t.describe()
	m := e.opts.Throughput
	if m == nil || t.billing != "PAY_PER_REQUEST" {
		return d
	}
	if r, w, ok := m.Warm(t.name, ""); ok && d.WarmThroughput != nil {
		d.WarmThroughput.ReadUnitsPerSecond, d.WarmThroughput.WriteUnitsPerSecond = int64(r), int64(w)
	}
	for i := range d.GlobalSecondaryIndexes {
		g := &d.GlobalSecondaryIndexes[i]
		if r, w, ok := m.Warm(t.name, g.IndexName); ok && g.WarmThroughput != nil {
			g.WarmThroughput.ReadUnitsPerSecond, g.WarmThroughput.WriteUnitsPerSecond = int64(r), int64(w)
		}
	}
	return d
}

// request converts an admission for the model, appending its index
// charges to ics (nil: a new slice when there are any).
func request(a *Admission, ics []throughput.IndexCharge) throughput.Request {
	r := throughput.Request{Table: a.Table, Index: a.Index, Hash: a.Hash, Key: a.Key, Read: a.Read, Write: a.Write}
	if len(a.Indexes) == 0 {
		return r
	}
	if ics == nil {
		ics = make([]throughput.IndexCharge, 0, len(a.Indexes))
	}
	for _, ix := range a.Indexes {
		ics = append(ics, throughput.IndexCharge{Name: ix.Name, Hash: ix.Hash, Key: ix.Key, Write: ix.Write})
	}
	r.Indexes = ics
	return r
}

// modelAdmit decides admissions with the model, together: nil when
// admitted, otherwise the first refusal.
func (e *Engine) modelAdmit(reqs []Admission) *throughput.Throttle {
	m := e.opts.Throughput
	if len(reqs) == 1 {
		return m.Admit(request(&reqs[0], nil))
	}
	for _, th := range m.AdmitAll(requests(reqs)) {
		if th != nil {
			return th
		}
	}
	return nil
}

func requests(reqs []Admission) []throughput.Request {
	rs := make([]throughput.Request, len(reqs))
	for i := range reqs {
		rs[i] = request(&reqs[i], nil)
	}
	return rs
}

// throttleError is the exception a refused request fails with.
func throttleError(th *throughput.Throttle) *Error {
	out := &Error{Type: th.Exception, Message: th.Message, ThrottlingReasons: make([]ThrottlingReason, len(th.Reasons))}
	for i, r := range th.Reasons {
		out.ThrottlingReasons[i] = ThrottlingReason{Reason: string(r.Reason), Resource: r.Resource}
	}
	return out
}

// admitTxn admits a transaction's actions, all or nothing. The hook's
// refusal is returned as is; the model's cancels the transaction with a
// reason per action (ThrottlingError or ProvisionedThroughputExceeded
// for the actions at fault, None for the others), as DynamoDB does.
func (e *Engine) admitTxn(ctx context.Context, reqs []Admission) error {
	if unmetered(ctx) {
		return nil
	}
	if e.opts.Admit != nil {
		if err := e.opts.Admit(ctx, reqs); err != nil {
			return err
		}
	}
	if e.opts.Throughput == nil || len(reqs) == 0 {
		return nil
	}
	ths := e.opts.Throughput.AdmitAll(requests(reqs))
	if ths == nil {
		return nil
	}
	reasons := make([]CancellationReason, len(reqs))
	for i, th := range ths {
		reasons[i].Code = "None"
		if th != nil {
			reasons[i] = CancellationReason{Code: th.Code(), Message: th.Message}
		}
	}
	return cancelled(reasons)
}

// keyText is what throughput reports show of an encoded key: a string
// key's text, up to its terminator; nil for other keys.
func keyText(part []byte) []byte {
	if len(part) == 0 || part[0] < 0x20 {
		return nil
	}
	if i := bytes.IndexByte(part, 0); i >= 0 {
		return part[:i]
	}
	return part
}

// settle applies the delayed changes to a table's global secondary
// indexes whose time has come, before an index read.
func (e *Engine) settle(t *table) {
	if t.lag == nil {
		return
	}
	due, ok := t.lag.Next()
	if !ok || due.After(e.opts.Now()) {
		return
	}
	t.mu.Lock()
	t.lag.Drain(applyIndexOp)
	t.mu.Unlock()
}

// Throughput returns the throughput model's figures: per table and index,
// the rates, the consumed and throttled units per partition and per
// second, the splits and the most throttled keys. ok is false when the
// engine runs without the model.
func (e *Engine) Throughput() (s throughput.Snapshot, ok bool) {
	if e.opts.Throughput == nil {
		return throughput.Snapshot{}, false
	}
	return e.opts.Throughput.Snapshot(), true
}

// ThroughputPath is where cardapio serve answers with the throughput
// model's figures (ThroughputHandler), beside the DynamoDB endpoint.
const ThroughputPath = "/cardapio/throughput"

// ThroughputHandler serves the throughput model's figures as JSON (GET
// only), for load generators and people watching a run; it answers 404
// when the engine runs without the model.
func (e *Engine) ThroughputHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		s, ok := e.Throughput()
		if !ok {
			http.Error(w, "the throughput model is off (start with --throughput)", http.StatusNotFound)
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
}
