package catalog

import "fmt"

// What the consistency of a question demands of the step that answers it.
//
// eventual: nothing; any structure, any read.
//
// strong: the answer reflects every write acknowledged before it. It is
// read from the base table or a local index with consistentRead: true
// (GetItem, Query, Scan), or given by a write, which always acts on the
// latest item. A global index never answers it.
//
// exact: the answer is authoritative at the moment it is acted on, which
// only the base table can make it: by the condition of the write that
// acts on it (attribute_not_exists(PK) answers "was this already
// applied?", attempts < :max "may I contact again?"), or by a strongly
// consistent read of the table. No index answers it, not even a local
// one; an eventually consistent read never does; a write that answers it
// carries the condition that is the answer.
//
// The access pattern's answer is checked where it is declared
// (checkReadShape); the steps that name the pattern are checked here,
// since they are what runs: a step may not read more loosely than its
// question demands, nor answer an exact question with an unconditional
// write.

// answerKinds maps an answer's operation to the step kind that performs
// it.
var answerKinds = map[string]StepKind{
	"GetItem": Get, "Query": Query, "Scan": Scan,
	"PutItem": Put, "UpdateItem": Update, "DeleteItem": Delete,
}

// checkConsistency checks every step that answers a strong or exact
// question. It runs on a model free of other errors, when step indexes
// are those of the document.
func (r *resolver) checkConsistency(m *Model) {
	for _, op := range m.Operations {
		for i, s := range op.Steps {
			ap := s.Pattern
			if ap == nil || ap.Answer == nil || (ap.Consistency != Strong && ap.Consistency != Exact) {
				continue
			}
			sptr := p("operations", op.Name, "steps", i)
			want := answerKinds[ap.Answer.Operation]
			switch s.Kind {
			case Transaction:
				r.consistentTransaction(s, ap, want, sptr)
			default:
				r.consistentStep(s, ap, want, sptr+"/"+string(s.Kind))
			}
		}
	}
}

// consistentStep checks a single-request step answering ap.
func (r *resolver) consistentStep(s *Step, ap *AccessPattern, want StepKind, ptr string) {
	q := s.Request
	if q == nil {
		return
	}
	if want != "" && s.Kind != want {
		r.errAt(ptr, true, fmt.Sprintf("answer it with a %s step, or change the pattern's answer.operation", want),
			"%s is answered by %s (%s), but this step is %s", ap.ID, ap.Answer.Operation, ap.Consistency, an(string(s.Kind)))
		return
	}
	switch s.Kind {
	case Get, Query, Scan:
		if q.ConsistentRead {
			return
		}
		if ap.Consistency == Exact {
			r.errAt(ptr, true, "set consistentRead: true, or answer it with the condition of the write that acts on it",
				"%s is an exact question: an eventually consistent %s may miss the latest write and is no answer", ap.ID, callName(s.Kind))
		} else {
			r.errAt(ptr, true, "set consistentRead: true",
				"%s is a strong question: this %s must read with consistentRead: true", ap.ID, callName(s.Kind))
		}
	case Put, Update, Delete:
		if ap.Consistency == Exact && q.Condition == "" {
			r.errAt(ptr, true, "give it the condition that is the answer (attribute_not_exists(PK): not yet applied)",
				"%s is an exact question answered by this %s, which has no condition: nothing makes the answer authoritative", ap.ID, s.Kind)
		}
	}
}

// consistentTransaction checks a transaction answering ap: the action
// that performs the answer (the one on the answer's key, or else the
// actions of the answer's kind) carries a condition when the question is
// exact.
func (r *resolver) consistentTransaction(s *Step, ap *AccessPattern, want StepKind, ptr string) {
	if ap.Consistency != Exact {
		return
	}
	var kind, onKey []*Step
	var idx []int
	for j, it := range s.Items {
		if it.Request == nil || it.Kind == ConditionCheck {
			continue
		}
		if want == "" || it.Kind == want {
			kind = append(kind, it)
			idx = append(idx, j)
			if sameKey(it.Request, ap.Answer) {
				onKey = append(onKey, it)
			}
		}
	}
	cands := kind
	if len(onKey) > 0 {
		cands = onKey
	}
	if len(cands) == 0 {
		r.errAt(ptr+"/transaction", true, fmt.Sprintf("answer it with a %s action, or change the pattern's answer.operation", want),
			"%s is answered by %s (exact), but no action of this transaction is %s", ap.ID, ap.Answer.Operation, an(string(want)))
		return
	}
	for _, it := range cands {
		if it.Request.Condition != "" {
			return
		}
	}
	for _, it := range s.Items {
		if it.Kind == ConditionCheck && len(onKey) > 0 && sameKey(it.Request, ap.Answer) {
			return // a condition check on the answer's item is the answer
		}
	}
	j := idx[0]
	for k, it := range kind {
		if it == cands[0] {
			j = idx[k]
		}
	}
	r.errAt(fmt.Sprintf("%s/transaction/items/%d/%s", ptr, j, cands[0].Kind), true, "give it the condition that is the answer (attribute_not_exists(PK): not yet applied)",
		"%s is an exact question answered by action %s, which has no condition: nothing makes the answer authoritative", ap.ID, cands[0].ID)
}

// sameKey reports whether a request addresses the item an answer's key
// names: every table key attribute equal to the same template.
func sameKey(q *Request, a *Answer) bool {
	if q == nil || a == nil || a.Index != nil || len(q.Key) == 0 {
		return false
	}
	for _, k := range q.Key {
		found := false
		for _, kc := range a.Key {
			if kc.Attribute == k.Attribute && kc.Op == OpEq && len(kc.Operands) == 1 && operandText(kc.Operands[0]) == operandText(k.Value) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// callName is the DynamoDB call of a read step.
func callName(k StepKind) string {
	return map[StepKind]string{Get: "GetItem", Query: "Query", Scan: "Scan"}[k]
}
