package loadgen

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cardapio/cardapio/attr"
)

// The ledger invariants join a run's messages (or writes) with the items
// of the tables by key. A ledger small enough is joined in memory, as
// the items stream past; a larger one is hash-partitioned by the join's
// key into bucket files, the items the join needs are partitioned the
// same way as they stream past, and the buckets are then joined one at a
// time, so that the memory the join holds is one bucket's messages, not
// the run's. The verdicts and their details do not depend on how many
// buckets there were: the details are the first maxDetails in the order
// the one-bucket join gives them.

// ledgerBucket is how many messages (or writes) one bucket of the join
// aims at (a keyed message weighs a few hundred bytes); ledgerMaxBuckets
// caps the buckets of one invariant, each a file open during the read of
// the tables, two per invariant: past 1,280,000 messages the buckets grow
// instead (10,000,000 messages: about 160,000 a bucket). Vars, so that
// tests join in many buckets.
var (
	ledgerBucket     int64 = 20_000
	ledgerMaxBuckets int64 = 64
)

// bucketCount is how many buckets n messages are joined in.
func bucketCount(n int64) int {
	b := (n + ledgerBucket - 1) / ledgerBucket
	return int(min(max(b, 1), ledgerMaxBuckets))
}

// buckets is a hash-partitioned spill of records of byte fields, in a
// temporary directory of its own.
type buckets struct {
	dir   string
	files []*os.File
	ws    []*bufio.Writer
	err   error
}

func newBuckets(n int) (*buckets, error) {
	dir, err := os.MkdirTemp("", "cardapio-join-*")
	if err != nil {
		return nil, fmt.Errorf("the ledger's join: %w", err)
	}
	return &buckets{dir: dir, files: make([]*os.File, n), ws: make([]*bufio.Writer, n)}, nil
}

// bucketJoin is what a checker does with one pair of buckets, the
// ledger's and the items' partitioned alike: fresh empties what the
// previous pair held, ledger takes the ledger's records, ready (when
// set) follows them, item takes the items' records, judge (when set)
// ends the pair.
type bucketJoin struct {
	fresh        func()
	ledger, item func(fields [][]byte) error
	ready, judge func()
}

// run joins the pairs one at a time; it stops at the first error.
func (j bucketJoin) run(ledger, items *buckets) error {
	for i := range ledger.files {
		j.fresh()
		if err := ledger.read(i, j.ledger); err != nil {
			return err
		}
		if j.ready != nil {
			j.ready()
		}
		if err := items.read(i, j.item); err != nil {
			return err
		}
		if j.judge != nil {
			j.judge()
		}
	}
	return nil
}

func (b *buckets) of(key string) int { return int(hashString(key) % uint64(len(b.files))) }

// put adds a record to the bucket of key.
func (b *buckets) put(key string, fields ...[]byte) {
	if b.err != nil {
		return
	}
	i := b.of(key)
	if b.files[i] == nil {
		f, err := os.Create(filepath.Join(b.dir, fmt.Sprint(i)))
		if err != nil {
			b.err = err
			return
		}
		b.files[i], b.ws[i] = f, bufio.NewWriterSize(f, 16<<10)
	}
	w := b.ws[i]
	var n [binary.MaxVarintLen64]byte
	_, b.err = w.Write(n[:binary.PutUvarint(n[:], uint64(len(fields)))])
	for _, f := range fields {
		if b.err == nil {
			_, b.err = w.Write(n[:binary.PutUvarint(n[:], uint64(len(f)))])
		}
		if b.err == nil {
			_, b.err = w.Write(f)
		}
	}
}

// read hands f the records of bucket i, in the order they were put.
func (b *buckets) read(i int, f func(fields [][]byte) error) error {
	if b.err != nil {
		return fmt.Errorf("the ledger's join: %w", b.err)
	}
	if b.files[i] == nil {
		return nil
	}
	if err := b.ws[i].Flush(); err != nil {
		return fmt.Errorf("the ledger's join: %w", err)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(b.files[i], 0, 1<<62), 64<<10)
	for {
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil || n > 64 {
			return fmt.Errorf("the ledger's join: bucket %d unreadable", i)
		}
		fields := make([][]byte, n)
		for j := range fields {
			l, err := binary.ReadUvarint(r)
			if err != nil || l > 1<<30 {
				return fmt.Errorf("the ledger's join: bucket %d unreadable", i)
			}
			fields[j] = make([]byte, l)
			if _, err := io.ReadFull(r, fields[j]); err != nil {
				return fmt.Errorf("the ledger's join: bucket %d unreadable", i)
			}
		}
		if err := f(fields); err != nil {
			return err
		}
	}
}

// close removes the buckets.
func (b *buckets) close() {
	if b == nil {
		return
	}
	for _, f := range b.files {
		if f != nil {
			_ = f.Close()
		}
	}
	_ = os.RemoveAll(b.dir)
}

// ranked is a violation with its place in the one-bucket join's order.
type ranked struct {
	s string
	n [4]int64
	v Violation
}

func rankedLess(a, b ranked) bool {
	if a.s != b.s {
		return a.s < b.s
	}
	for i := range a.n {
		if a.n[i] != b.n[i] {
			return a.n[i] < b.n[i]
		}
	}
	return false
}

// details gathers a join's violations: all counted, the first
// maxDetails in rank kept.
type details struct {
	n    int64
	kept []ranked
}

func (d *details) add(r ranked) {
	d.n++
	if len(d.kept) < maxDetails {
		d.kept = append(d.kept, r)
		return
	}
	// Keep the maxDetails smallest: replace the largest when smaller.
	hi := 0
	for i := range d.kept {
		if rankedLess(d.kept[hi], d.kept[i]) {
			hi = i
		}
	}
	if rankedLess(r, d.kept[hi]) {
		d.kept[hi] = r
	}
}

// into puts the violations in a result, in rank order.
func (d *details) into(b *base) {
	sort.SliceStable(d.kept, func(i, j int) bool { return rankedLess(d.kept[i], d.kept[j]) })
	b.res.Violations += d.n
	for _, r := range d.kept {
		if len(b.res.Details) < maxDetails {
			b.res.Details = append(b.res.Details, r.v)
		}
	}
}

// violation is a violation with its keys and message.
func violation(keys, format string, args ...any) Violation {
	return Violation{Keys: keys, Message: fmt.Sprintf(format, args...)}
}

// The records of the buckets: a message with its order, a write with
// its place.

func msgRecord(key string, m ledgerMsg) [][]byte {
	lm := ledgerOf(m.message)
	b, _ := json.Marshal(lm)
	var o [3 * binary.MaxVarintLen64]byte
	n := 0
	for _, x := range m.ord {
		n += binary.PutVarint(o[n:], x)
	}
	return [][]byte{[]byte(key), b, o[:n]}
}

// msgFrom reads a message record back: its key and the message.
func (lr *ledgerReader) msgFrom(fields [][]byte) (string, ledgerMsg, error) {
	if len(fields) != 3 {
		return "", ledgerMsg{}, fmt.Errorf("the ledger's join: a bad record")
	}
	var lm ledgerMessage
	if err := json.Unmarshal(fields[1], &lm); err != nil {
		return "", ledgerMsg{}, err
	}
	m, err := lr.message(&lm)
	if err != nil {
		return "", ledgerMsg{}, err
	}
	out := ledgerMsg{message: m}
	b := fields[2]
	for i := range out.ord {
		v, n := binary.Varint(b)
		if n <= 0 {
			return "", ledgerMsg{}, fmt.Errorf("the ledger's join: a bad record")
		}
		out.ord[i], b = v, b[n:]
	}
	return string(fields[0]), out, nil
}

// lean is a message with only the values of names: what a join keeps of
// it once it is keyed (a message's values are most of its weight).
func lean(m ledgerMsg, names ...string) ledgerMsg {
	c := *m.message
	c.values = nil
	for _, n := range names {
		if v, ok := m.values[n]; ok {
			if c.values == nil {
				c.values = map[string]attr.Value{}
			}
			c.values[n] = v
		}
	}
	return ledgerMsg{&c, m.ord}
}

// sortMsgs orders a key's messages as the one-bucket join has them.
func sortMsgs(ms []ledgerMsg) {
	sort.SliceStable(ms, func(i, j int) bool { return ordLess(ms[i].ord, ms[j].ord) })
}

// joinErr names the invariant a join failed for.
func joinErr(name string, err error) error {
	if err == nil || strings.Contains(err.Error(), name) {
		return err
	}
	return fmt.Errorf("invariant %s: %w", name, err)
}
