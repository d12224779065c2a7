package engine

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Compaction: once the log has grown by Data.SnapshotBytes, the state
// is written to a snapshot from which a new log segment starts, and the
// files it replaces are removed.

// cutState is the state captured at a snapshot's cut.
type cutState struct {
	seg     uint64        // the segment the snapshot is the base of
	done    chan struct{} // closed once that segment exists
	tables  []*table
	items   []*tree[*rec] // each table's items, a snapshot of its tree at the cut
	defs    []*tableDef
	streams []*streamDef
	records [][]shardRecords // per stream, per live shard
}

type shardRecords struct {
	n    uint32
	recs []streamRecord
}

// chunkBytes bounds the items or records of one snapshot frame.
const chunkBytes = 4 << 20

// cut captures the tables' definitions and the streams (with their
// records) and moves the log to a new segment, all at one point of the
// log: under every table's write lock and the engine's, so that no
// change is half before and half after. It returns nil when the log
// can no longer be written.
func (e *Engine) cut(s *store) *cutState {
	var list []*table
	for {
		e.mu.RLock()
		list = list[:0]
		for _, t := range e.tables {
			list = append(list, t)
		}
		e.mu.RUnlock()
		sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
		for _, t := range list {
			t.mu.Lock()
		}
		e.mu.Lock()
		same := len(list) == len(e.tables)
		for _, t := range list {
			same = same && e.tables[t.name] == t
		}
		if same {
			break
		}
		// A table was created or deleted meanwhile: take them again.
		e.mu.Unlock()
		for i := len(list) - 1; i >= 0; i-- {
			list[i].mu.Unlock()
		}
	}
	defer func() {
		e.mu.Unlock()
		for i := len(list) - 1; i >= 0; i-- {
			list[i].mu.Unlock()
		}
	}()
	c := &cutState{tables: slices.Clone(list)}
	for _, t := range list {
		c.defs = append(c.defs, t.def())
		// O(1): the items are walked later without the table's lock,
		// writers going on meanwhile.
		c.items = append(c.items, t.items.snapshot())
	}
	for _, st := range e.streams.all(unixMs(e.opts.Now())) {
		st.mu.RLock()
		c.streams = append(c.streams, st.def())
		rs := make([]shardRecords, 0, len(st.shards))
		for _, sh := range st.shards {
			rs = append(rs, shardRecords{n: sh.n, recs: slices.Clone(sh.recs)})
		}
		c.records = append(c.records, rs)
		st.mu.RUnlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.state.Load() != 0 {
		return nil
	}
	c.seg, c.done = s.nextSeg, make(chan struct{})
	s.nextSeg++
	s.cuts = append(s.cuts, segCut{at: s.appended, seg: c.seg, done: c.done})
	s.sinceCut = 0
	s.wake()
	return c
}

// snapshot takes a snapshot and, once it is durable and the new segment
// exists, removes the snapshots and segments it replaces.
func (s *store) snapshot() {
	defer s.snaps.Done()
	defer s.snapping.Store(false)
	c := s.e.cut(s)
	if c == nil {
		return
	}
	path := filepath.Join(s.dir, snapshotName(c.seg))
	if err := s.writeSnapshot(c, path); err != nil {
		_ = os.Remove(path + ".tmp")
		s.logf("data: snapshot %s not written (the log keeps everything meanwhile): %v", path, err)
		return
	}
	if st, err := os.Stat(path); err == nil {
		s.mu.Lock()
		s.nextSnap = max(s.snapAt, st.Size())
		s.mu.Unlock()
	}
	select {
	case <-c.done:
	case <-s.done:
		return
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, en := range entries {
		name := en.Name()
		if n := fileNumber(name, "snap-", ".cds"); n > 0 && n < c.seg {
			s.remove(name)
		}
		if n := fileNumber(name, "log-", ".cdl"); n > 0 && n < c.seg {
			s.remove(name)
		}
	}
	_ = syncDir(s.dir)
}

// writeSnapshot writes the cut state and the tables' items to path,
// through a temporary file renamed once synced.
func (s *store) writeSnapshot(c *cutState, path string) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(appendFileHeader(nil, snapMagic, c.seg)); err != nil {
		return err
	}
	var buf []byte
	frame := func(fill func([]byte) []byte) error {
		b, start := beginFrame(buf[:0])
		buf = endFrame(fill(b), start)
		_, err := w.Write(buf)
		return err
	}
	var items, srecs uint64
	// Streams first: the tables' definitions name them.
	for i, d := range c.streams {
		if err := frame(func(b []byte) []byte { return appendJSONPayload(b, recStream, d) }); err != nil {
			return err
		}
		for _, sr := range c.records[i] {
			for recs := sr.recs; len(recs) > 0; {
				k, size := 0, 0
				for k < len(recs) && (k == 0 || size < chunkBytes) {
					size += int(recs[k].mem())
					k++
				}
				chunk := recs[:k]
				recs = recs[k:]
				err := frame(func(b []byte) []byte {
					b = append(b, recRecords)
					b = binary.AppendUvarint(b, uint64(len(d.ARN)))
					b = append(b, d.ARN...)
					b = binary.AppendUvarint(b, uint64(sr.n))
					b = binary.AppendUvarint(b, uint64(len(chunk)))
					for j := range chunk {
						b = appendStreamRecord(b, &chunk[j])
					}
					return b
				})
				if err != nil {
					return err
				}
				srecs += uint64(len(chunk))
			}
		}
	}
	for _, d := range c.defs {
		if err := frame(func(b []byte) []byte { return appendJSONPayload(b, recDefine, d) }); err != nil {
			return err
		}
	}
	for i, t := range c.tables {
		n, err := writeItems(t, c.items[i], chunkBytes, func(vals [][]byte) error {
			return frame(func(b []byte) []byte {
				b = append(b, recItems)
				b = binary.AppendUvarint(b, uint64(t.no))
				b = binary.AppendUvarint(b, uint64(len(vals)))
				for _, v := range vals {
					b = binary.AppendUvarint(b, uint64(len(v)))
					b = append(b, v...)
				}
				return b
			})
		})
		items += n
		if err != nil {
			return err
		}
	}
	err = frame(func(b []byte) []byte {
		b = append(b, recEnd)
		for _, n := range []uint64{uint64(len(c.defs)), items, uint64(len(c.streams)), srecs} {
			b = binary.AppendUvarint(b, n)
		}
		return b
	})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := s.reachWalk(c); err != nil {
		return err
	}
	s.files.Lock()
	err = os.Rename(tmp, path)
	s.files.Unlock()
	if err != nil {
		return err
	}
	if err := syncDir(s.dir); err != nil {
		return fmt.Errorf("sync %s: %w", s.dir, err)
	}
	return nil
}

// writeItems hands the stored encodings of a snapshot's items to flush
// in order, in chunks of about maxBytes, and returns how many it handed.
// The snapshot is read without the table's lock: its nodes never change
// and each record's versions are immutable once published, so a writer
// never waits for a data snapshot. A record may show a version written
// after the cut; the log from the cut on replays that write again, over
// it, to the same end, and the snapshot is put in place only once the
// log holds it (reachWalk).
func writeItems(t *table, items *tree[*rec], maxBytes int, flush func(vals [][]byte) error) (n uint64, err error) {
	var vals [][]byte
	var buf []byte // the portable forms of a chunk's items
	size := 0
	items.ascend(nil, nil, func(r *rec) bool {
		start := len(buf)
		buf = t.portable(buf, r.load())
		v := buf[start:len(buf):len(buf)]
		vals = append(vals, v)
		size += len(v)
		if size >= maxBytes {
			err = flush(vals)
			n += uint64(len(vals))
			vals, size, buf = vals[:0], 0, buf[:0]
		}
		return err == nil
	})
	if err == nil && len(vals) > 0 {
		err = flush(vals)
		n += uint64(len(vals))
	}
	return n, err
}

// reachWalk waits, before a snapshot is put in place, until the log is
// durable as far as it was when the walk of the items ended. The walk
// reads each record's latest version, which may be a write made after
// the cut: the snapshot then stands for a state that only the log after
// the cut reaches. Put in place sooner, a crash that lost that part of
// the log (a kill -9 under SyncInterval, the new segment not yet handed
// to the system) restored the snapshot alone, one item of a transaction
// at its later value and the other at its earlier one. Taking each
// table's lock once lets every write the walk may have seen finish
// appending its change (writes log under the lock).
func (s *store) reachWalk(c *cutState) error {
	for _, t := range c.tables {
		t.mu.RLock()
		t.mu.RUnlock() //nolint:staticcheck // a barrier: writes in progress finish logging
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.appended
	for s.durable < end && s.err == nil && s.state.Load() == 0 {
		s.cond.Wait()
	}
	switch {
	case s.err != nil:
		return s.err
	case s.durable < end:
		return errClosed // closing: the log keeps everything
	}
	return nil
}
