package generator

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cardapio/cardapio/catalog"
)

// failurePlan is one declared failure of a step: a condition that fails
// or an item that is missing, with its meaning and outcome.
type failurePlan struct {
	Var      string // package-level variable: applySettlementSettlement
	Op, Step string
	Meaning  string
	Outcome  string
	Missing  bool
	Sentinel *sentinelPlan
}

// sentinelPlan is an exported error value, one per distinct name.
type sentinelPlan struct {
	Name    string // ErrAlreadyApplied
	Message string // already applied
	Uses    []*failurePlan
}

// Doc is the sentinel's doc comment body (after its name).
func (s *sentinelPlan) Doc() string {
	var parts []string
	for i, u := range s.Uses {
		by := "by "
		if i == 0 {
			by = "is returned by "
		}
		what := "the condition of step " + u.Step + " fails"
		if u.Missing {
			what = "step " + u.Step + " finds no item"
		}
		parts = append(parts, fmt.Sprintf("%s%s when %s: %s (the model's outcome: %s)", by, u.Op, what, strings.TrimSuffix(u.Meaning, "."), u.Outcome))
	}
	return strings.Join(parts, "; and ") + "."
}

var (
	alreadyRe = regexp.MustCompile(`(?i)\balready\s+([a-z]+)`)
)

// failureName derives the name of a failure (without the Err prefix)
// from the model: the kind of the condition, as the catalog reads it from
// the request's shape (Step.ConditionKind, the executor's outcomes too),
// and the words of its meaning.
//
//   - an item that is missing (a get's onMissing, a condition that the item
//     exist): the entity, NotFound (ChargeNotFound);
//   - a condition that the item not exist: the meaning's "already <verb>"
//     (AlreadyApplied), else the entity, Exists (ProfileExists);
//   - an optimistic lock (a condition on an attribute of unit version):
//     VersionConflict;
//   - a counter held under a limit, and nothing else: the operation's
//     object, LimitReached (ClaimContact: ContactLimitReached);
//   - any other condition, a limit among other terms included: the first
//     words of the meaning (catalog.MeaningWords), as the load's outcomes
//     label it.
func (p *plan) failureName(op *catalog.Operation, st *catalog.Step, q *catalog.Request, missing bool) string {
	ent := ""
	if q.Entity != nil {
		ent = exported(q.Entity.Name)
	}
	if missing {
		return ent + "NotFound"
	}
	f := q.OnConditionFailed
	kind := st.ConditionKind(p.m, op)
	if kind == catalog.FailNotFound {
		return ent + "NotFound"
	}
	// "already applied", "already paid": the model says the effect is
	// there, whatever the condition's shape; that names the failure.
	if v := alreadyDone(f.Meaning); v != "" {
		return "Already" + exported(v)
	}
	switch kind {
	case catalog.FailAlreadyApplied, catalog.FailExists:
		return ent + "Exists"
	case catalog.FailVersionConflict:
		return "VersionConflict"
	case catalog.FailLimitReached:
		return objectOf(op.Name, ent) + "LimitReached"
	}
	return meaningName(f.Meaning, exported(st.ID)+"Failed")
}

// irregular are past participles that do not end in -ed.
var irregular = map[string]bool{"paid": true, "sent": true, "done": true, "written": true, "taken": true, "made": true,
	"given": true, "shown": true, "built": true, "run": true, "set": true, "put": true, "seen": true, "known": true,
	"begun": true, "gone": true, "won": true, "sold": true, "bought": true, "held": true, "kept": true, "told": true}

// alreadyDone returns the participle of "already <participle>" in the
// first clause of a meaning (already applied, already paid), or "".
func alreadyDone(meaning string) string {
	first := meaning
	if i := strings.IndexAny(first, ";"); i >= 0 {
		first = first[:i]
	}
	w := alreadyRe.FindStringSubmatch(first)
	if w == nil {
		return ""
	}
	v := strings.ToLower(w[1])
	if strings.HasSuffix(v, "ed") || irregular[v] {
		return v
	}
	return ""
}

// objectOf returns the object of an operation named verb-first
// (ClaimContact -> Contact), or fallback.
func objectOf(op, fallback string) string {
	ws := words(op)
	if len(ws) < 2 {
		if fallback != "" {
			return fallback
		}
		return exported(op)
	}
	return exported(strings.Join(ws[1:], " "))
}

// meaningName turns the first clause of a meaning into a name of at most
// four words.
func meaningName(meaning, fallback string) string {
	ws := catalog.MeaningWords(meaning)
	if len(ws) == 0 {
		return fallback
	}
	return exported(strings.Join(ws, " "))
}

// failureFor registers the failure of a step and returns it.
func (p *plan) failureFor(opp *opPlan, st *catalog.Step, q *catalog.Request, missing bool) *failurePlan {
	f := q.OnConditionFailed
	if missing {
		f = q.OnMissing
	}
	fp := &failurePlan{Op: opp.Op.Name, Step: st.ID, Meaning: f.Meaning, Outcome: f.Outcome, Missing: missing}
	suffix := ""
	if missing {
		suffix = "Missing"
	}
	fp.Var = p.names.claim("failure:"+opp.Op.Name+":"+st.ID+suffix, unexported(opp.Op.Name)+exported(st.ID)+suffix, "Failure")
	name := "Err" + p.failureName(opp.Op, st, q, missing)
	fp.Sentinel = p.sentinel(name)
	fp.Sentinel.Uses = append(fp.Sentinel.Uses, fp)
	p.failures = append(p.failures, fp)
	opp.failures = append(opp.failures, fp)
	return fp
}

func (p *plan) sentinel(name string) *sentinelPlan {
	for _, s := range p.sentinels {
		if s.Name == name {
			return s
		}
	}
	id := p.names.claim("sentinel:"+name, name, "Error")
	s := &sentinelPlan{Name: id, Message: strings.ToLower(strings.Join(words(strings.TrimPrefix(name, "Err")), " "))}
	p.sentinels = append(p.sentinels, s)
	return s
}

func (p *plan) planSentinels() {
	slices.SortFunc(p.sentinels, func(a, b *sentinelPlan) int { return strings.Compare(a.Name, b.Name) })
}
