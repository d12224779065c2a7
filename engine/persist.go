package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// Data that survives a restart. Open keeps an engine's tables in a data
// directory: an append-only log of every change (tables' definitions,
// TTL and stream settings, item changes with their stream records) and,
// once the log has grown, a snapshot of the whole state from which a new
// log segment starts (compaction). On Open the latest snapshot is loaded
// and the log replayed; indexes are rebuilt from the items.
//
// Changes are appended to the log in memory, under the table's lock, in
// the order they are applied; a flusher goroutine writes them out. An
// item change is encoded once, into the log's pending buffer itself
// (appendVersion): a put to a logged table allocates no more than one
// in memory. With
// SyncAlways a write is acknowledged only once its log record is written
// and synced to stable storage (fsync), so a kill -9 or a power cut loses
// no acknowledged write; concurrent writers share each fsync (group
// commit). With SyncInterval the flusher hands the log to the operating
// system every 2 ms and syncs it every Data.Interval: a kill -9 loses at
// most the writes acknowledged in the last 2 ms, a power cut those of
// the last interval (both longer when the machine is so loaded that the
// flusher is not scheduled in time). A transaction is one record: it is
// never kept in part. A clean Close loses nothing under either.
//
// A snapshot is taken once the log has grown by Data.SnapshotBytes, or by
// the last snapshot's size when that is larger: compaction then copies
// about as many bytes as were written, whatever the tables hold.
// Snapshots are taken in the background: the state is cut under every
// table's lock for a moment (definitions, streams, the log position),
// then items are copied a few thousand at a time under the read lock
// while writes go on into the next segment. Replaying that segment over
// the snapshot redoes every change made during the copy; a change is a
// whole item or a deletion, so redoing one the copy already saw is
// harmless.

// SyncMode is when the data log is synced to stable storage.
type SyncMode int

// Sync modes.
const (
	// SyncInterval writes and syncs the log every Data.Interval.
	SyncInterval SyncMode = iota
	// SyncAlways syncs before acknowledging each write.
	SyncAlways
)

func (m SyncMode) String() string {
	if m == SyncAlways {
		return "always"
	}
	return "interval"
}

// ParseSync reads a --sync flag: always or interval.
func ParseSync(s string) (SyncMode, error) {
	switch s {
	case "always":
		return SyncAlways, nil
	case "interval", "":
		return SyncInterval, nil
	}
	return 0, fmt.Errorf("--sync %q: want always or interval", s)
}

// Data says where and how an engine keeps its tables.
type Data struct {
	// Dir is the data directory; it is created if missing, and one
	// engine at a time may use it.
	Dir string
	// Sync is when the log reaches stable storage.
	Sync SyncMode
	// Interval is SyncInterval's period; default 100 ms.
	Interval time.Duration
	// SnapshotBytes is how much log, in bytes, starts a snapshot
	// (default 64 MiB), or the size of the last snapshot when larger.
	SnapshotBytes int64
	// Logf, when set, is told what recovery found and did (a damaged
	// tail cut away, files removed) and of write failures.
	Logf func(format string, args ...any)
}

// Recovery is what Open found in the data directory.
type Recovery struct {
	Snapshot string // the snapshot loaded, "" when none
	Segments int    // log segments replayed
	Records  int    // log records replayed
	Tables   int    // tables restored
	Items    int    // items restored
	// Cut is set when a damaged or torn end of the log was cut away:
	// what was removed and where it was kept.
	Cut string
}

// Write buffering.
const (
	flushEarly  = 256 << 10 // bytes buffered that wake the flusher before its time
	maxBuffered = 64 << 20  // bytes buffered beyond which writers wait for the flusher
)

// errClosed refuses writes to a closed engine.
var errClosed = errors.New("the engine is closed")

// store is an engine's data directory: the log being written, and the
// snapshots.
type store struct {
	e      *Engine
	dir    string
	mode   SyncMode
	every  time.Duration
	snapAt int64 // Data.SnapshotBytes
	logf   func(format string, args ...any)
	lock   *os.File

	mu       sync.Mutex
	cond     *sync.Cond // durable advanced, or err set
	buf      []byte     // appended, not yet handed to the flusher
	spare    []byte
	appended uint64 // bytes appended since Open
	durable  uint64 // bytes written and synced
	cuts     []segCut
	sinceCut int64 // bytes appended since the last snapshot's cut
	// nextSnap is how much log starts the next snapshot: SnapshotBytes,
	// or the size of the last snapshot when larger, so that a table
	// written once is not copied whole every SnapshotBytes of log (the
	// copying stays proportional to the writing).
	nextSnap int64
	nextSeg  uint64 // the number of the next segment
	err      error  // a write failure: no write is accepted after it
	idle     bool   // the flusher found nothing to write and waits for a wake

	state atomic.Int32 // 0 open, 1 failed, 2 closed

	kick chan struct{}
	done chan struct{} // the flusher has stopped

	// The segment being written: the flusher's own; syncs take fmu, and
	// written is how far the flusher has written.
	f       *os.File
	seg     uint64
	fmu     sync.Mutex
	written atomic.Uint64

	snapping atomic.Bool
	snaps    sync.WaitGroup

	// files is held across each change to what the directory's files
	// hold that a crash would keep (a segment written or created, a
	// snapshot renamed into place, a file removed), so that a test can
	// copy the directory as a kill -9 would leave it at one instant.
	// Only the flusher and the snapshotter take it, once a write.
	files sync.Mutex

	rec Recovery
}

// segCut is where the log moves to a new segment: the bytes appended
// before at belong to the old one.
type segCut struct {
	at   uint64
	seg  uint64
	done chan struct{} // closed once the new segment exists
}

// Open returns an engine whose tables are kept in d.Dir, restoring what
// the directory holds. A damaged end of the log (a torn last write) is
// cut at the last intact record, and d.Logf told; damage anywhere else
// is an error, as is a directory another engine holds.
func Open(opts Options, d Data) (*Engine, error) {
	if d.Dir == "" {
		return nil, errors.New("no data directory")
	}
	if d.Interval <= 0 {
		d.Interval = 100 * time.Millisecond
	}
	if d.SnapshotBytes <= 0 {
		d.SnapshotBytes = 64 << 20
	}
	if d.Logf == nil {
		d.Logf = func(string, ...any) {}
	}
	e := New(opts)
	s := &store{e: e, dir: d.Dir, mode: d.Sync, every: d.Interval, snapAt: d.SnapshotBytes, nextSnap: d.SnapshotBytes, logf: d.Logf,
		kick: make(chan struct{}, 1), done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockDir(filepath.Join(d.Dir, "LOCK"))
	if err != nil {
		return nil, err
	}
	s.lock = lock
	if err := s.recover(); err != nil {
		unlockDir(lock)
		return nil, err
	}
	e.data = s
	e.mu.RLock()
	for _, t := range e.tables {
		t.data = s
	}
	e.mu.RUnlock()
	e.streams.mu.Lock()
	for _, st := range e.streams.byARN {
		st.data = s
	}
	e.streams.mu.Unlock()
	go s.run()
	return e, nil
}

// Recovered reports what Open restored; zero for an in-memory engine.
func (e *Engine) Recovered() Recovery {
	if e.data == nil {
		return Recovery{}
	}
	return e.data.rec
}

// Close writes out and syncs what the log holds, and releases the data
// directory; writes are refused afterwards. It does nothing for an
// in-memory engine. The engine must no longer be serving requests.
func (e *Engine) Close() error {
	if e.data == nil {
		return nil
	}
	return e.data.close()
}

func (s *store) close() error {
	if !s.state.CompareAndSwap(0, 2) && !s.state.CompareAndSwap(1, 2) {
		return nil
	}
	s.mu.Lock()
	s.cond.Broadcast() // a snapshot waiting for the log gives up
	s.mu.Unlock()
	s.snaps.Wait()
	s.wake()
	<-s.done
	var err error
	if s.f != nil {
		err = s.f.Close()
	}
	unlockDir(s.lock)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	return err
}

func (s *store) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// writable refuses a write when the log cannot take it.
func (s *store) writable() error {
	switch s.state.Load() {
	case 0:
		return nil
	case 2:
		return &Error{Type: ErrInternal, Message: errClosed.Error()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Error{Type: ErrInternal, Message: "the data directory cannot be written: " + s.err.Error()}
}

// sync waits, under SyncAlways, until everything appended so far is
// durable.
func (s *store) sync() error {
	if s.mode != SyncAlways {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	target := s.appended
	for s.durable < target && s.err == nil {
		s.cond.Wait()
	}
	if s.durable < target {
		return &Error{Type: ErrInternal, Message: "the data directory cannot be written: " + s.err.Error()}
	}
	return nil
}

// fail records a write failure; every later write is refused.
func (s *store) fail(err error) {
	if s.err == nil {
		s.err = err
		s.state.CompareAndSwap(0, 1)
		s.logf("data: writing the log failed, no write is accepted any more: %v", err)
	}
	s.cond.Broadcast()
}

// appended notes n bytes appended (s.mu held) and says what the caller
// must do once it releases the lock.
func (s *store) added(n int) (wake, snap bool) {
	s.appended += uint64(n)
	s.sinceCut += int64(n)
	for len(s.buf) >= maxBuffered && s.err == nil && s.state.Load() == 0 {
		// The flusher is behind: wait rather than grow without bound.
		s.wake()
		s.cond.Wait()
	}
	wake = s.mode == SyncAlways || len(s.buf) >= flushEarly || s.idle
	s.idle = false
	return wake, s.sinceCut >= s.nextSnap && !s.snapping.Load()
}

func (s *store) after(wake, snap bool) {
	if wake {
		s.wake()
	}
	if snap && s.state.Load() == 0 && s.snapping.CompareAndSwap(false, true) {
		s.snaps.Add(1)
		go s.snapshot()
	}
}

// appendChange logs one item change whose item is given encoded.
func (s *store) appendChange(no uint32, del bool, item []byte, ev *streamRecord, keepOld bool) {
	s.mu.Lock()
	b, start := beginFrame(s.buf)
	b = append(b, recChange)
	b = appendChange(b, no, del, item, ev, keepOld)
	s.buf = endFrame(b, start)
	wake, snap := s.added(len(s.buf) - start)
	s.mu.Unlock()
	s.after(wake, snap)
}

// appendVersion logs the item change that stored version v of one of
// t's items (the hot path): the item's portable form is written by
// t.portable straight into the log's buffer, after the change's header
// and before its checksum, so that a put neither allocates nor copies
// its item again. The caller holds t.mu.
func (s *store) appendVersion(t *table, v version, ev *streamRecord, keepOld bool) {
	s.mu.Lock()
	b, start := beginFrame(s.buf)
	b = append(b, recChange)
	b = appendChange(b, t.no, false, nil, ev, keepOld)
	b = t.portable(b, v)
	s.buf = endFrame(b, start)
	wake, snap := s.added(len(s.buf) - start)
	s.mu.Unlock()
	s.after(wake, snap)
}

// appendPayload logs one record built by fill.
func (s *store) appendPayload(fill func([]byte) []byte) {
	s.mu.Lock()
	b, start := beginFrame(s.buf)
	s.buf = endFrame(fill(b), start)
	wake, snap := s.added(len(s.buf) - start)
	s.mu.Unlock()
	s.after(wake, snap)
}

// handOver is how often, under SyncInterval, the flusher hands what is
// appended to the operating system (which keeps it through a kill of
// the process), between the syncs that make it survive a power cut. The
// syncs run in their own goroutine, so that a slow fsync does not hold
// up the hand-over.
const handOver = 2 * time.Millisecond

// run is the flusher: it writes out what is appended, switching
// segments at snapshot cuts. Under SyncAlways it writes and syncs
// whenever there is something to write, and writers waiting in sync are
// released by each fsync (group commit); under SyncInterval it writes
// every handOver (or when flushEarly bytes wait), and syncLoop syncs
// every interval.
func (s *store) run() {
	defer close(s.done)
	var tick <-chan time.Time
	var tk *time.Ticker
	period := min(handOver, s.every)
	stopSync, syncDone := make(chan struct{}), make(chan struct{})
	if s.mode == SyncInterval {
		tk = time.NewTicker(period)
		defer tk.Stop()
		tick = tk.C
		go s.syncLoop(stopSync, syncDone)
	} else {
		close(syncDone)
	}
	stopped := false
	for {
		select {
		case <-s.kick:
		case <-tick:
		}
		if stopped {
			tk.Reset(period) // woken by the first write after a quiet time
			stopped = false
		}
		s.mu.Lock()
		final := s.state.Load() == 2
		b, end, cuts := s.swap(), s.appended, s.cuts
		s.cuts = nil
		failed := s.err != nil
		s.cond.Broadcast() // writers waiting for room have it
		if tk != nil && len(b) == 0 && len(cuts) == 0 && !final {
			// Nothing to write: no ticks until the next write wakes us.
			tk.Stop()
			stopped, s.idle = true, true
		}
		s.mu.Unlock()
		var err error
		if !failed && (len(b) > 0 || len(cuts) > 0) {
			err = s.write(b, end, cuts)
		}
		if err == nil && !failed {
			s.written.Store(end)
			if s.mode == SyncAlways || final {
				if final {
					close(stopSync)
					<-syncDone
				}
				err = s.syncFile()
			}
		}
		s.mu.Lock()
		s.recycle(b)
		if err != nil {
			s.fail(err)
		} else if !failed && (s.mode == SyncAlways || final) {
			s.durable = end
			s.cond.Broadcast()
		}
		s.mu.Unlock()
		if final {
			return
		}
	}
}

// swap hands the flusher what is appended and gives writers the spare
// buffer to append to (s.mu held). The spare is handed out once: writers
// append to it while the flusher writes the buffer it took, so it is
// spare again only once the flusher gives a buffer back. (Kept as the
// spare while writers appended to it, it was handed to them a second
// time as the flusher took it to write: after a flush too large to
// recycle, their appends overwrote frames being written, and the log
// failed its checksums at the next start.)
//
// Without a spare (the last buffer was too large to keep), writers get a
// new buffer of flushEarly bytes rather than one grown from nothing by
// their appends, which copied the log's bytes again at each doubling.
func (s *store) swap() []byte {
	b := s.buf
	s.buf, s.spare = s.spare[:0], nil
	if s.buf == nil && len(b) > 0 {
		s.buf = make([]byte, 0, flushEarly)
	}
	return b
}

// maxSpare bounds the buffer kept as the spare: a burst's buffer (up
// to maxBuffered) is let go, the usual ones (flushEarly, and a few
// times that when the flusher is late on a loaded machine) are kept.
const maxSpare = 16 * flushEarly

// recycle keeps a buffer the flusher has written as the next spare,
// unless it is large (s.mu held).
func (s *store) recycle(b []byte) {
	if cap(b) <= maxSpare {
		s.spare = b[:0]
	}
}

// syncLoop syncs, every interval, what the flusher has written.
func (s *store) syncLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(s.every)
	defer t.Stop()
	var synced uint64
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		w := s.written.Load()
		if w == synced {
			continue
		}
		err := s.syncFile()
		s.mu.Lock()
		if err != nil {
			s.fail(err)
			s.mu.Unlock()
			return
		}
		synced = w
		s.durable = max(s.durable, w)
		s.cond.Broadcast() // a snapshot waiting to be put in place
		s.mu.Unlock()
	}
}

// syncFile syncs the segment being written.
func (s *store) syncFile() error {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	return s.f.Sync()
}

// write writes b, the log's bytes up to end, moving to a new segment at
// each cut (the old one synced first). Only the flusher writes s.f; it
// changes it under fmu, which syncs hold.
func (s *store) write(b []byte, end uint64, cuts []segCut) error {
	start := end - uint64(len(b))
	for _, c := range cuts {
		k := c.at - start
		if err := s.writeFile(b[:k]); err != nil {
			return err
		}
		b, start = b[k:], c.at
		s.fmu.Lock()
		err := s.f.Sync()
		if err == nil {
			err = s.f.Close()
		}
		var f *os.File
		if err == nil {
			s.files.Lock()
			f, err = createSegment(s.dir, c.seg)
			s.files.Unlock()
		}
		if err != nil {
			s.fmu.Unlock()
			return err
		}
		s.f, s.seg = f, c.seg
		s.fmu.Unlock()
		close(c.done)
	}
	return s.writeFile(b)
}

// writeFile writes b to the segment being written.
func (s *store) writeFile(b []byte) error {
	s.files.Lock()
	defer s.files.Unlock()
	_, err := s.f.Write(b)
	return err
}

// remove removes a file of the directory.
func (s *store) remove(name string) {
	s.files.Lock()
	defer s.files.Unlock()
	_ = os.Remove(filepath.Join(s.dir, name))
}

func segmentName(n uint64) string  { return fmt.Sprintf("log-%08d.cdl", n) }
func snapshotName(n uint64) string { return fmt.Sprintf("snap-%08d.cds", n) }

// createSegment creates log segment n with its header, durably.
func createSegment(dir string, n uint64) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, segmentName(n)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(appendFileHeader(nil, logMagic, n)); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// syncDir makes a directory's entries (files created, renamed, removed)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// The engine's side of the log.

// writable refuses a write when the data log cannot take it.
func (e *Engine) writable() error {
	if e.data == nil {
		return nil
	}
	return e.data.writable()
}

// durable waits, under SyncAlways, until the changes made so far are on
// stable storage.
func (e *Engine) durable() error {
	if e.data == nil {
		return nil
	}
	return e.data.sync()
}

// afterWrite is durable for a write that succeeded.
func (e *Engine) afterWrite(err error) error {
	if err != nil {
		return err
	}
	return e.durable()
}

// registered numbers a table just added to e.tables, opens its stream
// and logs its definition; the caller holds e.mu.
func (e *Engine) registered(t *table, stream bool, view string) {
	t.no = e.tableNos.Add(1)
	t.data = e.data
	if stream {
		e.enableStream(t, view)
	}
	e.logDef(t)
}

// logDef logs t's definition; the caller holds t.mu (or owns t).
func (e *Engine) logDef(t *table) {
	if t.data == nil {
		return
	}
	d := t.def()
	t.data.appendPayload(func(b []byte) []byte { return appendJSONPayload(b, recDefine, d) })
}

// logDrop logs t's deletion.
func (e *Engine) logDrop(t *table) {
	if t.data == nil {
		return
	}
	t.data.appendPayload(func(b []byte) []byte { return binary.AppendUvarint(append(b, recDrop), uint64(t.no)) })
}

// logStream logs s's definition; the caller holds s.mu.
func (s *store) logStream(st *stream) {
	d := st.def()
	s.appendPayload(func(b []byte) []byte { return appendJSONPayload(b, recStream, d) })
}

// logChange logs an item change (into the transaction's group while
// one commits): nv is the item's new version, nil when it was deleted,
// and ev the change's stream record, nil without a stream. The caller
// holds t.mu for writing.
func (t *table) logChange(nv *byte, oldItem attr.Item, ev *streamRecord) {
	if t.deleted {
		return // a transaction committing into a table deleted meanwhile
	}
	keepOld := t.stream != nil && t.stream.wantsOld()
	var item []byte // the item encoded, when it is at hand
	switch {
	case nv == nil && ev != nil:
		item = ev.keys
	case nv == nil:
		item = t.streamKeys(oldItem)
	case ev != nil && ev.new != nil:
		item = ev.new // the stream's image is the portable form
	}
	g := t.group
	switch {
	case g != nil:
		g.add(t, nv == nil, item, nv, ev, keepOld)
	case item != nil:
		t.data.appendChange(t.no, nv == nil, item, ev, keepOld)
	default:
		t.data.appendVersion(t, versionAt(nv), ev, keepOld)
	}
}

// logGroup collects the changes of a transaction, logged as one record.
type logGroup struct {
	b   []byte
	n   int
	tmp []byte // a change being encoded, before its length
}

// add appends a change to the group: its item given encoded, or else
// the portable form of version nv (nv is read only then).
func (g *logGroup) add(t *table, del bool, item []byte, nv *byte, ev *streamRecord, keepOld bool) {
	g.tmp = appendChange(g.tmp[:0], t.no, del, item, ev, keepOld)
	if item == nil {
		g.tmp = t.portable(g.tmp, versionAt(nv))
	}
	g.b = binary.AppendUvarint(g.b, uint64(len(g.tmp)))
	g.b = append(g.b, g.tmp...)
	g.n++
}

// beginGroup starts collecting the changes made to tables (all locked
// by the caller) until endGroup logs them as one record.
func (e *Engine) beginGroup(tables map[string]*table) *logGroup {
	if e.data == nil {
		return nil
	}
	g := &logGroup{}
	for _, t := range tables {
		t.group = g
	}
	return g
}

func (e *Engine) endGroup(g *logGroup, tables map[string]*table) {
	if g == nil {
		return
	}
	for _, t := range tables {
		t.group = nil
	}
	if g.n > 0 {
		e.data.appendPayload(func(b []byte) []byte {
			b = binary.AppendUvarint(append(b, recGroup), uint64(g.n))
			return append(b, g.b...)
		})
	}
}
