package loadgen

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/cardapio/cardapio/attr"
	"github.com/cardapio/cardapio/catalog"
)

// The ledger in the results file: the messages a run sent for the
// operations its ledger invariants are about, and the version-guarded
// writes it saw applied, as "ledger" lines written before the summary.
// cardapio load check reads them back to check those invariants on the
// tables the run kept, after anyone else has written to them.

// ledgerChunk caps the messages or writes of one ledger line.
const ledgerChunk = 1000

// ledgerLine is one line of the ledger.
type ledgerLine struct {
	Type     string          `json:"type"`
	Messages []ledgerMessage `json:"messages,omitempty"`
	Writes   []ledgerWrite   `json:"writes,omitempty"`
}

// ledgerMessage is a message as the ledger invariants read it.
type ledgerMessage struct {
	Load      string `json:"load"`
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

// writeLedger writes the run's ledger to the results stream.
func (r *runner) writeLedger(st *stream, m *catalog.Model) {
	if st == nil {
		return
	}
	invName := map[*catalog.VersionsInvariant]string{}
	for _, v := range m.Invariants {
		if v.Versions != nil {
			invName[v.Versions] = v.Name
		}
	}
	var ms []ledgerMessage
	for _, k := range sortedMessages(r.messages) {
		m := r.messages[k]
		lm := ledgerMessage{Load: m.load.name, Operation: m.load.op.Name, K: m.k, Outcome: m.outcome, Applied: m.applied, OK: m.ok, Dead: m.dead, Refused: m.refused}
		if m.values != nil {
			fs := make([]attr.Field, 0, len(m.values))
			for n, v := range m.values {
				fs = append(fs, attr.Field{Name: n, Value: v})
			}
			lm.Values = attr.AppendItemJSON(nil, attr.Sorted(fs))
		}
		ms = append(ms, lm)
		if len(ms) == ledgerChunk {
			st.write(ledgerLine{Type: "ledger", Messages: ms})
			ms = nil
		}
	}
	if len(ms) > 0 {
		st.write(ledgerLine{Type: "ledger", Messages: ms})
	}
	var ws []ledgerWrite
	for _, w := range r.writes {
		ws = append(ws, ledgerWrite{Invariant: invName[w.inv], Key: w.key, Expected: w.expected, Load: w.load})
		if len(ws) == ledgerChunk {
			st.write(ledgerLine{Type: "ledger", Writes: ws})
			ws = nil
		}
	}
	if len(ws) > 0 || len(r.messages) == 0 && len(r.writes) == 0 {
		// At least one ledger line, so that a reader tells an empty
		// ledger from a file without one.
		st.write(ledgerLine{Type: "ledger", Writes: ws})
	}
}

// runLedger is what a results file holds of a run for the checks: its
// summary and its ledger.
type runLedger struct {
	summary  *Summary
	messages []*message
	writes   []versionWrite
	lines    int // ledger lines read
}

// readLedger reads a results file: its ledger lines, resolved against
// m, and its summary. A file without a summary is a run that did not
// finish: its ledger may lack messages, so it is refused.
func readLedger(name string, r io.Reader, m *catalog.Model) (*runLedger, error) {
	out := &runLedger{}
	loads := map[string]*loadRun{}
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
			for _, lm := range l.Messages {
				op := m.Operation(lm.Operation)
				if op == nil {
					return fmt.Errorf("%s:%d: the ledger names operation %q, which model %s does not have", name, line, lm.Operation, m.Name)
				}
				lr := loads[lm.Load]
				if lr == nil {
					lr = &loadRun{name: lm.Load, op: op}
					loads[lm.Load] = lr
				}
				msg := &message{load: lr, k: lm.K, outcome: lm.Outcome, applied: lm.Applied, ok: lm.OK, dead: lm.Dead, refused: lm.Refused}
				if len(lm.Values) > 0 {
					it, err := attr.DecodeItem(lm.Values)
					if err != nil {
						return fmt.Errorf("%s:%d: message %d of %s: %v", name, line, lm.K, lm.Load, err)
					}
					msg.values = make(map[string]attr.Value, len(it))
					for _, f := range it {
						msg.values[f.Name] = f.Value
					}
				}
				out.messages = append(out.messages, msg)
			}
			for _, lw := range l.Writes {
				v := m.Invariant(lw.Invariant)
				if v == nil || v.Versions == nil {
					return fmt.Errorf("%s:%d: the ledger names invariant %q, which is not a versions invariant of model %s", name, line, lw.Invariant, m.Name)
				}
				out.writes = append(out.writes, versionWrite{inv: v.Versions, key: lw.Key, expected: lw.Expected, load: lw.Load})
			}
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
