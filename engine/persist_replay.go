package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cardapio/cardapio/attr"
)

// Recovery. The data directory is outside input: every file is read
// through checksummed frames, every record validated before it changes
// anything, and a record that fails either stops the replay there. At
// the end of the last log segment that is a torn write or damage: the
// log is cut at the last intact record (the cut bytes are kept beside
// it) and the engine starts with everything before it. Anywhere else it
// would silently lose the changes after it, so Open refuses to start and
// says which file is damaged.

// recover loads the latest snapshot, replays the log segments after it
// and opens the last one for appending.
func (s *store) recover() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	var snaps, logs []uint64
	for _, en := range entries {
		name := en.Name()
		switch {
		case strings.HasSuffix(name, ".tmp"):
			// A snapshot that was being written when the engine stopped.
			_ = os.Remove(filepath.Join(s.dir, name))
		case fileNumber(name, "snap-", ".cds") > 0:
			snaps = append(snaps, fileNumber(name, "snap-", ".cds"))
		case fileNumber(name, "log-", ".cdl") > 0:
			logs = append(logs, fileNumber(name, "log-", ".cdl"))
		}
	}
	slices.Sort(snaps)
	slices.Sort(logs)
	rp := newReplayer(s.e)
	base := uint64(0)
	if len(snaps) > 0 {
		base = snaps[len(snaps)-1]
		name := snapshotName(base)
		if err := rp.loadSnapshot(filepath.Join(s.dir, name), base); err != nil {
			return fmt.Errorf("data: snapshot %s is damaged: %v; the tables cannot be rebuilt without it (restore the directory from a backup, or move its files aside to start empty)", filepath.Join(s.dir, name), err)
		}
		s.rec.Snapshot = name
		if st, err := os.Stat(filepath.Join(s.dir, name)); err == nil {
			s.nextSnap = max(s.snapAt, st.Size())
		}
		for _, n := range snaps[:len(snaps)-1] {
			_ = os.Remove(filepath.Join(s.dir, snapshotName(n)))
		}
	}
	var segs []uint64
	for _, n := range logs {
		if n < base {
			// Covered by the snapshot: left by a compaction that stopped
			// before removing it.
			_ = os.Remove(filepath.Join(s.dir, segmentName(n)))
			continue
		}
		segs = append(segs, n)
	}
	for i, n := range segs {
		want := base
		if i > 0 {
			want = segs[i-1] + 1
		}
		if (i > 0 || base > 0) && n != want {
			return fmt.Errorf("data: log segment %s is missing: the segments after it cannot be replayed without it", filepath.Join(s.dir, segmentName(want)))
		}
	}
	for i, n := range segs {
		path := filepath.Join(s.dir, segmentName(n))
		good, err := rp.replaySegment(path, n)
		if err == nil {
			s.rec.Segments++
			// The log since the snapshot counts toward the next one:
			// otherwise a server restarted before writing SnapshotBytes
			// each time would never compact, its log and its start
			// growing without bound.
			if st, err := os.Stat(path); err == nil {
				s.sinceCut += st.Size()
			}
			continue
		}
		if i < len(segs)-1 {
			return fmt.Errorf("data: log %s is damaged at byte %d (%v) and later segments follow it; replaying them would leave tables without the changes in between (restore the directory from a backup, or move %s and the later segments aside to start from the data before it)", path, good, err, segmentName(n))
		}
		if err := s.cutTail(path, n, good, err); err != nil {
			return err
		}
		s.rec.Segments++
		s.sinceCut += good
	}
	s.rec.Records = rp.records
	s.e.tableNos.Store(rp.maxNo)
	s.e.mu.RLock()
	s.rec.Tables = len(s.e.tables)
	for _, t := range s.e.tables {
		s.rec.Items += t.items.len()
	}
	s.e.mu.RUnlock()
	if len(segs) > 0 {
		s.seg = segs[len(segs)-1]
		f, err := os.OpenFile(filepath.Join(s.dir, segmentName(s.seg)), os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		s.f = f
	} else {
		s.seg = max(base, 1)
		f, err := createSegment(s.dir, s.seg)
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		s.f = f
	}
	s.nextSeg = s.seg + 1
	return nil
}

// fileNumber reads the number of a data file's name, 0 if it is not one.
func fileNumber(name, prefix, suffix string) uint64 {
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return 0
	}
	digits := name[len(prefix) : len(name)-len(suffix)]
	if len(digits) != 8 {
		return 0
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// cutTail cuts the last log segment at good, the end of its last intact
// record, keeping the bytes cut in a file beside it.
func (s *store) cutTail(path string, seg uint64, good int64, why error) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("data: %w", err)
	}
	kept := path + ".damaged-" + strconv.FormatInt(good, 10)
	if n := st.Size() - good; n > 0 {
		if _, err := f.Seek(good, io.SeekStart); err != nil {
			return fmt.Errorf("data: %w", err)
		}
		out, err := os.Create(kept)
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		_, err = io.Copy(out, f)
		if err == nil {
			err = out.Sync()
		}
		out.Close()
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	if good < fileHeader {
		// Not even the header is intact: the segment starts anew.
		good = 0
	}
	if err := f.Truncate(good); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if good == 0 {
		if _, err := f.WriteAt(appendFileHeader(nil, logMagic, seg), 0); err != nil {
			return fmt.Errorf("data: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("data: %w", err)
	}
	s.rec.Cut = fmt.Sprintf("log %s ended in %v at byte %d (a write torn by a crash, or damage); the log is cut there, %d bytes after it kept in %s",
		path, why, good, st.Size()-good, kept)
	s.logf("data: %s", s.rec.Cut)
	return nil
}

// replayer applies a data directory's records to an engine that serves
// no request yet.
type replayer struct {
	e       *Engine
	byNo    map[uint32]*table
	dropped map[uint32]bool
	maxNo   uint32
	records int
	// counts of a snapshot's frames, checked against its end frame
	tables, items, streams, srecs uint64
}

func newReplayer(e *Engine) *replayer {
	return &replayer{e: e, byNo: map[uint32]*table{}, dropped: map[uint32]bool{}}
}

// replaySegment applies a log segment's records in order. On the first
// one that is torn, damaged or invalid it stops and returns the offset
// where that record starts, with what is wrong.
func (rp *replayer) replaySegment(path string, seg uint64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return rp.replayLog(f, st.Size(), seg)
}

// replayLog applies the records of a log segment read from r (size
// bytes) and returns where the intact records end.
func (rp *replayer) replayLog(r io.Reader, size int64, seg uint64) (int64, error) {
	h := make([]byte, fileHeader)
	if size < fileHeader {
		return 0, errors.New("a torn header")
	}
	if _, err := io.ReadFull(r, h); err != nil {
		return 0, err
	}
	n, err := parseFileHeader(h, logMagic)
	if err != nil {
		return 0, err
	}
	if n != seg {
		return 0, fmt.Errorf("the header names segment %d", n)
	}
	fr := newFrameReader(r, fileHeader, size)
	for {
		at := fr.off
		p, err := fr.next()
		if err == errEnd {
			return at, nil
		}
		if err != nil {
			return at, err
		}
		if err := rp.apply(p, false); err != nil {
			return at, fmt.Errorf("an invalid record (%v)", err)
		}
		rp.records++
	}
}

// loadSnapshot loads a snapshot, which must be whole.
func (rp *replayer) loadSnapshot(path string, seg uint64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	h := make([]byte, fileHeader)
	if _, err := io.ReadFull(f, h); err != nil {
		return errors.New("a torn header")
	}
	n, err := parseFileHeader(h, snapMagic)
	if err != nil {
		return err
	}
	if n != seg {
		return fmt.Errorf("the header names segment %d", n)
	}
	fr := newFrameReader(f, fileHeader, st.Size())
	for {
		at := fr.off
		p, err := fr.next()
		if err == errEnd {
			return errors.New("it ends before its end record (an unfinished snapshot)")
		}
		if err != nil {
			return fmt.Errorf("at byte %d: %v", at, err)
		}
		if p[0] == recEnd {
			if err := rp.end(p[1:]); err != nil {
				return fmt.Errorf("at byte %d: %v", at, err)
			}
			if fr.off != st.Size() {
				return fmt.Errorf("%d bytes after its end record", st.Size()-fr.off)
			}
			return nil
		}
		if err := rp.apply(p, true); err != nil {
			return fmt.Errorf("at byte %d: an invalid record (%v)", at, err)
		}
	}
}

// apply applies one record; snapshot records are accepted only from a
// snapshot.
func (rp *replayer) apply(p []byte, snapshot bool) error {
	body := p[1:]
	switch kind := p[0]; {
	case kind == recDefine:
		var d tableDef
		if err := json.Unmarshal(body, &d); err != nil {
			return err
		}
		rp.tables++
		return rp.define(&d)
	case kind == recDrop && !snapshot:
		pr := parser{b: body}
		no := pr.no()
		if pr.err == nil && len(pr.b) != 0 {
			pr.fail("trailing bytes")
		}
		if pr.err != nil {
			return pr.err
		}
		return rp.drop(no)
	case kind == recStream:
		var d streamDef
		if err := json.Unmarshal(body, &d); err != nil {
			return err
		}
		rp.streams++
		return rp.stream(&d)
	case kind == recChange && !snapshot:
		c, err := parseChange(body)
		if err != nil {
			return err
		}
		pc, err := rp.prepare(c)
		if err != nil {
			return err
		}
		rp.commit(pc)
		return nil
	case kind == recGroup && !snapshot:
		pr := parser{b: body}
		n := pr.uvarint()
		if n == 0 || n > maxTransactItems {
			pr.fail("a transaction of an impossible size")
		}
		var pcs []prepared
		for i := uint64(0); i < n && pr.err == nil; i++ {
			c, err := parseChange(pr.bytes(pr.uvarint()))
			if pr.err != nil {
				break
			}
			if err != nil {
				return err
			}
			pc, err := rp.prepare(c)
			if err != nil {
				return err
			}
			pcs = append(pcs, pc)
		}
		if pr.err == nil && len(pr.b) != 0 {
			pr.fail("trailing bytes")
		}
		if pr.err != nil {
			return pr.err
		}
		for _, pc := range pcs {
			rp.commit(pc)
		}
		return nil
	case kind == recItems && snapshot:
		return rp.itemsChunk(body)
	case kind == recRecords && snapshot:
		return rp.recordsChunk(body)
	}
	return fmt.Errorf("an unknown record kind %q", p[0])
}

// prepared is a validated change, ready to apply.
type prepared struct {
	t    *table // nil: a change to a table dropped since (skipped)
	key  []byte
	item attr.Item // the new item; nil for a deletion
	keys attr.Item
	ev   *streamRecord
}

// prepare validates a change against the table it names.
func (rp *replayer) prepare(c change) (prepared, error) {
	t := rp.byNo[c.no]
	if t == nil {
		if rp.dropped[c.no] {
			return prepared{}, nil
		}
		return prepared{}, fmt.Errorf("a change to table %d, which is not defined", c.no)
	}
	it, err := decodeItem(c.item)
	if err != nil {
		return prepared{}, err
	}
	pc := prepared{t: t, ev: c.ev}
	if c.del {
		if len(it) != len(t.keyAttrs()) {
			return prepared{}, errors.New("a deletion whose key is not the table's")
		}
	} else {
		if err := t.checkItemKeys(it); err != nil {
			return prepared{}, err
		}
		pc.item = it
	}
	key, ok := t.tableKey(nil, it)
	if !ok {
		return prepared{}, errors.New("a change whose key is not the table's")
	}
	pc.key, pc.keys = key, keyOf(t, it)
	if c.ev != nil {
		if c.ev.old != nil {
			if _, err := decodeItem(c.ev.old); err != nil {
				return prepared{}, err
			}
		}
		if (c.ev.kind == evRemove) != c.del {
			return prepared{}, errors.New("a stream record of the wrong kind")
		}
	}
	return pc, nil
}

// commit applies a prepared change, and its stream record.
func (rp *replayer) commit(pc prepared) {
	t := pc.t
	if t == nil {
		return
	}
	old := t.get(pc.key)
	var oldItem attr.Item
	if old != nil {
		oldItem, _ = t.decode(old.load()) // stored items decode
	}
	size := 0
	if pc.item != nil {
		size = t.rules.ItemSize(pc.item)
	}
	r := t.store(pc.key, old, oldItem, pc.item, size)
	s := t.stream
	if pc.ev == nil || s == nil {
		return
	}
	sr := streamRecord{seq: pc.ev.seq, at: pc.ev.at, kind: pc.ev.kind, service: pc.ev.service,
		keys: appendItem(nil, pc.keys), size: int64(t.rules.ItemSize(pc.keys))}
	if pc.ev.old != nil && s.wantsOld() {
		sr.old = clone(pc.ev.old)
		if it, err := decodeItem(sr.old); err == nil {
			sr.size += int64(t.rules.ItemSize(it))
		}
	}
	if r != nil && s.wantsNew() {
		sr.new = t.portableCopy(r.load())
		sr.size += int64(size)
	}
	s.replay(sr)
}

// define creates the table a definition describes, or brings an
// existing one to it.
func (rp *replayer) define(d *tableDef) error {
	e := rp.e
	if d.No == 0 {
		return errors.New("a table without a number")
	}
	if rp.dropped[d.No] {
		return fmt.Errorf("a definition of table %d, dropped before", d.No)
	}
	if t := rp.byNo[d.No]; t != nil {
		return rp.redefine(t, d)
	}
	t, err := e.tableFromDef(d)
	if err != nil {
		return err
	}
	if err := rp.linkStreams(t, d); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.tables[t.name] != nil {
		return fmt.Errorf("a second table named %s", t.name)
	}
	e.tables[t.name] = t
	rp.byNo[d.No] = t
	rp.maxNo = max(rp.maxNo, d.No)
	e.schemaChanged(t, t.describe(), false)
	return nil
}

func (rp *replayer) linkStreams(t *table, d *tableDef) error {
	t.stream, t.latest = nil, nil
	for _, l := range []struct {
		arn string
		to  **stream
	}{{d.Stream, &t.stream}, {d.Latest, &t.latest}} {
		if l.arn == "" {
			continue
		}
		s := rp.e.streams.get(l.arn)
		if s == nil || s.table != t.name {
			return fmt.Errorf("table %s names a stream %s that is not defined", t.name, l.arn)
		}
		*l.to = s
	}
	if t.stream != nil && !t.stream.enabled {
		return fmt.Errorf("table %s names the disabled stream %s as enabled", t.name, t.stream.arn)
	}
	return nil
}

// tableFromDef builds the table a definition describes, without items,
// validating it as CreateTable validates a request.
func (e *Engine) tableFromDef(d *tableDef) (*table, error) {
	if err := checkTableName(d.Name, "tableName"); err != nil {
		return nil, err
	}
	defs, err := attrDefs(d.Attrs)
	if err != nil {
		return nil, err
	}
	hash, rng, err := keySchema(d.KeySchema, defs, "keySchema", false)
	if err != nil {
		return nil, err
	}
	billing, err := checkBilling(d.Billing)
	if err != nil {
		return nil, err
	}
	t := e.emptyTable(d.Name, time.UnixMilli(d.Created))
	if d.ARN != "" {
		if !strings.HasPrefix(d.ARN, "arn:aws:dynamodb:") || !strings.HasSuffix(d.ARN, ":table/"+d.Name) || strings.Count(d.ARN, ":") != 5 {
			return nil, fmt.Errorf("table %s has the invalid ARN %q", d.Name, d.ARN)
		}
		t.arn = d.ARN
	}
	t.no, t.id, t.billing, t.attrs, t.keySchema = d.No, d.ID, billing, d.Attrs, d.KeySchema
	t.hash = hash[0]
	if len(rng) == 1 {
		t.rng = &rng[0]
	}
	t.setDef(d)
	for i := range d.LSIs {
		ix, err := t.indexFromDef(&d.LSIs[i], defs, true)
		if err != nil {
			return nil, err
		}
		t.lsis = append(t.lsis, ix)
	}
	for i := range d.GSIs {
		ix, err := t.indexFromDef(&d.GSIs[i], defs, false)
		if err != nil {
			return nil, err
		}
		t.gsis = append(t.gsis, ix)
	}
	if err := checkProjectedTotal(t); err != nil {
		return nil, err
	}
	t.rebuildDesc()
	return t, nil
}

// setDef sets what a definition may change on an existing table.
func (t *table) setDef(d *tableDef) {
	t.throughput, t.onDemand, t.warm, t.tableClass, t.protect, t.tags = d.Throughput, d.OnDemand, d.Warm, d.Class, d.Protect, d.Tags
	t.ttlAttr, t.ttlEnabled = d.TTLAttr, d.TTLOn
}

// indexFromDef builds a secondary index of t from its definition.
func (t *table) indexFromDef(x *indexDef, defs map[string]attr.Type, local bool) (*index, error) {
	if err := checkIndexName(x.Name, "indexName"); err != nil {
		return nil, err
	}
	hash, rng, err := keySchema(x.KeySchema, defs, "keySchema", !local)
	if err != nil {
		return nil, err
	}
	if local && (hash[0].name != t.hash.name || len(rng) != 1 || t.rng == nil) {
		return nil, fmt.Errorf("local index %s is not keyed on the table's partition key and a sort key", x.Name)
	}
	proj, err := checkProjection(&x.Projection, "projection")
	if err != nil {
		return nil, err
	}
	if t.findIndex(x.Name) != nil {
		return nil, fmt.Errorf("two indexes named %s", x.Name)
	}
	return &index{name: x.Name, local: local, hash: hash, rng: rng, projection: proj, tree: newEntryTree(),
		created: time.UnixMilli(x.Created), throughput: x.Throughput, onDemand: x.OnDemand, warm: x.Warm,
		arn: t.arn + "/index/" + x.Name}, nil
}

// redefine brings an existing table to a later definition of it: its
// settings, its streams, and global indexes added (backfilled) or
// removed, as UpdateTable made them.
func (rp *replayer) redefine(t *table, d *tableDef) error {
	if d.Name != t.name || !slices.Equal(d.KeySchema, t.keySchema) {
		return fmt.Errorf("table %d redefined with another name or key", d.No)
	}
	defs, err := attrDefs(d.Attrs)
	if err != nil {
		return err
	}
	billing, err := checkBilling(d.Billing)
	if err != nil {
		return err
	}
	if len(d.LSIs) != len(t.lsis) {
		return fmt.Errorf("table %s redefined with other local indexes", t.name)
	}
	// Validate everything before changing anything.
	var gsis, created []*index
	kept := map[*index]*indexDef{}
	for i := range d.GSIs {
		x := &d.GSIs[i]
		if ix := t.findIndex(x.Name); ix != nil && !ix.local && kept[ix] == nil && slices.Equal(keySchemaOf(ix.hash, ix.rng), x.KeySchema) &&
			ix.projection.ProjectionType == x.Projection.ProjectionType && slices.Equal(ix.projection.NonKeyAttributes, x.Projection.NonKeyAttributes) {
			kept[ix] = x
			gsis = append(gsis, ix)
			continue
		}
		probe := &table{hash: t.hash, rng: t.rng, arn: t.arn, lsis: t.lsis}
		probe.gsis = gsis
		ix, err := probe.indexFromDef(x, defs, false)
		if err != nil {
			return err
		}
		gsis = append(gsis, ix)
		created = append(created, ix)
	}
	probe := &table{name: t.name}
	if err := rp.linkStreams(probe, d); err != nil {
		return err
	}
	t.stream, t.latest = probe.stream, probe.latest
	for ix, x := range kept {
		ix.throughput, ix.onDemand, ix.warm = x.Throughput, x.OnDemand, x.Warm
	}
	t.attrs, t.billing, t.gsis = d.Attrs, billing, gsis
	t.setDef(d)
	t.rebuildDesc()
	for _, ix := range created {
		t.backfill(ix)
	}
	rp.e.schemaChanged(t, t.describe(), false)
	return nil
}

func (rp *replayer) drop(no uint32) error {
	t := rp.byNo[no]
	if t == nil {
		return fmt.Errorf("a drop of table %d, which is not defined", no)
	}
	e := rp.e
	e.mu.Lock()
	if e.tables[t.name] == t {
		delete(e.tables, t.name)
	}
	e.mu.Unlock()
	t.deleted = true
	delete(rp.byNo, no)
	rp.dropped[no] = true
	e.schemaChanged(t, t.describe(), true)
	return nil
}

// stream creates or updates a stream from its definition.
func (rp *replayer) stream(d *streamDef) error {
	_, _, table, label, ok := parseStreamARN(d.ARN)
	if !ok || table != d.Table || label != d.Label || len(d.ARN) > maxStreamARN {
		return fmt.Errorf("a stream with an invalid ARN %q", d.ARN)
	}
	if !slices.Contains(streamViews, d.View) {
		return fmt.Errorf("a stream with an unknown view %q", d.View)
	}
	for i, sd := range d.Shards {
		if sd.ID == "" || sd.N >= d.NShards || i > 0 && sd.N <= d.Shards[i-1].N || sd.Start == 0 ||
			sd.End != 0 && sd.End < sd.Start || sd.End == 0 && (i != len(d.Shards)-1 || !d.Enabled) {
			return fmt.Errorf("stream %s has an invalid shard %q", d.ARN, sd.ID)
		}
	}
	e := rp.e
	s := e.streams.get(d.ARN)
	if s == nil {
		o := e.opts.Streams.withDefaults()
		s = &stream{arn: d.ARN, label: d.Label, table: d.Table, opts: &o, now: e.opts.Now}
		e.streams.put(s)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tableNo, s.view, s.keys, s.created, s.enabled, s.disabled = d.TableNo, d.View, d.Keys, d.Created, d.Enabled, d.Disabled
	shards := make([]*shard, 0, len(d.Shards))
	s.bytes = 0
	for _, sd := range d.Shards {
		sh := s.shardByN(sd.N)
		if sh == nil {
			sh = &shard{n: sd.N, id: sd.ID, parent: sd.Parent, created: sd.Created, start: sd.Start}
		}
		sh.end = sd.End
		if sd.Trimmed > sh.trimmed {
			i := sort.Search(len(sh.recs), func(i int) bool { return sh.recs[i].seq > sd.Trimmed })
			sh.recs = slices.Clone(sh.recs[i:])
			sh.trimmed = sd.Trimmed
		}
		for i := range sh.recs {
			s.bytes += sh.recs[i].mem()
		}
		shards = append(shards, sh)
	}
	s.shards = shards
	s.nshards = d.NShards
	s.next = max(s.next, d.Next)
	return nil
}

// itemsChunk loads a snapshot's items of one table.
func (rp *replayer) itemsChunk(body []byte) error {
	p := parser{b: body}
	no := p.no()
	n := p.uvarint()
	t := rp.byNo[no]
	if p.err == nil && t == nil {
		return fmt.Errorf("items of table %d, which is not defined", no)
	}
	for i := uint64(0); i < n && p.err == nil; i++ {
		b := p.bytes(p.uvarint())
		if p.err != nil {
			break
		}
		it, err := decodeItem(b)
		if err != nil {
			return err
		}
		if err := t.checkItemKeys(it); err != nil {
			return err
		}
		key, _ := t.tableKey(nil, it)
		old := t.get(key)
		var oldItem attr.Item
		if old != nil {
			oldItem, _ = t.decode(old.load())
		}
		t.store(key, old, oldItem, it, t.rules.ItemSize(it))
		rp.items++
	}
	if p.err == nil && len(p.b) != 0 {
		p.fail("trailing bytes")
	}
	return p.err
}

// recordsChunk loads a snapshot's records of one shard.
func (rp *replayer) recordsChunk(body []byte) error {
	p := parser{b: body}
	arn := string(p.bytes(p.uvarint()))
	n := uint32(p.uvarint())
	count := p.uvarint()
	if p.err != nil {
		return p.err
	}
	s := rp.e.streams.get(arn)
	if s == nil {
		return fmt.Errorf("records of stream %s, which is not defined", arn)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.shardByN(n)
	if sh == nil {
		return fmt.Errorf("records of shard %d of stream %s, which is not defined", n, arn)
	}
	for i := uint64(0); i < count && p.err == nil; i++ {
		r := p.streamRecord()
		if p.err != nil {
			break
		}
		if r.seq < sh.start || sh.end != 0 && r.seq > sh.end || len(sh.recs) > 0 && r.seq <= sh.recs[len(sh.recs)-1].seq || r.seq <= sh.trimmed {
			return fmt.Errorf("a record out of its shard's order in stream %s", arn)
		}
		for _, img := range [][]byte{r.keys, r.old, r.new} {
			if img != nil {
				if _, err := decodeItem(img); err != nil {
					return err
				}
			}
		}
		sh.recs = append(sh.recs, r)
		s.bytes += r.mem()
		rp.srecs++
	}
	if p.err == nil && len(p.b) != 0 {
		p.fail("trailing bytes")
	}
	return p.err
}

// end checks a snapshot's end record against what was loaded.
func (rp *replayer) end(body []byte) error {
	p := parser{b: body}
	want := [4]uint64{p.uvarint(), p.uvarint(), p.uvarint(), p.uvarint()}
	if p.err == nil && len(p.b) != 0 {
		p.fail("trailing bytes")
	}
	if p.err != nil {
		return p.err
	}
	if got := [4]uint64{rp.tables, rp.items, rp.streams, rp.srecs}; got != want {
		return fmt.Errorf("it holds %d tables, %d items, %d streams and %d stream records where its end record counts %d, %d, %d and %d",
			got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3])
	}
	return nil
}
