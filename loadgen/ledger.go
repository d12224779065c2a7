package loadgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// The ledger in the results file: the messages a run sent for the
// operations its ledger invariants are about, the version-guarded writes
// it saw applied, and the dead letters the summary leaves out, as
// "ledger" and "deadLetters" lines written before the summary. cardapio
// load check reads them back to check those invariants on the tables the
// run kept, after anyone else has written to them.
//
// The run keeps none of it longer than it must: a message leaves memory
// as soon as nothing more of it can come (its duplicates and replays
// done), a write as soon as it is applied, and they go to a spill file
// the run owns, in the results file's own lines, which the invariants
// read back a bucket at a time (ledgerjoin.go) and which is copied into
// the results file before the summary.

// ledgerChunk caps the messages, writes or dead letters of one line.
const ledgerChunk = 1000

// ledgerLine is one line of the ledger.
type ledgerLine struct {
	Type     string          `json:"type"`
	Messages []ledgerMessage `json:"messages,omitempty"`
	Writes   []ledgerWrite   `json:"writes,omitempty"`
}

// deadLine is a line of dead letters the summary does not list.
type deadLine struct {
	Type        string       `json:"type"`
	DeadLetters []deadLetter `json:"deadLetters"`
}

// ledgerMessage is a message as the ledger invariants read it.
type ledgerMessage struct {
	Load string `json:"load"`
	// Index is the load's place in the run: messages are ordered by it
	// and K, whatever order they finished in (a file without it is in
	// that order already).
	Index     *int   `json:"index,omitempty"`
	Operation string `json:"operation"`
	K         int64  `json:"k"`
	// Values are the message's parameters in DynamoDB JSON.
	Values  json.RawMessage `json:"values,omitempty"`
	Outcome string          `json:"outcome,omitempty"`
	Applied bool            `json:"applied,omitempty"`
	OK      bool            `json:"ok,omitempty"`
	Dead    bool            `json:"dead,omitempty"`
	Refused string          `json:"refused,omitempty"`
}

// ledgerWrite is an applied version-guarded write.
type ledgerWrite struct {
	Invariant string `json:"invariant"`
	Key       string `json:"key"`
	Expected  string `json:"expected"`
	Load      string `json:"load"`
}

// ledgerOf is the line form of a message.
func ledgerOf(m *message) ledgerMessage {
	idx := m.load.idx
	lm := ledgerMessage{Load: m.load.name, Index: &idx, Operation: m.load.op.Name, K: m.k, Outcome: m.outcome, Applied: m.applied, OK: m.ok, Dead: m.dead, Refused: m.refused}
	if m.values != nil {
		fs := make([]attr.Field, 0, len(m.values))
		for n, v := range m.values {
			fs = append(fs, attr.Field{Name: n, Value: v})
		}
		lm.Values = attr.AppendItemJSON(nil, attr.Sorted(fs))
	}
	return lm
}

// ledgerSpill is a run's ledger on disk: a temporary file of results
// lines, filled a chunk at a time. Its zero value (no file) keeps
// nothing; a nil one too.
type ledgerSpill struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	err  error
	inv  map[*catalog.VersionsInvariant]string
	ms   []ledgerMessage
	ws   []ledgerWrite
	ds   []deadLetter
	done bool

	messages, writes, dead int64
}

// newLedgerSpill opens a spill in the system's temporary directory; the
// caller removes it (close).
func newLedgerSpill(invs []*catalog.Invariant) (*ledgerSpill, error) {
	f, err := os.CreateTemp("", "cardapio-ledger-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("the ledger's spill file: %w", err)
	}
	s := &ledgerSpill{f: f, w: bufio.NewWriterSize(f, 64<<10), inv: map[*catalog.VersionsInvariant]string{}}
	for _, v := range invs {
		if v.Versions != nil {
			s.inv[v.Versions] = v.Name
		}
	}
	return s, nil
}

// close removes the spill.
func (s *ledgerSpill) close() {
	if s == nil || s.f == nil {
		return
	}
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
	s.f = nil
}

func (s *ledgerSpill) line(v any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err == nil {
		_, err = s.w.Write(append(b, '\n'))
	}
	s.err = err
}

// message adds a final message.
func (s *ledgerSpill) message(lm ledgerMessage) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages++
	s.ms = append(s.ms, lm)
	if len(s.ms) == ledgerChunk {
		s.line(ledgerLine{Type: "ledger", Messages: s.ms})
		s.ms = s.ms[:0]
	}
}

// write adds an applied version-guarded write.
func (s *ledgerSpill) write(w versionWrite) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes++
	s.ws = append(s.ws, ledgerWrite{Invariant: s.inv[w.inv], Key: w.key, Expected: w.expected, Load: w.load})
	if len(s.ws) == ledgerChunk {
		s.line(ledgerLine{Type: "ledger", Writes: s.ws})
		s.ws = s.ws[:0]
	}
}

// deadLetter adds a final dead letter the summary does not list.
func (s *ledgerSpill) deadLetter(d deadLetter) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dead++
	s.ds = append(s.ds, d)
	if len(s.ds) == ledgerChunk {
		s.line(deadLine{Type: "deadLetters", DeadLetters: s.ds})
		s.ds = s.ds[:0]
	}
}

// raw adds a line read from a results file (cardapio load check).
func (s *ledgerSpill) raw(b []byte, messages, writes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages += int64(messages)
	s.writes += int64(writes)
	if s.err == nil {
		if _, s.err = s.w.Write(b); s.err == nil {
			s.err = s.w.WriteByte('\n')
		}
	}
}

// finish writes what the chunks hold, and at least one ledger line, so
// that a reader tells an empty ledger from a file without one; nothing
// is added after.
func (s *ledgerSpill) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return s.err
	}
	s.done = true
	if len(s.ms) > 0 {
		s.line(ledgerLine{Type: "ledger", Messages: s.ms})
	}
	if len(s.ws) > 0 || s.messages == 0 && s.writes == 0 {
		s.line(ledgerLine{Type: "ledger", Writes: s.ws})
	}
	if len(s.ds) > 0 {
		s.line(deadLine{Type: "deadLetters", DeadLetters: s.ds})
	}
	s.ms, s.ws, s.ds = nil, nil, nil
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		s.err = fmt.Errorf("the ledger's spill file: %w", s.err)
	}
	return s.err
}

// lines reads the spill's lines back, in the order they were written.
func (s *ledgerSpill) lines(f func(typ string, b []byte) error) error {
	if err := s.finish(); err != nil {
		return err
	}
	r := io.NewSectionReader(s.f, 0, 1<<62)
	return resultLines(s.f.Name(), r, func(_ int, typ string, b []byte) error { return f(typ, b) })
}

// ledgerMsg is a message read back with its order: the load's place in
// the run and its number, else its place in the file.
type ledgerMsg struct {
	*message
	ord [3]int64
}

func ordLess(a, b [3]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// ledgerReader reads a ledger's messages and writes back, resolved
// against a model.
type ledgerReader struct {
	m     *catalog.Model
	loads map[string]*loadRun
}

func newLedgerReader(m *catalog.Model) *ledgerReader {
	return &ledgerReader{m: m, loads: map[string]*loadRun{}}
}

// message resolves a line's message.
func (lr *ledgerReader) message(lm *ledgerMessage) (*message, error) {
	op := lr.m.Operation(lm.Operation)
	if op == nil {
		return nil, fmt.Errorf("the ledger names operation %q, which model %s does not have", lm.Operation, lr.m.Name)
	}
	l := lr.loads[lm.Load+"\x00"+lm.Operation]
	if l == nil {
		l = &loadRun{name: lm.Load, op: op}
		if lm.Index != nil {
			l.idx = *lm.Index
		}
		lr.loads[lm.Load+"\x00"+lm.Operation] = l
	}
	msg := &message{load: l, k: lm.K, outcome: lm.Outcome, applied: lm.Applied, ok: lm.OK, dead: lm.Dead, refused: lm.Refused}
	if len(lm.Values) > 0 {
		it, err := attr.DecodeItem(lm.Values)
		if err != nil {
			return nil, fmt.Errorf("message %d of %s: %v", lm.K, lm.Load, err)
		}
		msg.values = make(map[string]attr.Value, len(it))
		for _, f := range it {
			msg.values[f.Name] = f.Value
		}
	}
	return msg, nil
}

// write resolves a line's write.
func (lr *ledgerReader) write(lw *ledgerWrite) (versionWrite, error) {
	v := lr.m.Invariant(lw.Invariant)
	if v == nil || v.Versions == nil {
		return versionWrite{}, fmt.Errorf("the ledger names invariant %q, which is not a versions invariant of model %s", lw.Invariant, lr.m.Name)
	}
	return versionWrite{inv: v.Versions, key: lw.Key, expected: lw.Expected, load: lw.Load}, nil
}

// each reads the spill's messages and writes back in order (with their
// order, see ledgerMsg), those f or g wants (a nil one: none).
func (s *ledgerSpill) each(m *catalog.Model, f func(ledgerMsg) error, g func(versionWrite, int64) error) error {
	lr := newLedgerReader(m)
	var pos, wpos int64
	return s.lines(func(typ string, b []byte) error {
		if typ != "ledger" {
			return nil
		}
		var l ledgerLine
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if f != nil {
			for i := range l.Messages {
				msg, err := lr.message(&l.Messages[i])
				if err != nil {
					return err
				}
				ord := [3]int64{0, 0, pos}
				if ix := l.Messages[i].Index; ix != nil {
					ord = [3]int64{int64(*ix), msg.k, pos}
				}
				pos++
				if err := f(ledgerMsg{msg, ord}); err != nil {
					return err
				}
			}
		}
		if g != nil {
			for i := range l.Writes {
				w, err := lr.write(&l.Writes[i])
				if err != nil {
					return err
				}
				if err := g(w, wpos); err != nil {
					return err
				}
				wpos++
			}
		}
		return nil
	})
}

// writeLedger copies the run's ledger into the results stream.
func (r *runner) writeLedger(st *stream) error {
	if st == nil || r.spill == nil {
		return nil
	}
	return r.spill.lines(func(_ string, b []byte) error {
		st.write(json.RawMessage(b))
		return nil
	})
}

// runLedger is what a results file holds of a run for the checks: its
// summary and its ledger, in a spill the caller closes.
type runLedger struct {
	summary *Summary
	lines   int // ledger lines read
}

// readLedger reads a results file: its ledger lines, resolved against
// m, into spill, and its summary. A file without a summary is a run that
// did not finish: its ledger may lack messages, so it is refused.
func readLedger(name string, r io.Reader, m *catalog.Model, spill *ledgerSpill) (*runLedger, error) {
	out := &runLedger{}
	lr := newLedgerReader(m)
	err := resultLines(name, r, func(line int, typ string, b []byte) error {
		switch typ {
		case "start":
			var st Start
			if err := json.Unmarshal(b, &st); err != nil {
				return fmt.Errorf("%s:%d: the start line: %v", name, line, err)
			}
			if st.Model != m.Name {
				return fmt.Errorf("%s: a run of model %s, not %s", name, st.Model, m.Name)
			}
		case "summary":
			var s Summary
			if err := json.Unmarshal(b, &s); err != nil {
				return fmt.Errorf("%s:%d: the summary: %v", name, line, err)
			}
			out.summary = &s
		case "ledger":
			var l ledgerLine
			if err := json.Unmarshal(b, &l); err != nil {
				return fmt.Errorf("%s:%d: the ledger: %v", name, line, err)
			}
			out.lines++
			for i := range l.Messages {
				if _, err := lr.message(&l.Messages[i]); err != nil {
					return fmt.Errorf("%s:%d: %v", name, line, err)
				}
			}
			for i := range l.Writes {
				if _, err := lr.write(&l.Writes[i]); err != nil {
					return fmt.Errorf("%s:%d: %v", name, line, err)
				}
			}
			spill.raw(b, len(l.Messages), len(l.Writes))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out.summary == nil {
		return nil, fmt.Errorf("%s: no summary line: the run did not finish, so its ledger may lack messages", name)
	}
	if out.summary.Model != m.Name {
		return nil, fmt.Errorf("%s: a run of model %s, not %s", name, out.summary.Model, m.Name)
	}
	return out, nil
}
