package dataset

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/capacity"
	"github.com/cardapio/cardapio/capacity/estimate"
	"github.com/cardapio/cardapio/catalog"
)

// Output is what a worker makes of one block: per table, the block's
// items encoded (and, for a file sink, compressed) in a shuffled but
// deterministic order, and per entity the figures of the summary.
type Output struct {
	Block  Block
	Tables []TableOutput // in model table order; tables without items left out
	Stats  []EntityStats // per node, indexed like Population.Nodes
}

// TableOutput is one table's share of a block.
type TableOutput struct {
	Table *catalog.Table
	Items int64
	// Raw is the bytes of the lines before compression; Data what is
	// written (compressed when the sink compresses).
	Raw  int64
	Data []byte
	// WriteUnits is what a load of these items costs (capacity.Rules).
	WriteUnits float64
	// KBUnits counts each item in whole KB, at least one: the measure
	// of AWS's advice on import object sizes.
	KBUnits float64
	// Units are the write units of each line of Data, in Data's order,
	// for load sinks (Encoding.Items).
	Units []float64
}

// EntityStats are one entity's figures in a block or a run.
type EntityStats struct {
	Items       int64
	ItemBytes   int64   // sizes as DynamoDB counts them
	StoredBytes int64   // billed storage: overheads and index entries included
	WriteUnits  float64 // a BatchWriteItem load: table and indexes
	Dropped     int64   // items whose key kept repeating a sibling's
	KeyErrors   int64   // items whose key could not be rendered
}

func (s *EntityStats) add(o EntityStats) {
	s.Items += o.Items
	s.ItemBytes += o.ItemBytes
	s.StoredBytes += o.StoredBytes
	s.WriteUnits += o.WriteUnits
	s.Dropped += o.Dropped
	s.KeyErrors += o.KeyErrors
}

// Sink consumes blocks in block order.
type Sink interface {
	// Encode says how a worker prepares a table's lines: the line format
	// and compression; Items asks for the items themselves instead.
	Encoding() Encoding
	// Write receives the outputs in block order, from one goroutine.
	Write(ctx context.Context, o *Output) error
	// Close finishes the output (manifests, last objects).
	Close(ctx context.Context) error
}

// Encoding is how workers prepare a table's items for a sink.
type Encoding struct {
	Format      string // s3-import ({"Item": ...} lines), jsonl (item lines)
	Compression string // zstd, gzip, none
	Items       bool   // items' JSON lines, uncompressed, with their write units (load sinks)
}

// Progress is a snapshot of a run.
type Progress struct {
	Items, Bytes  int64 // items and uncompressed line bytes so far
	Blocks, Of    int   // blocks done, of
	ExpectedItems float64
	Elapsed       time.Duration
}

// RunOptions choose how a population is produced.
type RunOptions struct {
	// Part and Parts select one slice of the population (0 <= Part <
	// Parts); Parts 0 or 1 is the whole.
	Part, Parts int
	// Workers generate blocks in parallel; 0 is GOMAXPROCS.
	Workers int
	// Skip lists blocks already done (by Seq), for resumed loads.
	Skip func(seq int) bool
	// Progress, when set, is called about every Every with a snapshot.
	Progress func(Progress)
	Every    time.Duration
	Rules    capacity.Rules
}

// Result is a run's figures.
type Result struct {
	Pop    *Population
	Part   int
	Parts  int
	Blocks int
	Stats  []EntityStats
	Hist   []*capacity.SizeHistogram
	Tables map[string]*EntityStats // per table name
	// TableRaw is each table's uncompressed line bytes.
	TableRaw map[string]int64
	Raw      int64
	Elapsed  time.Duration

	measureOnce sync.Once
	measured    map[string]estimate.Measured
}

// Run generates the population's part, hands every block to the sink
// in block order and returns the figures. The output is the same, byte
// for byte, whatever Workers is. Its steps: the part's blocks, the
// workers that generate them (generate), the collector that writes them
// in order (collect), and the sink's close.
func (p *Population) Run(ctx context.Context, sink Sink, o RunOptions) (*Result, error) {
	if o.Parts <= 0 {
		o.Parts = 1
	}
	blocks, err := p.Part(o.Part, o.Parts)
	if err != nil {
		return nil, err
	}
	off, err := p.offsets()
	if err != nil {
		return nil, err
	}
	enc := sink.Encoding()
	workers := workerCount(o.Workers, enc)
	start := time.Now()
	res := p.newResult(o, len(blocks))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &blockRun{p: p, blocks: blocks, o: o, cancel: cancel, start: start}
	r.generate(ctx, workers, enc, off, res)
	c, err := r.collect(ctx, sink, res)
	if err != nil {
		return nil, err
	}
	if err := sink.Close(ctx); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	if o.Progress != nil {
		o.Progress(c.progress(res.Elapsed))
	}
	return res, nil
}

// workerCount is the generating goroutines: asked, or one a processor,
// less one for a load's senders.
func workerCount(asked int, enc Encoding) int {
	if asked > 0 {
		return asked
	}
	workers := runtime.GOMAXPROCS(0)
	if enc.Items && workers > 1 {
		// A load: one processor left to the senders, whose every
		// answer waits for one. A generator makes items several times
		// faster than a server takes them.
		workers--
	}
	return workers
}

// newResult is a run's empty figures.
func (p *Population) newResult(o RunOptions, blocks int) *Result {
	res := &Result{Pop: p, Part: o.Part, Parts: o.Parts, Blocks: blocks, Stats: make([]EntityStats, len(p.Nodes)),
		Hist: make([]*capacity.SizeHistogram, len(p.Nodes)), Tables: map[string]*EntityStats{}, TableRaw: map[string]int64{}}
	for i := range res.Hist {
		res.Hist[i] = &capacity.SizeHistogram{}
	}
	for _, t := range p.Model.Tables {
		res.Tables[t.Name] = &EntityStats{}
	}
	return res
}

// blockRun is one Run's blocks in flight: the workers send outputs, the
// collector puts them back in order, and a window of tokens bounds the
// blocks in memory.
type blockRun struct {
	p      *Population
	blocks []Block
	o      RunOptions
	cancel context.CancelFunc
	start  time.Time

	outs   chan *Output
	window chan struct{}
	failed atomic.Value
}

// skipped reports whether block i was done by an earlier run.
func (r *blockRun) skipped(i int) bool { return r.o.Skip != nil && r.o.Skip(r.blocks[i].Seq) }

// generate starts the workers and the feeder of block indexes; outs is
// closed when every worker is done.
func (r *blockRun) generate(ctx context.Context, workers int, enc Encoding, off map[*Node][]int64, res *Result) {
	jobs := make(chan int)
	r.outs = make(chan *Output, workers)
	// Loads hold every item of a block in flight as SDK values: fewer
	// blocks ahead keep the heap (and the collector's work) small.
	ahead := 2*workers + 2
	if enc.Items {
		ahead = workers + 1
	}
	r.window = make(chan struct{}, ahead)
	var wg sync.WaitGroup
	tables := estimateTables(r.p.Model)
	hs := &hists{h: res.Hist}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := newWorker(r.p, enc, tables, r.o.Rules, hs)
			for i := range jobs {
				out, err := wk.block(off, r.blocks[i])
				if err != nil {
					r.failed.Store(err)
					r.cancel()
					return
				}
				select {
				case r.outs <- out:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range r.blocks {
			if r.skipped(i) {
				continue
			}
			select {
			case r.window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(r.outs) }()
}

// counts are what the collector wrote so far, for progress.
type counts struct {
	items, raw int64
	done, of   int
	expected   float64
}

func (c *counts) progress(elapsed time.Duration) Progress {
	return Progress{Items: c.items, Bytes: c.raw, Blocks: c.done, Of: c.of, ExpectedItems: c.expected, Elapsed: elapsed}
}

// collect writes the workers' outputs to the sink in block order, adds
// them to the figures and reports progress; the first worker's or the
// sink's error ends the run.
func (r *blockRun) collect(ctx context.Context, sink Sink, res *Result) (*counts, error) {
	c := &counts{of: len(r.blocks)}
	for _, b := range r.blocks {
		c.expected += b.Items
	}
	pending := map[int]*Output{}
	next := 0
	lastTick := time.Now()
	every := r.o.Every
	if every <= 0 {
		every = time.Second
	}
	var sinkErr error
	for out := range r.outs {
		pending[out.Block.Seq] = out
		for next < len(r.blocks) {
			if r.skipped(next) {
				next++
				continue
			}
			b, ok := pending[r.blocks[next].Seq]
			if !ok {
				break
			}
			delete(pending, r.blocks[next].Seq)
			next++
			if sinkErr == nil {
				if err := sink.Write(ctx, b); err != nil {
					sinkErr = err
					r.cancel()
				}
			}
			<-r.window
			res.add(r.p, b)
			b.release()
			c.done++
			for _, t := range b.Tables {
				c.items += t.Items
				c.raw += t.Raw
			}
			if r.o.Progress != nil && time.Since(lastTick) >= every {
				lastTick = time.Now()
				r.o.Progress(c.progress(time.Since(r.start)))
			}
		}
	}
	if err, ok := r.failed.Load().(error); ok && err != nil {
		return nil, err
	}
	if sinkErr != nil {
		return nil, sinkErr
	}
	if err := ctx.Err(); err != nil && next < len(r.blocks) {
		return nil, err
	}
	return c, nil
}

func (r *Result) add(p *Population, o *Output) {
	for i, s := range o.Stats {
		r.Stats[i].add(s)
		if t := p.Nodes[i].Entity.Table; t != nil {
			ts := r.Tables[t.Name]
			if ts == nil {
				ts = &EntityStats{}
				r.Tables[t.Name] = ts
			}
			ts.add(s)
		}
	}
	for _, t := range o.Tables {
		r.Raw += t.Raw
		r.TableRaw[t.Table.Name] += t.Raw
	}
}

// estimateTables describes the model's tables as the billing rules see
// them.
func estimateTables(m *catalog.Model) map[*catalog.Table]*capacity.Table {
	out := map[*catalog.Table]*capacity.Table{}
	for _, t := range m.Tables {
		out[t] = estimate.Table(t)
	}
	return out
}

// worker generates blocks: one gen, one set of buffers, reused.
type worker struct {
	p      *Population
	g      *gen
	enc    Encoding
	tables map[*catalog.Table]*capacity.Table
	rules  capacity.Rules
	tix    map[*catalog.Table]int
	out    *Output
	lines  [][]byte // per table: the block's encoded lines
	ends   [][]int  // per table: end offset of each line
	perm   []int32
	units  [][]float64 // per table: write units of each line (loads)
	comp   *compressor
	// sizes are the block's item sizes per node, added to the run's
	// histograms (exact percentiles) when the block is done.
	sizes [][]uint32
	hists *hists
	// per node: its items' shape (nil until its first item)
	shapes  []*shape
	vals    []*attr.Value // an item's values per out field
	fsizes  []int         // an item's attribute sizes (PutPlan's scratch)
	keyVals []attr.Value  // an item's rendered keys as values
}

// hists are a run's size histograms, shared by its workers: counts do not
// depend on the order they are added in.
type hists struct {
	mu sync.Mutex
	h  []*capacity.SizeHistogram
}

func (h *hists) add(sizes [][]uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, ss := range sizes {
		for _, sz := range ss {
			h.h[i].Add(int(sz))
		}
	}
}

func newWorker(p *Population, enc Encoding, tables map[*catalog.Table]*capacity.Table, rules capacity.Rules, h *hists) *worker {
	w := &worker{p: p, enc: enc, tables: tables, rules: rules, tix: map[*catalog.Table]int{}, hists: h, sizes: make([][]uint32, len(p.Nodes))}
	for i, t := range p.Model.Tables {
		w.tix[t] = i
	}
	w.lines = make([][]byte, len(p.Model.Tables))
	w.units = make([][]float64, len(p.Model.Tables))
	w.ends = make([][]int, len(p.Model.Tables))
	w.shapes = make([]*shape, len(p.Nodes))
	w.g = newGen(p, nil)
	w.g.emitFrame = w.emit
	w.g.yield = enc.Items
	w.comp = newCompressor(enc.Compression)
	return w
}

// shape is what a worker writes every item of one entity with: the
// billing rules' plan of its fields (capacity.PutPlan, the fixed parts
// worked out once), its table's position and its discriminator's value.
type shape struct {
	plan    *capacity.PutPlan
	ti      int
	typeVal attr.Value
}

func (w *worker) shapeOf(n *Node) *shape {
	if sh := w.shapes[n.ix]; sh != nil {
		return sh
	}
	c := n.comp
	names := make([]string, len(c.out))
	for i, of := range c.out {
		names[i] = of.name
	}
	t := n.Entity.Table
	sh := &shape{plan: w.rules.PutPlan(w.tables[t], names), ti: w.tix[t], typeVal: attr.Str(n.Entity.TypeValue)}
	w.shapes[n.ix] = sh
	if len(c.out) > len(w.vals) {
		w.vals = make([]*attr.Value, len(c.out))
		w.fsizes = make([]int, len(c.out))
	}
	if len(c.keys) > len(w.keyVals) {
		w.keyVals = make([]attr.Value, len(c.keys))
	}
	return sh
}

// emit sizes one item and writes its line, from its frame: each out
// field's value is the slot's own (or the rendered key, or the
// discriminator), pointed at, never copied into an item.
func (w *worker) emit(f *frame) {
	c := f.c
	n := c.node
	sh := w.shapeOf(n)
	vals := w.vals[:len(c.out)]
	for i, of := range c.out {
		switch of.kind {
		case 0:
			vals[i] = nil
			if f.st[of.slot] == stPresent {
				vals[i] = &f.vals[of.slot]
			}
		case 1:
			k := &c.keys[of.key]
			if len(k.tmpl.Parts) == 1 && k.tmpl.Parts[0].Attr != "" {
				// A key of one placeholder keeps the value's type.
				if v := w.g.slot(f, k.refs[0].slot); v != nil && v.Type != attr.S {
					vals[i] = v
					continue
				}
			}
			w.keyVals[of.key] = attr.Str(f.keyStr[of.key])
			vals[i] = &w.keyVals[of.key]
		case 2:
			vals[i] = &sh.typeVal
		}
	}
	pf := sh.plan.Put(vals, w.fsizes)
	size, wu := pf.Size, pf.WriteUnits
	st := &w.out.Stats[n.ix]
	st.Items++
	st.ItemBytes += int64(size)
	st.StoredBytes += int64(pf.StoredBytes)
	st.WriteUnits += wu
	w.sizes[n.ix] = append(w.sizes[n.ix], uint32(size))
	ti := sh.ti
	tout := &w.out.Tables[ti]
	tout.Items++
	tout.WriteUnits += wu
	tout.KBUnits += capacity.WriteUnits(size)
	b := w.lines[ti]
	if w.enc.Items {
		w.units[ti] = append(w.units[ti], wu)
	}
	if w.enc.Format == "jsonl" || w.enc.Items {
		b = c.enc.appendFields(b, vals)
	} else {
		b = append(b, `{"Item":`...)
		b = c.enc.appendFields(b, vals)
		b = append(b, '}')
	}
	b = append(b, '\n')
	w.lines[ti] = b
	w.ends[ti] = append(w.ends[ti], len(b))
}

// block generates one block and prepares its output.
func (w *worker) block(off map[*Node][]int64, b Block) (*Output, error) {
	nt := len(w.p.Model.Tables)
	out := &Output{Block: b, Tables: make([]TableOutput, nt), Stats: make([]EntityStats, len(w.p.Nodes))}
	for i, t := range w.p.Model.Tables {
		out.Tables[i].Table = t
		w.lines[i] = w.lines[i][:0]
		w.ends[i] = w.ends[i][:0]
		w.units[i] = w.units[i][:0]
	}
	w.out = out
	for i := range w.g.Dropped {
		w.g.Dropped[i], w.g.KeyErrors[i] = 0, 0
	}
	w.g.block(off, b)
	w.hists.add(w.sizes)
	for i := range w.sizes {
		w.sizes[i] = w.sizes[i][:0]
	}
	for i := range w.p.Nodes {
		out.Stats[i].Dropped = w.g.Dropped[i]
		out.Stats[i].KeyErrors = w.g.KeyErrors[i]
	}
	for ti := range out.Tables {
		shuffled, units := w.shuffle(ti, b)
		out.Tables[ti].Raw = int64(len(shuffled))
		if w.enc.Items {
			// A load: each line is an item, its JSON (with a line break the
			// import would have, counted in Raw, not sent).
			out.Tables[ti].Data, out.Tables[ti].Units = shuffled, units
			continue
		}
		data, err := w.comp.compress(shuffled)
		if err != nil {
			return nil, fmt.Errorf("compress: %w", err)
		}
		if w.enc.Compression != "none" && w.enc.Compression != "" {
			putBuf(shuffled) // compressed: the lines are no longer needed
		}
		out.Tables[ti].Data = data
	}
	w.out = nil
	return out, nil
}

// shuffle returns the table's lines of the block in a deterministic
// random order: items of one collection are generated together, and an
// import that reads them in that order writes one partition after
// another (AWS's advice: randomise sorted data).
func (w *worker) shuffle(ti int, b Block) ([]byte, []float64) {
	lines, ends := w.lines[ti], w.ends[ti]
	n := len(ends)
	if n == 0 {
		return nil, nil
	}
	if cap(w.perm) < n {
		w.perm = make([]int32, n)
	}
	perm := w.perm[:n]
	for i := range perm {
		perm[i] = int32(i)
	}
	r := newRNG(key2(mix(w.p.Opts.Seed), uint64(b.Seq)<<8|uint64(ti)))
	for i := n - 1; i > 0; i-- {
		j := r.Intn(int64(i + 1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	out := getBuf(len(lines))
	var units []float64
	if w.enc.Items {
		units = make([]float64, n)
	}
	for i, k := range perm {
		start := 0
		if k > 0 {
			start = ends[k-1]
		}
		out = append(out, lines[start:ends[k]]...)
		if units != nil {
			units[i] = w.units[ti][k]
		}
	}
	return out, units
}

// bufs recycles the blocks' byte buffers: a block's lines (or their
// compressed form) live from the worker until the sink has written them.
var bufs sync.Pool

func getBuf(n int) []byte {
	if b, ok := bufs.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n+n/8)
}

func putBuf(b []byte) {
	if cap(b) == 0 {
		return
	}
	b = b[:0]
	bufs.Put(&b)
}

// release returns an output's buffers once the sink is done with them.
func (o *Output) release() {
	for i := range o.Tables {
		putBuf(o.Tables[i].Data)
		o.Tables[i].Data = nil
	}
}
