package engine

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cardapio/cardapio/throughput"
)

// workloadDir runs the workload on a data directory and closes it.
func workloadDir(f *testing.F, d Data) (string, *throughput.ManualClock) {
	d.Dir = f.TempDir()
	clk := newClock()
	e, err := Open(Options{Now: clk.Now}, d)
	require.NoError(f, err)
	workload(f, e, clk)
	e.data.snaps.Wait()
	require.NoError(f, e.Close())
	return d.Dir, clk
}

// FuzzLogReplay replays arbitrary bytes as a log segment. It must never
// panic nor exhaust memory; it stops at the first record that is torn,
// damaged or invalid; what it restored is usable; and the intact prefix
// alone replays to the same state without error (a refused record
// changed nothing).
func FuzzLogReplay(f *testing.F) {
	dir, clk := workloadDir(f, Data{})
	seg, err := os.ReadFile(dir + "/" + segmentName(1))
	require.NoError(f, err)
	body := seg[fileHeader:]
	f.Add(body)
	f.Add(body[:len(body)/3])
	f.Add(body[:len(body)-5])
	flipped := bytes.Clone(body)
	flipped[len(flipped)/2] ^= 0x10
	f.Add(flipped)
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 'X'})
	header := appendFileHeader(nil, logMagic, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		debug.SetTraceback("all")
		tm := time.AfterFunc(5*time.Second, func() { panic("stuck") })
		defer tm.Stop()
		full := append(bytes.Clone(header), b...)
		e := New(Options{Now: clk.Now})
		rp := newReplayer(e)
		good, _ := rp.replayLog(bytes.NewReader(full), int64(len(full)), 1)
		require.GreaterOrEqual(t, good, int64(0))
		require.LessOrEqual(t, good, int64(len(full)))
		state := dump(t, e)

		again := New(Options{Now: clk.Now})
		rp2 := newReplayer(again)
		good2, err := rp2.replayLog(bytes.NewReader(full[:good]), good, 1)
		if good < fileHeader {
			require.Error(t, err)
			return
		}
		require.NoError(t, err)
		require.Equal(t, good, good2)
		require.Equal(t, state, dump(t, again))
	})
}

// FuzzSnapshotLoad loads arbitrary bytes as a snapshot: an error or a
// usable engine, never a panic.
func FuzzSnapshotLoad(f *testing.F) {
	dir, clk := workloadDir(f, Data{SnapshotBytes: 1})
	snaps, err := os.ReadDir(dir)
	require.NoError(f, err)
	for _, en := range snaps {
		if n := fileNumber(en.Name(), "snap-", ".cds"); n > 0 {
			b, err := os.ReadFile(dir + "/" + en.Name())
			require.NoError(f, err)
			f.Add(n, b)
			f.Add(n, b[:len(b)-3])
		}
	}
	f.Fuzz(func(t *testing.T, seg uint64, b []byte) {
		path := t.TempDir() + "/snap"
		require.NoError(t, os.WriteFile(path, b, 0o644))
		e := New(Options{Now: clk.Now})
		if err := newReplayer(e).loadSnapshot(path, seg); err == nil {
			dump(t, e)
		}
	})
}

// FuzzLogRecords replays arbitrary records with valid checksums (the
// input is a sequence of uvarint-length-prefixed payloads, framed here),
// to reach past the checksums into the records' decoding and
// validation, with the same properties as FuzzLogReplay.
func FuzzLogRecords(f *testing.F) {
	dir, clk := workloadDir(f, Data{})
	seg, err := os.Open(dir + "/" + segmentName(1))
	require.NoError(f, err)
	st, _ := seg.Stat()
	_, _ = seg.Seek(fileHeader, 0)
	fr := newFrameReader(seg, fileHeader, st.Size())
	var all []byte
	for {
		p, err := fr.next()
		if err != nil {
			break
		}
		one := binary.AppendUvarint(nil, uint64(len(p)))
		one = append(one, p...)
		f.Add(one)
		all = append(all, one...)
	}
	seg.Close()
	f.Add(all)
	header := appendFileHeader(nil, logMagic, 1)
	f.Fuzz(func(t *testing.T, in []byte) {
		log := bytes.Clone(header)
		for len(in) > 0 {
			n, k := binary.Uvarint(in)
			if k <= 0 || n == 0 || n > uint64(len(in)-k) {
				break
			}
			b, start := beginFrame(log)
			log = endFrame(append(b, in[k:k+int(n)]...), start)
			in = in[k+int(n):]
		}
		e := New(Options{Now: clk.Now})
		good, _ := newReplayer(e).replayLog(bytes.NewReader(log), int64(len(log)), 1)
		state := dump(t, e)
		again := New(Options{Now: clk.Now})
		good2, err := newReplayer(again).replayLog(bytes.NewReader(log[:good]), good, 1)
		require.NoError(t, err)
		require.Equal(t, good, good2)
		require.Equal(t, state, dump(t, again))
	})
}
