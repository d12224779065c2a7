package engine

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cardapio/cardapio/engine/auth"
)

// MemoryPath is where cardapio serve answers with what the tables hold
// and what the process takes: Stored, the memory limit in force, the live
// heap and the peak RSS (MemoryStats, JSON).
const MemoryPath = "/cardapio/memory"

// Stored is what an engine's tables hold, in bytes as DynamoDB counts
// them: items (TableSizeBytes summed), index entries (IndexSizeBytes
// summed) and the records streams retain.
type Stored struct {
	Items   int64 `json:"items"`
	Count   int64 `json:"itemCount"`
	Indexes int64 `json:"indexes"`
	Streams int64 `json:"streams"`
}

// Total is every byte counted: what the memory limit follows.
func (s Stored) Total() int64 { return s.Items + s.Indexes + s.Streams }

func (s *Stored) add(o Stored) {
	s.Items += o.Items
	s.Count += o.Count
	s.Indexes += o.Indexes
	s.Streams += o.Streams
}

// Stored sums what the engine's tables hold. Each table is read under its
// read lock for a moment; the sum is a consistent figure per table, not
// across tables.
func (e *Engine) Stored() Stored {
	e.mu.RLock()
	tables := make([]*table, 0, len(e.tables))
	for _, t := range e.tables {
		tables = append(tables, t)
	}
	e.mu.RUnlock()
	var st Stored
	for _, t := range tables {
		t.mu.RLock()
		st.Items += t.size
		st.Count += int64(t.items.len())
		for _, ix := range t.indexes() {
			st.Indexes += ix.size
		}
		t.mu.RUnlock()
	}
	e.streams.mu.Lock()
	streams := make([]*stream, 0, len(e.streams.byARN))
	for _, s := range e.streams.byARN {
		streams = append(streams, s)
	}
	e.streams.mu.Unlock()
	for _, s := range streams {
		s.mu.RLock()
		st.Streams += s.bytes
		s.mu.RUnlock()
	}
	return st
}

// Stored sums what every space's tables hold.
func (s *Server) Stored() Stored {
	var st Stored
	for _, sp := range s.Spaces() {
		st.add(sp.Engine.Stored())
	}
	return st
}

// MemoryLimit ties the Go runtime's soft memory limit (what GOMEMLIMIT
// sets) to what the tables hold: Factor x Stored().Total() + Floor,
// recomputed every Every. Without a limit the collector lets the heap
// grow to twice its live size (GOGC=100), so a server holding 1 GB of
// items would take 2.5 to 3 GB; under the limit it collects more often
// as the heap nears it, and the process's memory (the limit counts all of
// the runtime's, not only the heap) stays near Factor x the data. The
// limit never goes below MinHeadroom x the live heap plus what the
// runtime holds beside the heap: items whose memory per stored byte
// exceeds Factor (small items, whose keys, headers and tree slots weigh
// more than their bytes) would otherwise keep the collector running
// without end (the runtime caps its share at about half the CPU).
type MemoryLimit struct {
	Factor      float64
	Floor       int64
	MinHeadroom float64
	Every       time.Duration
	// Fixed, when positive, is a limit in bytes that does not follow the
	// tables (serve --memory-limit SIZE).
	Fixed int64
}

// The default memory limit: 1.5 x the stored bytes + 48 MiB, at least
// 1.25 x the live heap plus what the runtime holds beside the heap,
// recomputed every second. Stored items take about 1.1 to 1.4 times
// their bytes of live heap (see record.go), so 1.5 x leaves the
// collector room and keeps a million of the reference model's items
// (169 bytes) under twice their bytes of RSS.
const (
	DefaultMemoryFactor      = 1.5
	DefaultMemoryFloor       = 48 << 20
	DefaultMemoryMinHeadroom = 1.25
	DefaultMemoryEvery       = time.Second
)

func (m MemoryLimit) withDefaults() MemoryLimit {
	if m.Factor <= 0 {
		m.Factor = DefaultMemoryFactor
	}
	if m.Floor <= 0 {
		m.Floor = DefaultMemoryFloor
	}
	if m.MinHeadroom <= 0 {
		m.MinHeadroom = DefaultMemoryMinHeadroom
	}
	if m.Every <= 0 {
		m.Every = DefaultMemoryEvery
	}
	return m
}

// limitFor is the limit for what the tables hold, the live heap and
// what the runtime holds beside the heap.
func (m MemoryLimit) limitFor(stored, live, beside int64) int64 {
	if m.Fixed > 0 {
		return m.Fixed
	}
	l := m.Factor*float64(stored) + float64(m.Floor)
	if h := m.MinHeadroom*float64(live) + float64(beside); h > l {
		l = h
	}
	if l >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(l)
}

// memState is the limit in force, for MemoryPath.
type memState struct {
	mu     sync.Mutex
	on     bool
	limit  int64
	config MemoryLimit
}

// RunMemoryLimit keeps the runtime's memory limit at m's figure for what
// the server's tables hold until ctx ends, then puts back the limit that
// was in force before. It returns at once when ctx is already done.
func (s *Server) RunMemoryLimit(ctx context.Context, m MemoryLimit) {
	m = m.withDefaults()
	before := debug.SetMemoryLimit(-1)
	set := func() {
		live, beside := liveHeap()
		l := m.limitFor(s.Stored().Total(), live, beside)
		debug.SetMemoryLimit(l)
		s.mem.mu.Lock()
		s.mem.on, s.mem.limit, s.mem.config = true, l, m
		s.mem.mu.Unlock()
	}
	set()
	if m.Fixed > 0 {
		<-ctx.Done()
		debug.SetMemoryLimit(before)
		return
	}
	t := time.NewTicker(m.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			debug.SetMemoryLimit(before)
			s.mem.mu.Lock()
			s.mem.on = false
			s.mem.mu.Unlock()
			return
		case <-t.C:
			set()
		}
	}
}

// liveHeap is the heap the last collection found live, and what the
// runtime holds beside heap objects and free heap (span fragmentation,
// metadata, stacks), in bytes: the limit counts both.
func liveHeap() (live, beside int64) {
	sm := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/free:bytes"}}
	metrics.Read(sm)
	var v [5]int64
	for i := range sm {
		if sm[i].Value.Kind() == metrics.KindUint64 {
			v[i] = int64(sm[i].Value.Uint64())
		}
	}
	return v[0], max(0, v[1]-v[2]-v[3]-v[4])
}

// MemoryStats is the answer at MemoryPath.
type MemoryStats struct {
	Stored Stored `json:"stored"`
	// StoredTotal is Stored's total, what the limit follows.
	StoredTotal int64 `json:"storedTotal"`
	// Limit is the runtime's soft memory limit in bytes (math.MaxInt64:
	// none), and Rule how it is set: "1.5 x stored + 50331648, at least 1.25 x live heap",
	// "fixed", "GOMEMLIMIT" or "none".
	Limit int64  `json:"limit"`
	Rule  string `json:"rule"`
	// LiveHeap is the heap the last collection found live; Total the
	// memory the Go runtime has mapped and not released (what the limit
	// bounds); RSS and PeakRSS the process's resident memory now and at
	// its highest (VmRSS, VmHWM from /proc; 0 where there is no /proc).
	LiveHeap int64 `json:"liveHeap"`
	Total    int64 `json:"runtimeTotal"`
	RSS      int64 `json:"rss"`
	PeakRSS  int64 `json:"peakRss"`
	// GCCPUSeconds is the CPU time the collector has taken since start,
	// and GCCycles its completed cycles.
	GCCPUSeconds float64 `json:"gcCpuSeconds"`
	GCCycles     uint64  `json:"gcCycles"`
}

// Memory reports what the tables hold and what the process takes.
func (s *Server) Memory() MemoryStats {
	st := s.Stored()
	ms := MemoryStats{Stored: st, StoredTotal: st.Total(), Limit: debug.SetMemoryLimit(-1)}
	s.mem.mu.Lock()
	on, cfg := s.mem.on, s.mem.config
	s.mem.mu.Unlock()
	switch {
	case on && cfg.Fixed > 0:
		ms.Rule = "fixed"
	case on:
		ms.Rule = strconv.FormatFloat(cfg.Factor, 'g', -1, 64) + " x stored + " + strconv.FormatInt(cfg.Floor, 10) +
			", at least " + strconv.FormatFloat(cfg.MinHeadroom, 'g', -1, 64) + " x live heap"
	case ms.Limit != math.MaxInt64:
		ms.Rule = "GOMEMLIMIT"
	default:
		ms.Rule = "none"
	}
	sm := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sm)
	u := func(i int) uint64 {
		if sm[i].Value.Kind() == metrics.KindUint64 {
			return sm[i].Value.Uint64()
		}
		return 0
	}
	ms.LiveHeap = int64(u(0))
	ms.Total = int64(u(1) - u(2))
	if sm[3].Value.Kind() == metrics.KindFloat64 {
		ms.GCCPUSeconds = sm[3].Value.Float64()
	}
	ms.GCCycles = u(4)
	ms.RSS, ms.PeakRSS = procStatus("VmRSS:"), procStatus("VmHWM:")
	return ms
}

// procStatus reads one kB figure of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n << 10
		}
	}
	return 0
}

// serveMemory answers GET MemoryPath. Under Keys only a verified signature
// gets the figures (they sum every account's tables).
func (s *Server) serveMemory(w http.ResponseWriter, r *http.Request) {
	if s.opts.Keys != nil {
		sig, aerr := auth.Parse(r.Header, r.URL.RawQuery)
		if aerr == nil {
			_, aerr = s.opts.Keys.Verify(r, nil, &sig, s.opts.Now())
		}
		if aerr != nil {
			refuseGet(w, aerr)
			return
		}
	}
	b, _ := json.Marshal(s.Memory())
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

// refuseGet answers a GET of figures whose signature is missing or wrong
// (403, the authentication error in the wire shape).
func refuseGet(w http.ResponseWriter, aerr *auth.Error) {
	b := appendError(nil, authError(aerr))
	w.Header()["Content-Type"] = jsonTypeHeader
	w.WriteHeader(http.StatusForbidden)
	w.Write(b)
}
