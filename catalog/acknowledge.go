package catalog

import "strings"

// Acknowledgement is one entry of the model's acknowledge list: a
// breaking change of this version that its authors accept, named by the
// dotted path cardapio diff gives it, and why it is safe to ship. It
// lives in the model, beside the change, so that the reason is reviewed
// in the same pull request and kept in the history.
type Acknowledgement struct {
	Change string
	Why    string
}

type rawAcknowledgement struct {
	Change string `json:"change"`
	Why    string `json:"why"`
}

// resolveAcknowledge copies the acknowledge list, refusing an entry that
// repeats or lies under an earlier one (it would say nothing more, and a
// second reason would contradict the first).
func (r *resolver) resolveAcknowledge() {
	for i, a := range r.raw.Acknowledge {
		for _, b := range r.m.Acknowledged {
			if covers(b.Change, a.Change) {
				r.errAt(p("acknowledge", i, "change"), false, "drop one of the two entries", "%q is already acknowledged by %q", a.Change, b.Change)
				break
			}
		}
		r.m.Acknowledged = append(r.m.Acknowledged, Acknowledgement(a))
	}
}

// covers reports whether the acknowledged path ack covers change: the
// same path, or one of its ancestors (entities.ORDER covers
// entities.ORDER.key.SK).
func covers(ack, change string) bool {
	return change == ack || strings.HasPrefix(change, ack+".")
}

// Acknowledges returns the entry of the acknowledge list that covers the
// change at path, and its index in the list (for Locate).
func (m *Model) Acknowledges(path string) (Acknowledgement, int, bool) {
	for i, a := range m.Acknowledged {
		if covers(a.Change, path) {
			return a, i, true
		}
	}
	return Acknowledgement{}, -1, false
}
